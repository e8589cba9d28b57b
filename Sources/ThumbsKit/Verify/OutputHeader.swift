import CVips
import CVipsShim

/// The real width and height of an encoded image, read from its header by
/// libvips (no pixels are decoded).
enum OutputHeader {
    /// nil when libvips does not recognise the bytes as an image.
    static func dimensions(of bytes: UnsafeRawBufferPointer) -> (width: Int, height: Int)? {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return nil }
        var image: UnsafeMutablePointer<VipsImage>?
        var loader: UnsafePointer<CChar>?
        guard shim_header_from_buffer(base, bytes.count, Int32(VIPS_FAIL_ON_NONE.rawValue), &image, &loader) == 0,
              let image
        else { return nil }
        defer { shim_unref(image) }
        return (Int(vips_image_get_width(image)), Int(vips_image_get_height(image)))
    }
}
