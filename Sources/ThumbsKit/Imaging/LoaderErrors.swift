import Foundation

/// Turns a libvips loader's failure into a message a person can act on.
///
/// thumbs blocks the loaders libvips marks untrusted
/// (`vips_block_untrusted_set`, see `VipsRuntime.setUntrustedLoaders`).
/// On a Debian libvips that is how everyday formats are read: BMP, ICO and
/// PSD only through ImageMagick (`magickload`), JPEG 2000 through
/// `jp2kload`, PDF through `pdfload`. libvips then says only
/// "magickload_buffer: operation is blocked", which names neither the format
/// nor the way out. Such items are `unsupported` (this build will not read
/// them as configured), not `decode` (nothing is wrong with the file).
enum LoaderErrors {
    /// The error for a header that `loader` could not read. `format` is the
    /// short name thumbs gives the loader's format (`magick`, `jp2k`);
    /// `sniffedName` the everyday name the first bytes show (`formatName(of:)`).
    static func headerFailure(loader: String, format: String, detail: String, sniffedName: String?) -> ItemError {
        guard isBlocked(detail) else {
            if let cut = cutShort(detail) { return .decode("cannot read the \(format) header: \(cut)") }
            return .decode("cannot read the \(format) header: \(detail)")
        }
        let loaderName = baseName(of: loader)
        let through = loaderName.hasPrefix("magick") ? "ImageMagick (\(loaderName))" : loaderName
        if let name = sniffedName {
            // "PGM (Netpbm)": the full name once, the short one after.
            let short = name.components(separatedBy: " (").first ?? name
            let detail = name.dropFirst(short.count)
            return .unsupported(
                "\(short) image\(detail): libvips reads \(short) only through \(through), a loader it marks untrusted; "
                    + "run with --allow-untrusted to enable it")
        }
        return .unsupported(
            "libvips reads this file only through \(through), a loader it marks untrusted; "
                + "run with --allow-untrusted to enable it")
    }

    /// The same, naming the format from the first `bytes`.
    static func headerFailure(loader: String, format: String, detail: String, bytes: UnsafeRawBufferPointer) -> ItemError {
        headerFailure(loader: loader, format: format, detail: detail, sniffedName: formatName(of: bytes))
    }

    /// "the file is cut short", with the loader's own reason, when `detail`
    /// says the file ends before its data does (libheif: "bad seek to …;
    /// … Unexpected end of file: Extent in iloc box references data outside
    /// of file bounds …"); nil otherwise.
    static func cutShort(_ detail: String) -> String? {
        guard let end = detail.range(of: "Unexpected end of file", options: .caseInsensitive) else { return nil }
        // The reason from "Unexpected end of file" to the end of its clause.
        let reason = detail[end.lowerBound...].prefix(while: { $0 != ";" && $0 != "(" })
        return "the file is cut short (\(reason.trimmingCharacters(in: .whitespaces)))"
    }

    /// Whether libvips refused to run the loader because it is blocked.
    static func isBlocked(_ detail: String) -> Bool {
        detail.range(of: "operation is blocked", options: .caseInsensitive) != nil
    }

    /// `magickload_buffer` → `magickload`.
    static func baseName(of loader: String) -> String {
        for suffix in ["_buffer", "_source"] where loader.hasSuffix(suffix) {
            return String(loader.dropLast(suffix.count))
        }
        return loader
    }

    /// The everyday name of the format the first bytes show, or nil.
    static func formatName(of bytes: UnsafeRawBufferPointer) -> String? {
        let prefix = Array(bytes.prefix(ImageSniffer.prefixLength))
        func starts(_ signature: [UInt8]) -> Bool { prefix.starts(with: signature) }
        func ascii(_ text: String) -> Bool { prefix.starts(with: Array(text.utf8)) }

        if let format = ImageSniffer.format(of: prefix) {
            switch format {
            case "bmp": return "BMP"
            case "jp2k": return "JPEG 2000"
            case "psd": return "PSD (Photoshop)"
            case "pdf": return "PDF"
            case "svg": return "SVG"
            case "tiff": return "TIFF"
            case "heif": return "HEIF"
            case "avif": return "AVIF"
            case "jxl": return "JPEG XL"
            case "exr": return "OpenEXR"
            case "hdr": return "Radiance HDR"
            case "gif": return "GIF"
            case "png": return "PNG"
            case "webp": return "WebP"
            case "jpeg": return "JPEG"
            case "ppm":
                switch prefix[1] {
                case UInt8(ascii: "1"), UInt8(ascii: "4"): return "PBM (Netpbm)"
                case UInt8(ascii: "2"), UInt8(ascii: "5"): return "PGM (Netpbm)"
                case UInt8(ascii: "3"), UInt8(ascii: "6"): return "PPM (Netpbm)"
                case UInt8(ascii: "7"): return "PAM (Netpbm)"
                default: return "PFM (Netpbm)"
                }
            default: return format.uppercased()
            }
        }
        // Formats the sniffer does not count as images (their signatures are
        // too short to find images by), named here only to explain a refusal.
        if prefix.count >= 6, starts([0, 0, 1, 0]) || starts([0, 0, 2, 0]), prefix[4] != 0 || prefix[5] != 0 {
            return prefix[2] == 1 ? "ICO (Windows icon)" : "CUR (Windows cursor)"
        }
        if ascii("gimp xcf") { return "XCF (GIMP)" }
        if ascii("DDS ") { return "DDS" }
        if ascii("SIMPLE  =") { return "FITS" }
        if ascii("MATLAB") { return "MATLAB" }
        if prefix.count >= 3, prefix[0] == 0x0A, prefix[1] <= 5, prefix[2] == 1 { return "PCX" }
        return nil
    }
}
