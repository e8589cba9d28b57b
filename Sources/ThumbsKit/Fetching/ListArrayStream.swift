import Foundation

/// Reads a JSON array of list entries piece by piece, so that a list of a
/// million entries never exists as one tree of `JSONValue`s (or, read from a
/// file, as one block of bytes): elements are cut out of the bytes as they
/// come, decoded a batch at a time, and turned into compact `ListEntry`s.
///
/// It accepts exactly the arrays JSON allows (commas between elements, no
/// trailing comma, nothing after the closing bracket); on anything else it
/// throws `Unreadable`, and the caller parses the whole text the usual way,
/// which gives the error message a person can act on.
struct ListArrayStream {
    struct Unreadable: Error {}

    let urlField: String?
    let base: URL?
    /// Elements decoded per JSONDecoder call.
    var batchSize = 2048

    private enum Phase { case start, between, element, done }
    private var phase = Phase.start
    /// True after `[` or a comma: an element must come (or `]` after `[`).
    private var expectingElement = true
    private var elementsSeen = 0
    private var depth = 0
    private var inString = false
    private var escaped = false
    /// The elements of the current batch, as the text of a JSON array
    /// without its closing bracket.
    private var batch: [UInt8] = [UInt8(ascii: "[")]
    private var batched = 0
    private(set) var entries: [ListEntry] = []

    init(urlField: String?, base: URL?) {
        self.urlField = urlField
        self.base = base
    }

    /// Parses a whole array held in memory.
    static func parse(_ bytes: Data.SubSequence, urlField: String?, base: URL?) throws(Unreadable) -> [ListEntry] {
        var stream = ListArrayStream(urlField: urlField, base: base)
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = min(bytes.endIndex, start + (1 << 20))
            try stream.feed(bytes[start..<end])
            start = end
        }
        return try stream.finish()
    }

    /// Parses the array in a file, reading it a megabyte at a time.
    static func parse(file path: String, urlField: String?, base: URL?) throws(Unreadable) -> [ListEntry] {
        guard var chunks = ListFileChunks(path: path) else { throw Unreadable() }
        defer { chunks.close() }
        var stream = ListArrayStream(urlField: urlField, base: base)
        while let bytes = chunks.next() { try stream.feed(bytes) }
        return try stream.finish()
    }

    /// The entries decoded so far, which the stream then no longer holds
    /// (`ListReader` hands them on as a file is read).
    mutating func takeEntries() -> [ListEntry] {
        defer { entries = [] }
        return entries
    }

    mutating func feed(_ bytes: Data.SubSequence) throws(Unreadable) {
        for byte in bytes {
            try take(byte)
        }
    }

    mutating func finish() throws(Unreadable) -> [ListEntry] {
        guard phase == .done else { throw Unreadable() }
        try flush()
        return entries
    }

    private mutating func take(_ byte: UInt8) throws(Unreadable) {
        switch phase {
        case .start:
            if Self.isWhitespace(byte) { return }
            guard byte == UInt8(ascii: "[") else { throw Unreadable() }
            phase = .between
        case .between:
            if Self.isWhitespace(byte) { return }
            if byte == UInt8(ascii: ",") {
                guard !expectingElement else { throw Unreadable() }
                expectingElement = true
            } else if byte == UInt8(ascii: "]") {
                guard !expectingElement || elementsSeen == 0 else { throw Unreadable() }
                phase = .done
            } else {
                guard expectingElement else { throw Unreadable() }
                if batched > 0 { batch.append(UInt8(ascii: ",")) }
                phase = .element
                try element(byte)
            }
        case .element:
            try element(byte)
        case .done:
            guard Self.isWhitespace(byte) else { throw Unreadable() }
        }
    }

    /// A byte inside an element (or the one just after a bare literal).
    private mutating func element(_ byte: UInt8) throws(Unreadable) {
        if inString {
            batch.append(byte)
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                inString = false
                if depth == 0 { try ended() }
            }
            return
        }
        switch byte {
        case UInt8(ascii: "\""):
            inString = true
            batch.append(byte)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            depth += 1
            batch.append(byte)
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
            if depth == 0 {
                // `]` right after a bare literal (a number, true…).
                try ended()
                try take(byte)
                return
            }
            depth -= 1
            batch.append(byte)
            if depth == 0 { try ended() }
        case UInt8(ascii: ","), 0x20, 0x09, 0x0A, 0x0D:
            if depth == 0 {
                try ended()
                try take(byte)
            } else {
                batch.append(byte)
            }
        default:
            batch.append(byte)
        }
    }

    private mutating func ended() throws(Unreadable) {
        phase = .between
        expectingElement = false
        elementsSeen += 1
        batched += 1
        if batched >= batchSize { try flush() }
    }

    /// Decodes the batch into entries.
    private mutating func flush() throws(Unreadable) {
        guard batched > 0 else { return }
        batch.append(UInt8(ascii: "]"))
        let values: [JSONValue]
        do {
            values = try JSONDecoder().decode([JSONValue].self, from: Data(batch))
        } catch {
            throw Unreadable()
        }
        guard values.count == batched else { throw Unreadable() }
        entries.reserveCapacity(entries.count + values.count)
        for value in values {
            entries.append(ListParser.entry(of: value, urlField: urlField, base: base))
        }
        batch.removeAll(keepingCapacity: true)
        batch.append(UInt8(ascii: "["))
        batched = 0
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}

/// A list file a megabyte at a time, its UTF-8 byte-order mark dropped.
struct ListFileChunks {
    private let handle: FileHandle
    private var first = true

    init?(path: String) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        self.handle = handle
    }

    func close() { try? handle.close() }

    /// The next chunk; nil at the end (or when the read fails).
    mutating func next() -> Data? {
        guard let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty else { return nil }
        var bytes = chunk[...]
        if first, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        first = false
        return bytes
    }
}
