import Foundation

/// Reads a manifest laid out by `ManifestWriter` (one item per line) item by
/// item, so that a 100,000-item manifest is never one giant JSON tree in
/// memory. Returns nil for any other layout; the caller then decodes the file
/// whole with `JSONDecoder`.
enum ManifestLineReader {
    static func decode(_ data: Data) -> Manifest? {
        let lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
        let itemsOpen = Data("  \"items\": [".utf8)
        guard lines.first == Data("{".utf8),
              let itemsLine = lines.firstIndex(where: { $0 == itemsOpen || $0 == Data("  \"items\": []".utf8) })
        else { return nil }
        let decoder = JSONDecoder()
        var header = Data()
        for line in lines[..<itemsLine] {
            header.append(line)
            header.append(0x0A)
        }
        header.append(contentsOf: "  \"items\": []\n}".utf8)
        guard var manifest = try? decoder.decode(Manifest.self, from: header) else { return nil }
        guard lines[itemsLine] == itemsOpen else { return manifest }

        var items: [ManifestItem] = []
        var index = lines.index(after: itemsLine)
        while index < lines.endIndex {
            var line = lines[index]
            if line == Data("  ]".utf8) { break }
            line = line.drop(while: { $0 == 0x20 })
            if line.last == UInt8(ascii: ",") { line = line.dropLast() }
            guard let item = try? decoder.decode(ManifestItem.self, from: line) else { return nil }
            items.append(item)
            index = lines.index(after: index)
        }
        guard index < lines.endIndex else { return nil }
        manifest.items = items
        return manifest
    }
}
