import CVips

/// libvips' own loaders: every format the entries above pass, every JPEG
/// `JPEGPathRule` sends here, and every decode above that declined. Last in
/// `DecoderList`: it takes every source, and gives the item its verdict
/// under `--fail-on` (`LibvipsDecoder`).
///
/// A file is read through its descriptor a strip or a chunk at a time
/// (`LibvipsInput`); a format no loader reads from a source is read into
/// memory whole, and its plan says so.
struct LibvipsImageDecoder: ImageDecoder {
    func plan(_ input: DecoderInput) throws(ItemError) -> DecodePlan? {
        let source = input.source, settings = input.settings, limits = input.limits
        var readsWhole = false
        var info: SourceImageInfo?
        var peakBytes = 0
        if case .file(let file) = source {
            readsWhole = try VipsErrorBuffer.attributed { () throws(ImagingError) in !LibvipsInput.readsFromSource(file) }
        }
        // One size streams from the loader through the resize: nothing of
        // the image is held but libvips' strips. Several sizes decode it into
        // memory once (`LibvipsDecoder`), and a HEIF's loader decodes its
        // whole primary image: then the header says how much.
        if settings.sizes.count > 1 || input.format == "heif" || input.format == "avif" {
            let found = try? VipsErrorBuffer.attributed { () throws(ImagingError) -> (SourceImageInfo, Int) in
                let header = try LibvipsHeader.open(source, limits: limits)
                return (header.info, Self.heldBytes(header, settings: settings))
            }
            if let found {
                info = found.0
                peakBytes = found.1
            }
        }
        let whole = readsWhole
        if whole { peakBytes += source.count }
        return DecodePlan(path: .libvips, info: info, peakBytes: peakBytes, reads: whole ? .all : .streamed) {
            source, settings, limits throws(ItemError) in
            if whole {
                return try source.withAllBytes { bytes throws(ItemError) in try Self.render(.memory(bytes), settings: settings, limits: limits) }
            }
            let image = try Self.render(source, settings: settings, limits: limits)
            try source.checkUnchanged()
            return image
        }
    }

    private static func render(_ source: ImageSource, settings: OutputSettings, limits: DecodeLimits) throws(ItemError) -> DecodedImage {
        let (info, rendered) = try VipsErrorBuffer.attributed { () throws(ImagingError) in
            try LibvipsDecoder.render(source, settings: settings, limits: limits)
        }
        return DecodedImage(info: info, decoder: .libvips, stage: .rendered(rendered), failOn: limits.failOn)
    }

    /// What the libvips path holds of the image: with several sizes, one
    /// copy of the image as loaded (shrunk on load for a JPEG); a HEIF's
    /// loader, the decoded primary image in YCbCr (1.5 bytes a pixel) and
    /// RGB (3).
    static func heldBytes(_ header: LibvipsHeader, settings: OutputSettings) -> Int {
        let image = header.image
        let pixels = image.width * image.pageHeight
        var held = 0
        if header.loader.hasPrefix("heifload") { held += pixels * 9 / 2 }
        if settings.sizes.count > 1 {
            let shrink = header.loader.hasPrefix("jpegload") ? ThumbnailPlans(header.info, settings: settings).jpegShrink : 1
            let sample = Int(vips_format_sizeof(image.bandFormat))
            held += pixels / (shrink * shrink) * image.bands * max(1, sample)
        }
        return held
    }
}
