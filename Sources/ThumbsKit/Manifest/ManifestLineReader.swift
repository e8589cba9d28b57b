import Foundation

/// Reads a whole manifest laid out by `ManifestWriter` (one item per line)
/// into memory (`JSONCoding.readManifest`: `verify`'s baseline update and
/// the tests), its items line by line through `ManifestItemDecoder`, so
/// that a 100,000-item manifest is never one giant JSON tree in memory.
/// Returns nil for any other layout; the caller then decodes the file
/// whole with `JSONDecoder`. Passes over millions of items read the file
/// as a stream instead (`ManifestSource`).
enum ManifestLineReader {
    static func decode(_ data: Data) -> Manifest? {
        let fileLines = data.lines()
        let itemsOpen = Data("  \"items\": [".utf8)
        guard fileLines.first == Data("{".utf8),
              let itemsLine = fileLines.firstIndex(where: { $0 == itemsOpen || $0 == Data("  \"items\": []".utf8) })
        else { return nil }
        let decoder = JSONDecoder()
        var header = Data()
        for line in fileLines[..<itemsLine] {
            header.append(line)
            header.append(0x0A)
        }
        header.append(contentsOf: "  \"items\": []\n}".utf8)
        guard var manifest = try? decoder.decode(Manifest.self, from: header) else { return nil }
        guard fileLines[itemsLine] == itemsOpen else { return manifest }

        var itemLines: [Data.SubSequence] = []
        var index = fileLines.index(after: itemsLine)
        while index < fileLines.endIndex {
            var line = fileLines[index]
            if line == Data("  ]".utf8) { break }
            line = line.drop(while: { $0 == 0x20 })
            if line.last == UInt8(ascii: ",") { line = line.dropLast() }
            itemLines.append(line)
            index = fileLines.index(after: index)
        }
        guard index < fileLines.endIndex, let items = decodeItems(itemLines) else { return nil }
        manifest.items = items
        // The `kept` records, on the lines after the items' `  ]`.
        index = fileLines.index(after: index)
        guard index < fileLines.endIndex, fileLines[index] == Data(ManifestWriter.keptOpen.dropFirst().utf8) else { return manifest }
        var keptLines: [Data.SubSequence] = []
        index = fileLines.index(after: index)
        while index < fileLines.endIndex, fileLines[index] != Data("  ]".utf8) {
            var line = fileLines[index].drop(while: { $0 == 0x20 })
            if line.last == UInt8(ascii: ",") { line = line.dropLast() }
            keptLines.append(line)
            index = fileLines.index(after: index)
        }
        guard index < fileLines.endIndex, let kept = decodeItems(keptLines) else { return nil }
        manifest.kept = kept
        return manifest
    }

    /// Item lines to items, each read by `ManifestItemDecoder` (the one
    /// reader of an item line; `JSONDecoder` for a line in another layout),
    /// in chunks of `chunk` lines decoded on all cores.
    static func decodeItems(_ lines: [Data.SubSequence], chunk: Int = 256) -> [ManifestItem]? {
        let chunks = (lines.count + chunk - 1) / chunk
        let results = ChunkResults(count: chunks)
        DispatchQueue.concurrentPerform(iterations: chunks) { c in
            let decoder = JSONDecoder()
            var items: [ManifestItem] = []
            items.reserveCapacity(chunk)
            for line in lines[(c * chunk)..<min(lines.count, (c + 1) * chunk)] {
                guard let item = line.withUnsafeBytes({ ManifestItemDecoder.decode($0, fallback: decoder) }) else {
                    return results.set(c, nil)
                }
                items.append(item)
            }
            results.set(c, items)
        }
        var items: [ManifestItem] = []
        items.reserveCapacity(lines.count)
        for c in 0..<chunks {
            guard let part = results.get(c) else { return nil }
            items += part
        }
        return items
    }
}

/// One slot per chunk, written once from concurrentPerform's threads.
private final class ChunkResults: @unchecked Sendable {
    private var slots: [[ManifestItem]?]
    private let lock = NSLock()

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ value: [ManifestItem]?) {
        lock.lock()
        slots[index] = value
        lock.unlock()
    }

    func get(_ index: Int) -> [ManifestItem]? {
        lock.lock()
        defer { lock.unlock() }
        return slots[index]
    }
}
