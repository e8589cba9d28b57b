import CVips
import CVipsShim

/// Every format through libvips' own loaders, and the JPEGs the direct paths
/// do not take. libvips decodes lazily, while it resizes and encodes, so on
/// this path a source is decoded and rendered in one step. A file is read
/// through its descriptor (`LibvipsInput`), a strip or a chunk at a time.
enum LibvipsDecoder {
    /// The header, the thumbnails and the signature of one source. Call it
    /// inside `VipsErrorBuffer.attributed`.
    static func render(
        _ source: ImageSource,
        settings: OutputSettings,
        limits: DecodeLimits
    ) throws(ImagingError) -> (SourceImageInfo, RenderedImage) {
        let header = try LibvipsHeader.open(source, limits: limits)
        let info = header.info
        let plans = ThumbnailPlans(info, settings: settings)
        // With several sizes the image is decoded into memory by `load`, so
        // a failure while rendering is a resize's or an encoder's. With one
        // size libvips decodes while it resizes, and a damaged file fails
        // there.
        let reusable = plans.sizes.count > 1
        let base: VipsImageRef
        do throws(VipsFailure) {
            base = try load(source, header: header, plans: plans, failOn: limits.failOn, reusable: reusable)
        } catch {
            throw error.meaning(.decode(format: info.format))
        }
        let rendered = try ThumbnailRenderer.render(
            base, plans: plans, settings: settings,
            failure: reusable ? .thumbnails : .decode(format: info.format)
        )
        return (info, rendered)
    }

    /// The pixels, shrunk on load as far as every size allows; in memory
    /// when several sizes read them (`reusable`).
    private static func load(
        _ source: ImageSource,
        header: LibvipsHeader,
        plans: ThumbnailPlans,
        failOn: FailOn,
        reusable: Bool
    ) throws(VipsFailure) -> VipsImageRef {
        let stored = plans.storedSize
        let (needW, needH) = plans.neededSize
        var shrink: Int32 = 1
        var scale = 1.0
        if header.loader.hasPrefix("jpegload") {
            shrink = Int32(plans.jpegShrink)
        } else if header.loader.hasPrefix("webpload") {
            let s = max(Double(needW) / Double(stored.width), Double(needH) / Double(stored.height))
            if s < 1 { scale = s }
        } else if header.loader.hasPrefix("svgload") || header.loader.hasPrefix("pdfload") {
            scale = max(Double(needW) / Double(stored.width), Double(needH) / Double(stored.height))
        }
        var out: UnsafeMutablePointer<VipsImage>?
        guard LibvipsInput.load(source, loader: header.loader, shrink: shrink, scale: scale,
                                failOn: Int32(failOn.vipsValue.rawValue), &out) == 0,
              let out
        else {
            throw VipsFailure(operation: "load")
        }
        var image = VipsImageRef(out)
        if header.loader.hasPrefix("heifload"), !image.hasICCProfile,
           let icc = (try? HeifThumbnail.nclxProfile(source)) ?? nil {
            // Colour given by an nclx box only (Display P3 on recent phones):
            // its profile, so that the conversion to sRGB sees P3.
            icc.withUnsafeBytes { vips_image_set_blob_copy(image.pointer, VIPS_META_ICC_NAME, $0.baseAddress, $0.count) }
        }
        if vips_image_get_coding(image.pointer) != VIPS_CODING_NONE {
            image = try image.apply("decode") { vips_image_decode($0, $1) }
        }
        if reusable {
            // Several boxes read the same decoded pixels: decode once into memory.
            guard let copy = vips_image_copy_memory(image.pointer) else {
                throw VipsFailure(operation: "copy_memory", fallback: "decode failed")
            }
            image = VipsImageRef(copy)
        }
        return image
    }
}
