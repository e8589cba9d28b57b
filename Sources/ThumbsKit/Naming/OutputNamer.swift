/// Turns item ids into output names that are safe, deterministic and unique.
///
/// Safe: whatever a list or a file name says, the result is a relative path
/// of ordinary segments: no `..`, no leading `/`, no control characters or
/// NUL, no hidden segments, no segment over 120 bytes. So nothing is ever
/// written outside OUT.
///
/// Servable: `#`, `?` and `%` become `_` too, so that an output path works
/// in a URL as it is (`"/thumbs/" + path`): `#` would start a fragment, `?`
/// a query, and `%` an escape. The id keeps them (`dup#2` is written as
/// `256/dup_2.jpg`); a name this makes equal to another is told apart like
/// any other (`assign`). Other characters a URL would encode (spaces,
/// letters beyond ASCII) are kept: a browser encodes them on its own, and
/// they do not change what the path means.
///
/// Unique: two sources that would get the same name (`a.jpg` and `a.png` in
/// one folder) keep the first name for the first in source order; the others
/// get their source extension appended (`a_png`), then a number if needed.
/// Names are compared case-insensitively so that outputs do not collide on
/// case-insensitive file systems either. A name that is also the name of a
/// folder of other outputs (`a` → `a.jpg`, beside `a.jpg/b` → `a.jpg/b.jpg`)
/// is a collision too.
public enum OutputNamer {
    /// The longest segment kept, in UTF-8 bytes.
    static let maxSegmentBytes = 120

    /// Sanitises a stem (a path without extension, `/`-separated).
    public static func sanitise(_ stem: String) -> String {
        let segments = stem
            .split(whereSeparator: { $0 == "/" || $0 == "\\" })
            .map(String.init)
            .filter { $0 != "." && $0 != ".." && !$0.isEmpty }
            .map(sanitiseSegment)
            .filter { !$0.isEmpty }
        return segments.isEmpty ? "item" : segments.joined(separator: "/")
    }

    static func sanitiseSegment(_ segment: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in segment.unicodeScalars {
            switch scalar.value {
            case 0..<0x20, 0x7F, 0x80..<0xA0: scalars.append("_")
            case 0x2F, 0x5C, 0x3A: scalars.append("_")  // / \ :
            case 0x23, 0x3F, 0x25: scalars.append("_")  // # ? %: see "Servable" above
            default: scalars.append(scalar)
            }
        }
        var text = String(scalars).trimmingSpaces()
        while text.hasPrefix(".") { text = "_" + text.dropFirst() }
        if text.utf8.count > maxSegmentBytes {
            let digest = FNV1a.hex32(segment)  // a short stable hash
            var cut = ""
            for character in text {
                if cut.utf8.count + character.utf8.count > maxSegmentBytes - 9 { break }
                cut.append(character)
            }
            text = cut + "-" + digest
        }
        return text
    }

    /// The stem of a file path: without its last extension.
    public static func stem(of path: String) -> String {
        let lastSlash = path.lastIndex(of: "/")
        let nameStart = lastSlash.map { path.index(after: $0) } ?? path.startIndex
        guard let dot = path[nameStart...].lastIndex(of: "."), dot != nameStart else { return path }
        return String(path[..<dot])
    }

    /// The extension of a path, lower case, or "".
    static func fileExtension(of path: String) -> String {
        // The last non-empty segment, as `split(separator: "/").last`
        // gives it, without splitting the whole path.
        var end = path.endIndex
        while end > path.startIndex, path[path.index(before: end)] == "/" { end = path.index(before: end) }
        let name = end == path.startIndex
            ? Substring(path)
            : path[(path[..<end].lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex)..<end]
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    /// The extensions an output file can get (`OutputFormat.fileExtension`),
    /// whatever the run's format: names do not depend on the format.
    static let outputExtensions = Array(Set(OutputFormat.allCases.map(\.fileExtension))).sorted()
}

extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
