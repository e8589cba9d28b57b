import Foundation
@testable import ThumbsKit

/// The in-memory algorithm `SourceResolver.finalise` (now `SourceFinaliser`) and
/// `OutputNamer.assign` had before issue 23 (Swift sets of every id and
/// name), kept verbatim as the reference the streaming one must equal, with
/// its own copy of the sanitiser and the stem (`OutputNamer`'s of issue 23,
/// `#`, `?` and `%` made `_` since), so that a change to either is seen
/// and not shared.
enum NamingReference {
    static func finalise(_ items: [SourceItem]) -> [SourceItem] {
        var result = items
        var taken = Set<String>(minimumCapacity: result.count)
        var repeated: [Int] = []
        for index in result.indices where !taken.insert(result[index].id).inserted {
            repeated.append(index)
        }
        var nextSuffix: [String: Int] = [:]
        for index in repeated {
            let id = result[index].id
            var n = nextSuffix[id] ?? 2
            while taken.contains(id + "#\(n)") { n += 1 }
            result[index].id = id + "#\(n)"
            taken.insert(result[index].id)
            nextSuffix[id] = n + 1
        }
        let stems = result.map { item -> String in
            if case .remote = item.origin, !ImageSniffer.isNamedLikeImage(item.id) { return item.id }
            return stem(of: item.id)
        }
        let extensions = result.map { fileExtension(of: $0.source) }
        let names = assign(stems: stems, extensions: extensions)
        for index in result.indices { result[index].outputName = names[index] }
        return result
    }

    static func stem(of path: String) -> String {
        let lastSlash = path.lastIndex(of: "/")
        let nameStart = lastSlash.map { path.index(after: $0) } ?? path.startIndex
        guard let dot = path[nameStart...].lastIndex(of: "."), dot != nameStart else { return path }
        return String(path[..<dot])
    }

    static func sanitise(_ stem: String) -> String {
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
            case 0x23, 0x3F, 0x25: scalars.append("_")  // # ? %
            default: scalars.append(scalar)
            }
        }
        var text = String(scalars)
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        while text.hasPrefix(".") { text = "_" + text.dropFirst() }
        if text.utf8.count > 120 {
            let digest = FNV1a.hex32(segment)
            var cut = ""
            for character in text {
                if cut.utf8.count + character.utf8.count > 120 - 9 { break }
                cut.append(character)
            }
            text = cut + "-" + digest
        }
        return text
    }

    static func fileExtension(of path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    static func assign(stems: [String], extensions: [String]) -> [String] {
        var used = Set<String>()
        var folders = Set<String>()
        var renamedFolders: [String: String] = [:]
        var names: [String] = []
        func clashes(_ candidate: String) -> Bool {
            let lower = candidate.lowercased()
            return used.contains(lower) || OutputNamer.outputExtensions.contains { folders.contains(lower + "." + $0) }
        }
        for (stem, ext) in zip(stems, extensions) {
            let base = placeFolders(of: sanitise(stem), used: used, folders: &folders, renamed: &renamedFolders)
            var candidate = base
            if clashes(candidate) {
                let suffix = sanitiseSegment(ext)
                if !suffix.isEmpty { candidate = base + "_" + suffix }
                var n = 2
                let root = candidate
                while clashes(candidate) {
                    candidate = root + "_\(n)"
                    n += 1
                }
            }
            used.insert(candidate.lowercased())
            names.append(candidate)
        }
        return names
    }

    private static func isOutputFile(_ path: String, of used: Set<String>) -> Bool {
        OutputNamer.outputExtensions.contains { fileExtension in
            path.hasSuffix("." + fileExtension) && used.contains(String(path.dropLast(fileExtension.count + 1)))
        }
    }

    private static func placeFolders(
        of name: String, used: Set<String>, folders: inout Set<String>, renamed: inout [String: String]
    ) -> String {
        let segments = name.split(separator: "/").map(String.init)
        guard segments.count > 1 else { return name }
        var original = ""
        var placed = ""
        for segment in segments.dropLast() {
            original += (original.isEmpty ? "" : "/") + segment
            if let earlier = renamed[original] {
                placed = earlier
                continue
            }
            let wanted = placed + (placed.isEmpty ? "" : "/") + segment
            var candidate = wanted
            var n = 1
            while isOutputFile(candidate.lowercased(), of: used) {
                candidate = wanted + "_dir" + (n == 1 ? "" : "_\(n)")
                n += 1
            }
            renamed[original] = candidate
            folders.insert(candidate.lowercased())
            placed = candidate
        }
        return placed + "/" + segments.last!
    }
}
