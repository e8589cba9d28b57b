import CVips
import CVipsShim

/// Owns one reference to a `VipsImage` and drops it when it goes away.
///
/// Deliberately not `Sendable`: a libvips image is built, used and released on
/// one pool thread, inside one call of `Thumbnailer`. Only plain values leave.
final class VipsImageRef {
    let pointer: UnsafeMutablePointer<VipsImage>

    init(_ pointer: UnsafeMutablePointer<VipsImage>) {
        self.pointer = pointer
    }

    deinit { shim_unref(pointer) }

    var width: Int { Int(vips_image_get_width(pointer)) }
    var height: Int { Int(vips_image_get_height(pointer)) }
    var bands: Int { Int(vips_image_get_bands(pointer)) }
    var pageHeight: Int { Int(vips_image_get_page_height(pointer)) }
    var bandFormat: VipsBandFormat { vips_image_get_format(pointer) }
    var interpretation: VipsInterpretation { vips_image_get_interpretation(pointer) }
    var hasAlpha: Bool { vips_image_hasalpha(pointer) != 0 }
    var hasICCProfile: Bool { vips_image_get_typeof(pointer, VIPS_META_ICC_NAME) != 0 }

    /// The EXIF orientation, 1 when absent or invalid (libvips clamps it).
    var orientation: Int { Int(vips_image_get_orientation(pointer)) }

    /// Runs one libvips operation that writes a new image, turning failure
    /// into the libvips error text.
    func apply(
        _ what: String,
        _ body: (UnsafeMutablePointer<VipsImage>, UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>) -> Int32
    ) throws(VipsFailure) -> VipsImageRef {
        var out: UnsafeMutablePointer<VipsImage>?
        guard body(pointer, &out) == 0, let out else {
            throw VipsFailure(operation: what)
        }
        return VipsImageRef(out)
    }
}
