/// Appending to an HTML page held in a `String`: text escaped for element
/// content and quoted attributes, paths percent-encoded for `src`.
///
/// Everything from a manifest is hostile input (ids come from file names and
/// photo lists): it only ever reaches the page through these functions.
extension String {
    /// Appends `text` with `& < > " '` escaped, control characters other
    /// than tab, newline and carriage return (invalid in HTML) replaced by
    /// U+FFFD, and bidirectional controls shown as text (`<U+202E>`), so that
    /// a name cannot read backwards (an entity like `&#x202E;` would still act).
    mutating func appendEscaped(_ text: String) {
        // 0xC2, 0xD8 and 0xE2 lead the UTF-8 of the C1 controls, of U+061C
        // and of U+200E…U+2069.
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "<")
                || $0 == UInt8(ascii: ">") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "'")
                || $0 == 0xC2 || $0 == 0xD8 || $0 == 0xE2 }) else {
            append(text)
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": append("&amp;")
            case "<": append("&lt;")
            case ">": append("&gt;")
            case "\"": append("&quot;")
            case "'": append("&#39;")
            case "\t", "\n", "\r": unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                    append("\u{FFFD}")
                } else if VisibleText.isBidiControl(scalar) {
                    append("&lt;" + VisibleText.codePoint(scalar).dropFirst().dropLast() + "&gt;")
                } else {
                    unicodeScalars.append(scalar)
                }
            }
        }
    }

    /// Appends a relative path as a URL path: every byte but unreserved
    /// characters and `/` is percent-encoded, so `:` cannot start a scheme,
    /// `#` and `?` stay part of the name, and nothing needs HTML escaping.
    mutating func appendURLPath(_ path: String) {
        if path.utf8.allSatisfy(Self.isPlainURLByte) {
            append(path)
            return
        }
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(path.utf8.count * 3)
        for byte in path.utf8 {
            if Self.isPlainURLByte(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            }
        }
        append(String(decoding: bytes, as: UTF8.self))
    }

    private static func isPlainURLByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
            true
        default:
            false
        }
    }

    /// Appends a decimal integer.
    mutating func appendInt(_ value: Int) {
        append(String(value))
    }
}
