import Foundation

/// The image file directories (IFDs) of a TIFF-structured file, read through
/// a byte-range reader: IFD0 and the IFDs chained after it, and the SubIFDs
/// (tag 0x14A) they point to, two levels down. Camera RAWs are TIFFs with
/// their sensor data and JPEG previews in such directories (`RawSniffer`;
/// their previews are listed by `embedded_pictures.c`: `RawPreviewFinder`).
///
/// The bytes are untrusted: every read is bounded (`read` returns fewer
/// bytes, or none, outside the file), a directory holds at most 512 entries,
/// at most 32 directories are read, and a directory seen before (a loop) is
/// not read again.
struct TIFFDirectories {
    /// One directory: its entries by tag.
    struct Directory {
        var entries: [Int: Entry]
        /// Depth: 0 for IFD0's chain, 1 for their SubIFDs, 2 below.
        var depth: Int

        func entry(_ tag: Int) -> Entry? { entries[tag] }
    }

    /// One entry: type, count and the 4 bytes that hold the value or its offset.
    struct Entry {
        var tag: Int
        var type: Int
        var count: Int
        var field: [UInt8]
    }

    /// Tags the RAW code reads.
    enum Tag {
        static let newSubfileType = 0xFE
        static let imageWidth = 0x100
        static let imageLength = 0x101
        static let bitsPerSample = 0x102
        static let compression = 0x103
        static let photometric = 0x106
        static let make = 0x10F
        static let model = 0x110
        static let stripOffsets = 0x111
        static let orientation = 0x112
        static let stripByteCounts = 0x117
        static let subIFDs = 0x14A
        static let jpegOffset = 0x201
        static let jpegLength = 0x202
        static let dngVersion = 0xC612
    }

    let little: Bool
    let directories: [Directory]
    private let read: (Int, Int) -> [UInt8]

    static let maximumDirectories = 32
    static let maximumEntries = 512

    /// Nil when the first bytes are not a classic TIFF header (II*\0, MM\0*;
    /// ORF's IIRO/IIRS/MMOR and RW2's IIU\0 also have a TIFF's directories).
    init?(read: @escaping (Int, Int) -> [UInt8]) {
        let head = read(0, 8)
        guard head.count == 8 else { return nil }
        switch (head[0], head[1], head[2], head[3]) {
        case (0x49, 0x49, 0x2A, 0x00), (0x49, 0x49, 0x52, 0x4F), (0x49, 0x49, 0x52, 0x53), (0x49, 0x49, 0x55, 0x00):
            little = true
        case (0x4D, 0x4D, 0x00, 0x2A), (0x4D, 0x4D, 0x4F, 0x52):
            little = false
        default:
            return nil
        }
        self.read = read
        var found: [Directory] = []
        var seen: Set<Int> = []
        var queue: [(offset: Int, depth: Int)] = []
        // IFD0's chain, then the SubIFDs of each, breadth first.
        let first = Self.number(head, 4, 4, little: little)
        queue.append((first, 0))
        var index = 0
        while index < queue.count, found.count < Self.maximumDirectories {
            let (offset, depth) = queue[index]
            index += 1
            guard offset >= 8, seen.insert(offset).inserted else { continue }
            guard let (directory, next) = Self.directory(at: offset, depth: depth, read: read, little: little) else { continue }
            found.append(directory)
            if depth == 0, next > 0 { queue.append((next, 0)) }
            if depth < 2, let sub = directory.entry(Tag.subIFDs) {
                for child in Self.values(sub, read: read, little: little, limit: 16) { queue.append((child, depth + 1)) }
            }
        }
        directories = found
    }

    var first: Directory? { directories.first }

    /// The entry's integer values (BYTE, SHORT, LONG; at most `limit`).
    func values(_ entry: Entry, limit: Int = 64) -> [Int] {
        Self.values(entry, read: read, little: little, limit: limit)
    }

    /// The entry's first integer value.
    func value(_ entry: Entry?) -> Int? {
        entry.flatMap { values($0, limit: 1).first }
    }

    /// An ASCII entry's text up to its first NUL, at most 64 characters.
    func text(_ entry: Entry?) -> String? {
        guard let entry, entry.type == 2 || entry.type == 1 || entry.type == 7 else { return nil }
        let count = min(entry.count, 64)
        let bytes = entry.count <= 4 ? Array(entry.field.prefix(count))
            : read(Self.number(entry.field, 0, 4, little: little), count)
        return String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
            .trimmingCharacters(in: .whitespaces)
    }

    // MARK: - Reading

    private static func directory(at offset: Int, depth: Int, read: (Int, Int) -> [UInt8], little: Bool) -> (Directory, next: Int)? {
        let countBytes = read(offset, 2)
        guard countBytes.count == 2 else { return nil }
        let count = number(countBytes, 0, 2, little: little)
        guard count > 0, count <= maximumEntries else { return nil }
        let table = read(offset + 2, count * 12 + 4)
        guard table.count >= count * 12 else { return nil }
        var entries: [Int: Entry] = [:]
        for at in stride(from: 0, to: count * 12, by: 12) {
            let tag = number(table, at, 2, little: little)
            entries[tag] = Entry(tag: tag, type: number(table, at + 2, 2, little: little),
                                 count: number(table, at + 4, 4, little: little), field: Array(table[at + 8..<at + 12]))
        }
        let next = table.count >= count * 12 + 4 ? number(table, count * 12, 4, little: little) : 0
        return (Directory(entries: entries, depth: depth), next)
    }

    private static func values(_ entry: Entry, read: (Int, Int) -> [UInt8], little: Bool, limit: Int) -> [Int] {
        let size: Int
        switch entry.type {
        case 1, 7: size = 1   // BYTE, UNDEFINED
        case 3: size = 2      // SHORT
        case 4, 13: size = 4  // LONG, IFD
        default: return []
        }
        let count = min(max(entry.count, 0), limit)
        guard count > 0 else { return [] }
        let bytes = size * entry.count <= 4 ? entry.field : read(number(entry.field, 0, 4, little: little), size * count)
        return (0..<min(count, bytes.count / size)).map { number(bytes, $0 * size, size, little: little) }
    }

    static func number(_ b: [UInt8], _ at: Int, _ count: Int, little: Bool) -> Int {
        guard at >= 0, at + count <= b.count else { return 0 }
        let slice = b[at..<at + count]
        return little ? slice.reversed().reduce(0) { $0 << 8 | Int($1) } : slice.reduce(0) { $0 << 8 | Int($1) }
    }
}
