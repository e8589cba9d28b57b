/// What a source's first bytes say before the rest is read: its format, and
/// for the formats whose header is simple to find, its stored size.
///
/// The size is advisory: it lets `SourceLimits` refuse an image over
/// `--max-pixels`, or a file far larger than its picture can be, without
/// reading it. When it cannot be found here (HEIF, SVG, a damaged header) it
/// is nil and the decoder decides after the read, as before. Every read goes
/// through `SourceFile` (the prefix, then byte ranges), and every index is
/// checked: these bytes are untrusted.
struct SourceHeader: Sendable, Equatable {
    /// `ImageSniffer`'s name for the format (`jpeg`, `png`…), or the short
    /// name of a format only a blocked loader reads (`ico`, `pcx`…).
    var format: String
    /// Width and height as stored (before any orientation), when known.
    var width: Int?
    var height: Int?

    /// The header of `file`, or nil when its content is not an image format
    /// thumbs knows (whatever its name says).
    static func read(_ file: SourceFile) throws(ItemError) -> SourceHeader? {
        let prefix = file.prefix
        guard let format = ImageSniffer.format(of: prefix) ?? ImageSniffer.svgFormat(of: prefix)
                ?? prefix.withUnsafeBytes({ LoaderErrors.formatName(of: $0) }).map(Self.shortName)
        else { return nil }
        // A RAW with a TIFF's structure whose sensor data lies past the prefix.
        if format == "tiff", let raw = RawSniffer.format(read: { offset, count in (try? file.bytes(at: offset, count: count)) ?? [] }) {
            return SourceHeader(format: raw)  // its size is LibRaw's to say, after the read
        }
        var header = SourceHeader(format: format)
        let size: (width: Int, height: Int)?
        switch format {
        case "jpeg": size = try jpegSize(file)
        case "png": size = pngSize(prefix)
        case "gif": size = gifSize(prefix)
        case "webp": size = webpSize(prefix)
        case "tiff": size = try tiffSize(file)
        case "bmp": size = bmpSize(prefix)
        case "psd": size = psdSize(prefix)
        default: size = nil
        }
        if let size, size.width > 0, size.height > 0 {
            header.width = size.width
            header.height = size.height
        }
        return header
    }

    /// "ICO (Windows icon)" → "ico".
    private static func shortName(_ name: String) -> String {
        (name.components(separatedBy: " ").first ?? name).lowercased()
    }

    // MARK: - Formats

    /// The first SOF marker's frame size, following the segments before it
    /// (Exif, ICC, XMP: possibly more than the prefix) by their lengths.
    static func jpegSize(_ file: SourceFile) throws(ItemError) -> (width: Int, height: Int)? {
        var offset = 2
        // A segment is at least 4 bytes: a bound on the walk whatever the file.
        for _ in 0..<4096 {
            let b = try file.bytes(at: offset, count: 9)
            guard b.count >= 2, b[0] == 0xFF else { return nil }
            let marker = b[1]
            if marker == 0xFF { offset += 1; continue }  // fill byte
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { offset += 2; continue }  // no length
            guard b.count >= 4 else { return nil }
            let length = Int(b[2]) << 8 | Int(b[3])
            // SOF0..SOF15, except DHT (C4), JPG (C8) and DAC (CC).
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard b.count >= 9 else { return nil }
                return (Int(b[7]) << 8 | Int(b[8]), Int(b[5]) << 8 | Int(b[6]))
            }
            if marker == 0xDA || marker == 0xD9 || length < 2 { return nil }
            offset += 2 + length
        }
        return nil
    }

    static func pngSize(_ b: [UInt8]) -> (width: Int, height: Int)? {
        guard b.count >= 24, Array(b[12..<16]) == Array("IHDR".utf8) else { return nil }
        return (bigEndian(b, 16, 4), bigEndian(b, 20, 4))
    }

    static func gifSize(_ b: [UInt8]) -> (width: Int, height: Int)? {
        guard b.count >= 10 else { return nil }
        return (littleEndian(b, 6, 2), littleEndian(b, 8, 2))
    }

    static func webpSize(_ b: [UInt8]) -> (width: Int, height: Int)? {
        guard b.count >= 30 else { return nil }
        switch String(decoding: b[12..<16], as: UTF8.self) {
        case "VP8X":
            return (littleEndian(b, 24, 3) + 1, littleEndian(b, 27, 3) + 1)
        case "VP8L":
            guard b[20] == 0x2F else { return nil }
            let bits = littleEndian(b, 21, 4)
            return ((bits & 0x3FFF) + 1, (bits >> 14 & 0x3FFF) + 1)
        case "VP8 ":
            guard b[23] == 0x9D, b[24] == 0x01, b[25] == 0x2A else { return nil }
            return (littleEndian(b, 26, 2) & 0x3FFF, littleEndian(b, 28, 2) & 0x3FFF)
        default:
            return nil
        }
    }

    /// The first image directory's ImageWidth and ImageLength (classic TIFF;
    /// BigTIFF is left to the decoder).
    static func tiffSize(_ file: SourceFile) throws(ItemError) -> (width: Int, height: Int)? {
        let b = file.prefix
        guard b.count >= 8 else { return nil }
        let little = b[0] == 0x49
        func number(_ bytes: [UInt8], _ at: Int, _ count: Int) -> Int {
            little ? littleEndian(bytes, at, count) : bigEndian(bytes, at, count)
        }
        guard number(b, 2, 2) == 42 else { return nil }
        let directory = number(b, 4, 4)
        let countBytes = try file.bytes(at: directory, count: 2)
        guard countBytes.count == 2 else { return nil }
        let entries = min(number(countBytes, 0, 2), 1024)
        let table = try file.bytes(at: directory + 2, count: entries * 12)
        var width: Int?, height: Int?
        for entry in 0..<table.count / 12 {
            let at = entry * 12
            let tag = number(table, at, 2), type = number(table, at + 2, 2)
            // SHORT (3) or LONG (4), one value, stored in the entry itself.
            let value = type == 3 ? number(table, at + 8, 2) : type == 4 ? number(table, at + 8, 4) : nil
            if tag == 256 { width = value }
            if tag == 257 { height = value }
        }
        guard let width, let height else { return nil }
        return (width, height)
    }

    static func bmpSize(_ b: [UInt8]) -> (width: Int, height: Int)? {
        guard b.count >= 26 else { return nil }
        let info = littleEndian(b, 14, 4)
        if info == 12 { return (littleEndian(b, 18, 2), littleEndian(b, 20, 2)) }
        guard info >= 40 else { return nil }
        // Signed: a negative height is a top-down bitmap.
        let width = Int(Int32(truncatingIfNeeded: littleEndian(b, 18, 4)))
        let height = Int(Int32(truncatingIfNeeded: littleEndian(b, 22, 4)))
        return (abs(width), abs(height))
    }

    static func psdSize(_ b: [UInt8]) -> (width: Int, height: Int)? {
        guard b.count >= 22 else { return nil }
        return (bigEndian(b, 18, 4), bigEndian(b, 14, 4))
    }

    private static func bigEndian(_ b: [UInt8], _ at: Int, _ count: Int) -> Int {
        guard at >= 0, at + count <= b.count else { return 0 }
        return b[at..<at + count].reduce(0) { $0 << 8 | Int($1) }
    }

    private static func littleEndian(_ b: [UInt8], _ at: Int, _ count: Int) -> Int {
        guard at >= 0, at + count <= b.count else { return 0 }
        return b[at..<at + count].reversed().reduce(0) { $0 << 8 | Int($1) }
    }
}
