/// Turns item ids into output names that are safe, deterministic and unique.
///
/// Safe: whatever a list or a file name says, the result is a relative path
/// of ordinary segments: no `..`, no leading `/`, no control characters or
/// NUL, no hidden segments, no segment over 120 bytes. So nothing is ever
/// written outside OUT.
///
/// Unique: two sources that would get the same name (`a.jpg` and `a.png` in
/// one folder) keep the first name for the first in source order; the others
/// get their source extension appended (`a_png`), then a number if needed.
/// Names are compared case-insensitively so that outputs do not collide on
/// case-insensitive file systems either.
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
            default: scalars.append(scalar)
            }
        }
        var text = String(scalars).trimmingSpaces()
        while text.hasPrefix(".") { text = "_" + text.dropFirst() }
        if text.utf8.count > maxSegmentBytes {
            let digest = fnv1a(segment)
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
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    /// Assigns `outputName` to every item, in order. `stems` are the wanted
    /// names before sanitising; `extensions` disambiguate collisions.
    public static func assign(stems: [String], extensions: [String]) -> [String] {
        var used = Set<String>()
        var names: [String] = []
        names.reserveCapacity(stems.count)
        for (stem, ext) in zip(stems, extensions) {
            let base = sanitise(stem)
            var candidate = base
            if used.contains(candidate.lowercased()) {
                let suffix = sanitiseSegment(ext)
                if !suffix.isEmpty { candidate = base + "_" + suffix }
                var n = 2
                let root = candidate
                while used.contains(candidate.lowercased()) {
                    candidate = root + "_\(n)"
                    n += 1
                }
            }
            used.insert(candidate.lowercased())
            names.append(candidate)
        }
        return names
    }

    /// A short stable hash, for truncated names.
    static func fnv1a(_ text: String) -> String {
        var hash: UInt32 = 0x811C_9DC5
        for byte in text.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }
}

extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
