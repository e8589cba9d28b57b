import CVips
import CVipsShim

/// Resizing an image to an exact size.
enum VipsResize {
    /// Resizes to exactly `width` × `height` (Lanczos3), premultiplied when
    /// there is alpha so that transparent pixels do not bleed their colour.
    static func resize(_ input: VipsImageRef, width targetW: Int, height targetH: Int) throws(VipsFailure) -> VipsImageRef {
        var image = input
        guard image.width != targetW || image.height != targetH else { return image }
        // 8-bit pixels already in memory (every direct JPEG decode, and the
        // renditions smaller sizes are made from): resample.c, about three
        // times faster than libvips' reduce without liborc. Anything else
        // (lazy pipelines, alpha, 16-bit, enlarging) goes through libvips.
        var resampled: UnsafeMutablePointer<VipsImage>?
        switch shim_resample_image(image.pointer, &resampled, Int32(targetW), Int32(targetH)) {
        case 0:
            if let resampled { return VipsImageRef(resampled) }
        case 1:
            break
        default:
            throw VipsFailure(operation: "resample")
        }
        let alpha = image.hasAlpha
        let format = image.bandFormat
        if alpha { image = try image.apply("premultiply") { shim_premultiply($0, $1) } }
        let h = Double(targetW) / Double(image.width), v = Double(targetH) / Double(image.height)
        image = try image.apply("resize") { shim_resize($0, $1, h, v) }
        if alpha {
            image = try image.apply("unpremultiply") { shim_unpremultiply($0, $1) }
            image = try image.apply("cast") { shim_cast($0, $1, format, 0) }
        }
        if image.width > targetW || image.height > targetH {
            let w = min(image.width, targetW), hh = min(image.height, targetH)
            image = try image.apply("extract_area") { shim_extract_area($0, $1, 0, 0, Int32(w), Int32(hh)) }
        }
        return image
    }
}
