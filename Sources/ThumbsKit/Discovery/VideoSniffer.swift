/// Recognises video containers by their first bytes: ISO-BMFF (`ftyp` with
/// a video brand: MP4, MOV, M4V, 3GP), Matroska and WebM (EBML), AVI (RIFF)
/// and MPEG transport streams (188-byte packets, or 192 with a time code:
/// M2TS, AVCHD's `.mts`).
///
/// The names it returns are the container kinds the manifest's `format`
/// holds. HEIF, AVIF and CR3 share ISO-BMFF's `ftyp` box; their brands stay
/// images (`ImageSniffer`).
public enum VideoSniffer {
    /// The formats `format(of:)` returns.
    public static let formats: Set<String> = ["mp4", "mov", "m4v", "3gp", "mkv", "webm", "avi", "ts", "m2ts"]

    /// Name extensions of videos: a file so named that does not load is a
    /// failed item, not an ignored one.
    public static let extensions: Set<String> = ["mp4", "mov", "m4v", "3gp", "3g2", "mkv", "webm", "avi", "mts", "m2ts"]

    /// Major brands of video files (ISO/IEC 14496-12 and -14, QuickTime,
    /// 3GPP, and the camera makers' own).
    static let videoBrands: Set<String> = [
        "isom", "iso2", "iso3", "iso4", "iso5", "iso6", "iso7", "iso8", "iso9", "mp41", "mp42", "mp71", "avc1",
        "dash", "msnv", "MSNV", "XAVC", "f4v ", "NDAS", "mmp4", "M4VH", "M4VP", "M4V ", "qt  ",
        "3gp4", "3gp5", "3gp6", "3gp7", "3gp8", "3gp9", "3g2a", "3g2b", "3g2c", "3ge6", "3ge7", "3gg6",
    ]

    /// Major brands of still images in ISO-BMFF files (and CR3 RAWs), and
    /// of sound-only files (`.m4a`, audiobooks), which are not videos.
    static let imageBrands: Set<String> = [
        "heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1", "avif", "avis", "crx ", "jpx ", "jp2 ",
        "M4A ", "M4B ", "M4P ", "F4A ", "F4B ",
    ]

    /// The container kind the bytes begin like, or nil.
    public static func format(of prefix: some Collection<UInt8>) -> String? {
        let b = Array(prefix.prefix(2048))
        func ascii(_ s: String, at offset: Int) -> Bool {
            let bytes = Array(s.utf8)
            return b.count >= offset + bytes.count && Array(b[offset..<offset + bytes.count]) == bytes
        }
        if b.count >= 12, ascii("ftyp", at: 4) { return isoFormat(b) }
        if b.count >= 8, ["moov", "mdat", "wide", "pnot"].contains(where: { ascii($0, at: 4) }) { return "mov" }
        if b.count >= 4, b[0] == 0x1A, b[1] == 0x45, b[2] == 0xDF, b[3] == 0xA3 {
            let head = String(decoding: b.prefix(64).map { $0 < 0x80 ? $0 : 0x2E }, as: UTF8.self)
            return head.contains("webm") ? "webm" : "mkv"
        }
        if ascii("RIFF", at: 0), ascii("AVI ", at: 8) || ascii("AVIX", at: 8) { return "avi" }
        if syncs(b, start: 0, stride: 188) { return "ts" }
        if syncs(b, start: 4, stride: 192) { return "m2ts" }
        return nil
    }

    private static func isoFormat(_ b: [UInt8]) -> String? {
        let brand = String(decoding: b[8..<12], as: UTF8.self)
        if imageBrands.contains(brand) { return nil }
        if videoBrands.contains(brand) { return kind(of: brand) }
        // Another major brand: a video when it is compatible with a video
        // brand and with no image brand.
        let boxSize = Int(b[0]) << 24 | Int(b[1]) << 16 | Int(b[2]) << 8 | Int(b[3])
        let end = min(b.count, max(16, boxSize))
        var compatible: [String] = []
        var at = 16
        while at + 4 <= end {
            compatible.append(String(decoding: b[at..<at + 4], as: UTF8.self))
            at += 4
        }
        if compatible.contains(where: imageBrands.contains) { return nil }
        return compatible.first(where: videoBrands.contains).map(kind(of:))
    }

    private static func kind(of brand: String) -> String {
        if brand == "qt  " { return "mov" }
        if brand.hasPrefix("M4V") { return "m4v" }
        if brand.hasPrefix("3g") { return "3gp" }
        return "mp4"
    }

    /// Whether the transport stream's sync byte (0x47) starts every packet
    /// the bytes hold, three at least.
    private static func syncs(_ b: [UInt8], start: Int, stride: Int) -> Bool {
        var at = start, count = 0
        while at < b.count {
            guard b[at] == 0x47 else { return false }
            count += 1
            at += stride
        }
        return count >= 3
    }
}
