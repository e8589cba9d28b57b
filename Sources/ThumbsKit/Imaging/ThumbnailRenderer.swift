import CVips
import CVipsShim

/// Every thumbnail of one decoded (or lazily decoding) image, and its
/// signature: resize, sRGB, upright, then `ThumbnailEncoder` per size.
enum ThumbnailRenderer {
    /// One thumbnail of `base` per size, in the order of `settings.sizes`.
    ///
    /// Largest first: each size is resized from the smallest rendition made
    /// so far that is at least twice as large both ways (as a Pillow script
    /// makes 256 from 1024), else from `base`. A rendition that a smaller
    /// size will use is kept in memory, already sRGB and upright, so the
    /// colour conversion and the rotation are done once for the sizes made
    /// from it, and the large resize is not repeated.
    ///
    /// A libvips call that fails means `failure` for the item; a colour
    /// profile that cannot be used is a warning (`SRGBConversion`).
    static func render(
        _ base: VipsImageRef, plans: ThumbnailPlans, settings: OutputSettings,
        failure: ImagingError.Meaning
    ) throws(ImagingError) -> RenderedImage {
        let sizes = plans.sizes
        let order = sizes.indices.sorted { sizes[$0].resizedWidth * sizes[$0].resizedHeight > sizes[$1].resizedWidth * sizes[$1].resizedHeight }
        var renditions: [VipsImageRef] = []
        var outputs: [Int: RenderedThumbnail] = [:]
        var warnings: [String] = []
        do {
            for (position, index) in order.enumerated() {
                let plan = sizes[index]
                var image: VipsImageRef
                if let source = renditions.last(where: { Self.canServe($0, plan) }) {
                    image = try VipsResize.resize(source, width: plan.resizedWidth, height: plan.resizedHeight)
                } else {
                    let swapped = plans.info.swapsSides
                    image = try VipsResize.resize(
                        base,
                        width: swapped ? plan.resizedHeight : plan.resizedWidth,
                        height: swapped ? plan.resizedWidth : plan.resizedHeight
                    )
                    image = try SRGBConversion.toSRGB8(image, failure: failure, warnings: &warnings)
                    // Upright already: no autorot, whose copy would make the
                    // rendition kept below a second buffer instead of a reference.
                    if image.orientation != 1 {
                        image = try image.apply("autorot") { shim_autorot($0, $1) }
                    }
                }
                let later = order[(position + 1)...].map { sizes[$0] }
                let smallest = position == order.count - 1
                if smallest || later.contains(where: { Self.canServe(image, $0) }) {
                    // Kept in memory: a smaller size, or the signature, reads it again.
                    guard let copy = vips_image_copy_memory(image.pointer) else {
                        throw VipsFailure(operation: "copy_memory", fallback: "resize failed")
                    }
                    image = VipsImageRef(copy)
                    renditions.append(image)
                }
                outputs[index] = try ThumbnailEncoder.finish(image, size: settings.sizes[index], plan: plan, settings: settings)
            }
            let signature = try renditions.last.map { rendition throws(VipsFailure) in
                try SignatureMaker.make(
                    from: rendition, placeholders: settings.placeholders,
                    hashSource: SignatureMaker.hashSource(among: [base] + renditions)
                )
            } ?? ImageSignature()
            return RenderedImage(thumbnails: sizes.indices.compactMap { outputs[$0] }, signature: signature, warnings: warnings)
        } catch let error as ImagingError {
            throw error
        } catch let error as VipsFailure {
            throw error.meaning(failure)
        } catch {
            // Nothing else is thrown above.
            throw .item(.encode("cannot make the thumbnails: \(error)"))
        }
    }

    /// Whether `rendition` (upright) is large enough to make `plan`'s size
    /// from without a visible loss: twice the size both ways.
    private static func canServe(_ rendition: VipsImageRef, _ plan: ThumbnailGeometry) -> Bool {
        rendition.width >= 2 * plan.resizedWidth && rendition.height >= 2 * plan.resizedHeight
    }
}
