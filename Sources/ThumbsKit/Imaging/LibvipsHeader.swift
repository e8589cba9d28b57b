import CVips
import CVipsShim
import Foundation

/// A source opened by libvips' loader, header only (no pixel decoded yet).
struct LibvipsHeader {
    var image: VipsImageRef
    /// The loader's nickname, e.g. "jpegload_buffer".
    var loader: String
    var info: SourceImageInfo

    /// Opens the header and checks the pixel limit: from memory, or from a
    /// file through its descriptor (`LibvipsInput`). Call it inside
    /// `VipsErrorBuffer.attributed`.
    static func open(_ source: ImageSource, limits: DecodeLimits) throws(ImagingError) -> LibvipsHeader {
        guard source.count > 0 else {
            throw .item(.decode("the file is empty (0 bytes)"))
        }
        var image: UnsafeMutablePointer<VipsImage>?
        var loaderName: UnsafePointer<CChar>?
        let failOn = Int32(limits.failOn.vipsValue.rawValue)
        let status = LibvipsInput.header(source, failOn: failOn, &image, &loaderName)
        let prefix = source.prefix
        guard let loaderName else {
            // No loader took the bytes; what libvips said ("not a known
            // format") adds nothing, and is left in the buffer.
            throw .item(.unsupported("not an image format thumbs can read (\(prefix.withUnsafeBytes { describeSignature($0) }))"))
        }
        let loader = String(cString: loaderName)
        guard status == 0, let image else {
            let failure = VipsFailure(operation: "header", fallback: "unreadable header")
            if loader.hasPrefix("jpegload"), let size = prefix.withUnsafeBytes({ JPEGDimensions.read($0) }) {
                do throws(ItemError) { try limits.checkPixels(width: size.width, height: size.height) } catch { throw .item(error) }
            }
            throw failure.meaning(.header(
                loader: loader, format: formatName(loader: loader, image: nil),
                sniffed: prefix.withUnsafeBytes { LoaderErrors.formatName(of: $0) }))
        }
        let ref = VipsImageRef(image)
        let width = ref.width, pageHeight = ref.pageHeight
        let info = SourceImageInfo(
            format: formatName(loader: loader, image: ref), storedWidth: width, storedHeight: pageHeight, orientation: ref.orientation
        )
        do throws(ItemError) { try limits.checkPixels(width: width, height: pageHeight) } catch { throw .item(error) }
        return LibvipsHeader(image: ref, loader: loader, info: info)
    }

    // MARK: - Names

    private static func formatName(loader: String, image: VipsImageRef?) -> String {
        var name = loader
        for suffix in ["load_buffer", "load_source", "load"] where name.hasSuffix(suffix) {
            name.removeLast(suffix.count)
            break
        }
        switch name {
        case "heif":
            if let image, let compression = stringField(image, "heif-compression"), compression == "av1" { return "avif" }
            return "heif"
        case "magick", "magick7", "magick6": return "magick"
        default: return name
        }
    }

    private static func stringField(_ image: VipsImageRef, _ name: String) -> String? {
        guard vips_image_get_typeof(image.pointer, name) != 0 else { return nil }
        var value: UnsafePointer<CChar>?
        guard vips_image_get_string(image.pointer, name, &value) == 0, let value else { return nil }
        return String(cString: value)
    }

    private static func describeSignature(_ bytes: UnsafeRawBufferPointer) -> String {
        let prefix = bytes.prefix(64)
        let printable = prefix.filter { (0x20..<0x7f).contains($0) || $0 == 0x0a || $0 == 0x09 || $0 == 0x0d }
        if printable.count == prefix.count { return "the content is text" }
        return "unknown signature " + prefix.prefix(4).map { String(format: "%02x", $0) }.joined(separator: " ")
    }
}

extension FailOn {
    /// libvips' value for the option.
    var vipsValue: VipsFailOn {
        switch self {
        case .none: VIPS_FAIL_ON_NONE
        case .truncated: VIPS_FAIL_ON_TRUNCATED
        case .error: VIPS_FAIL_ON_ERROR
        }
    }
}
