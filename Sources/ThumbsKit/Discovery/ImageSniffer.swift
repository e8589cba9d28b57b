/// Recognises images by their first bytes, and names that look like images.
///
/// Content decides: a JPEG called `notes.txt` is an image. A file that is not
/// recognised but is named like an image is still an item (it fails with a
/// clear message); anything else is ignored and counted.
public enum ImageSniffer {
    /// How many leading bytes `format(of:)` wants to see.
    public static let prefixLength = 512

    /// The format the signature says, or nil.
    public static func format(of prefix: some Collection<UInt8>) -> String? {
        let b = Array(prefix.prefix(prefixLength))
        func starts(_ bytes: [UInt8], at offset: Int = 0) -> Bool {
            b.count >= offset + bytes.count && Array(b[offset..<offset + bytes.count]) == bytes
        }
        func ascii(_ s: String, at offset: Int = 0) -> Bool { starts(Array(s.utf8), at: offset) }

        if starts([0xFF, 0xD8, 0xFF]) { return "jpeg" }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "png" }
        if ascii("GIF87a") || ascii("GIF89a") { return "gif" }
        if ascii("RIFF") && ascii("WEBP", at: 8) { return "webp" }
        if let raw = RawSniffer.format(ofPrefix: b) { return raw }  // camera RAWs, TIFF-based ones included
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return "tiff" }
        if starts([0x49, 0x49, 0x2B, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2B]) { return "tiff" }
        if let video = VideoSniffer.format(of: prefix) { return video }
        if ascii("ftyp", at: 4), b.count >= 12 {
            let brand = String(decoding: b[8..<12], as: UTF8.self)
            if ["avif", "avis"].contains(brand) { return "avif" }
            if ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1"].contains(brand) { return "heif" }
        }
        if starts([0xFF, 0x0A]) || starts([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20]) { return "jxl" }
        if starts([0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20]) || starts([0xFF, 0x4F, 0xFF, 0x51]) { return "jp2k" }
        if ascii("BM"), b.count >= 14 { return "bmp" }
        if ascii("%PDF-") { return "pdf" }
        if b.count >= 3, b[0] == UInt8(ascii: "P"), Array("1234567fF".utf8).contains(b[1]),
           [0x0A, 0x0D, 0x20, 0x09].contains(b[2]) {
            return "ppm"
        }
        if ascii("#?RADIANCE") || ascii("#?RGBE") { return "hdr" }
        if starts([0x76, 0x2F, 0x31, 0x01]) { return "exr" }
        if ascii("8BPS") { return "psd" }
        if isSVG(b) { return "svg" }
        return nil
    }

    /// File name extensions of image formats (lower case, without the dot).
    /// `hif`: the 10-bit HLG HEIFs of Canon, Fujifilm and Sony cameras.
    public static let imageExtensions: Set<String> = ([
        "jpg", "jpeg", "jpe", "jfif", "png", "gif", "webp", "tif", "tiff", "heic", "heif", "hif", "avif",
        "bmp", "svg", "svgz", "pdf", "jxl", "jp2", "j2k", "ppm", "pgm", "pbm", "pnm", "pfm", "hdr",
        "exr", "psd", "ico",
    ] as Set<String>).union(RawSniffer.extensions).union(VideoSniffer.extensions)

    /// Whether `name` ends like an image file.
    public static func isNamedLikeImage(_ name: String) -> Bool {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
        return imageExtensions.contains(name[name.index(after: dot)...].lowercased())
    }

    /// "svg" when the bytes are XML whose `<svg` element comes after more
    /// than `prefixLength` bytes of prologue (comments, a DOCTYPE), which
    /// `format(of:)` does not look past.
    static func svgFormat(of bytes: [UInt8]) -> String? {
        isSVG(bytes) ? "svg" : nil
    }

    /// What the first bytes look like, for a message about a file that is
    /// not an image: "the content is text", "the first 65536 bytes are all
    /// zero" (a sparse or zero-filled file), or "it starts 50 4b 03 04".
    static func describe(_ prefix: [UInt8]) -> String {
        if prefix.isEmpty { return "it is empty" }
        if prefix.allSatisfy({ $0 == 0 }) { return "its first \(prefix.count) bytes are all zero" }
        let head = prefix.prefix(64)
        if head.allSatisfy({ (0x20..<0x7F).contains($0) || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D }) {
            return "the content is text"
        }
        let hex = head.prefix(4).map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }
        let starts = "it starts " + hex.joined(separator: " ")
        if let packed = packedFormat(of: prefix) { return "it is \(packed), \(starts)" }
        return starts
    }

    /// Compressed and archive formats a photo can be packed in (a `.jpg.gz`
    /// saved as `.jpg`, a body a server compressed without saying so), by
    /// their signatures.
    static func packedFormat(of prefix: [UInt8]) -> String? {
        let signatures: [(bytes: [UInt8], name: String)] = [
            ([0x1F, 0x8B], "gzip-compressed data"),
            ([0x50, 0x4B, 0x03, 0x04], "a ZIP archive"),
            ([0x28, 0xB5, 0x2F, 0xFD], "Zstandard-compressed data"),
            ([0x42, 0x5A, 0x68], "bzip2-compressed data"),
            ([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00], "xz-compressed data"),
        ]
        return signatures.first { prefix.starts(with: $0.bytes) }?.name
    }

    private static func isSVG(_ b: [UInt8]) -> Bool {
        var text = String(decoding: b, as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        let trimmed = text.drop(while: { $0.isWhitespace })
        guard trimmed.hasPrefix("<") else { return false }
        return trimmed.contains("<svg")
    }
}
