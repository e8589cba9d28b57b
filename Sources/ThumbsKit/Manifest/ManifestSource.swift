import Foundation

/// A manifest read as a stream of items, for `thumbs merge` of millions:
/// the header (everything but `items`) is decoded once; the items are read
/// again, batch by batch, on every pass (`items()`), and never all held.
///
/// The layout `ManifestWriter` writes (one item per line) is read from the
/// file through `FileLines`; `run.shardOrder`, which holds a number per item
/// of the whole run, is not read into the header: its place in the file and
/// its SHA-256 are kept (`OrderText`), and `ShardOrderCursor` reads it when
/// needed. A manifest in another layout (written by hand, pretty-printed
/// JSON) is decoded whole, as `JSONCoding.readManifest` does.
final class ManifestSource {
    let path: String
    /// The manifest without its items (and without `run.shardOrder` when the
    /// file holds one: see `order`).
    let header: Manifest
    /// `run.shardOrder`, where it lies.
    let order: OrderText?
    private let fd: Int32?
    private let itemsOffset: Int
    /// With `"items": []`, where the line after it starts (`kept` may follow).
    private var emptyItemsEnd = -1
    private let loaded: [ManifestItem]?

    /// Where `run.shardOrder`'s text lies, and its digest (shards of one run
    /// all recorded the same text).
    struct OrderText {
        var offset: Int
        var length: Int
        var digest: SHA256Hex.Digest
        /// The text itself, for a manifest read whole.
        var inline: String?
    }

    private init(path: String, header: Manifest, order: OrderText?, fd: Int32?, itemsOffset: Int, loaded: [ManifestItem]?) {
        self.path = path
        self.header = header
        self.order = order
        self.fd = fd
        self.itemsOffset = itemsOffset
        self.loaded = loaded
    }

    deinit { if let fd { try? FileDescriptor.close(fd) } }

    /// Opens the manifest at `path` (a regular file, as `ManifestFile`
    /// requires) and decodes its header.
    static func open(_ path: String) throws(RunError) -> ManifestSource {
        try ManifestFile.requireRegularFile(path)
        let fd: Int32
        do {
            fd = try FileDescriptor.open(path, .readOnly, .nonBlocking)
        } catch {
            throw .usage("cannot read manifest \(path): \(error.text)")
        }
        var keep = false
        defer { if !keep { try? FileDescriptor.close(fd) } }
        do {
            try ManifestFile.requireRegular(try FileInfo.lookup(descriptor: fd).kind, path)
        } catch let error as RunError {
            throw error
        } catch {
            throw .usage("cannot read manifest \(path): \(error)")
        }
        let read: HeaderRead
        do {
            read = try readHeader(fd)
        } catch {
            throw .usage("cannot read manifest \(path): \(error.text)")
        }
        let parsed: Parsed
        switch read {
        case .parsed(let found):
            parsed = found
        case .damaged(let problem):
            // Its items are not read whole to find out more: at a million
            // items that held 1.4 GB.
            throw .usage("\(path) is not a valid thumbs manifest: its header does not decode (\(problem))")
        case .otherLayout:
            let size = (try? FileInfo.lookup(descriptor: fd).size) ?? 0
            guard size <= Int64(Self.wholeReadLimit) else {
                throw .usage("\(path) is not laid out as thumbs writes a manifest (one item a line), and at \(size >> 20) MB "
                             + "it is too large to read whole (at most \(Self.wholeReadLimit >> 20) MB)")
            }
            let whole = try JSONCoding.readManifest(at: path)
            var header = whole
            header.items = []
            var order: OrderText?
            if let text = whole.run?.shardOrder {
                var stream = SHA256Hex.Stream()
                var copy = text
                copy.withUTF8 { stream.update(UnsafeRawBufferPointer($0)) }
                order = OrderText(offset: 0, length: text.utf8.count, digest: stream.finish(), inline: text)
            }
            return ManifestSource(path: path, header: header, order: order, fd: nil, itemsOffset: 0, loaded: whole.items)
        }
        guard parsed.header.schema == Manifest.schemaName else {
            throw .usage("\(path) is not a thumbs manifest (schema \(parsed.header.schema))")
        }
        keep = true
        let source = ManifestSource(path: path, header: parsed.header, order: parsed.order, fd: fd, itemsOffset: parsed.itemsOffset, loaded: nil)
        source.emptyItemsEnd = parsed.emptyItemsEnd
        return source
    }

    /// The items from the first, one at a time, each read with `fields`
    /// only (`ManifestItemDecoder.Fields`: the merge's check pass and the
    /// report read a third of an item).
    func items(fields: ManifestItemDecoder.Fields = .all) -> ItemCursor {
        if let loaded { return ItemCursor(path: path, loaded: loaded) }
        if itemsOffset < 0 { return ItemCursor(path: path, loaded: []) }
        return ItemCursor(path: path, lines: FileLines(fd: fd!, from: itemsOffset, owner: self), fields: fields)
    }

    /// The lines of the items, from the first, for a reader that wants each
    /// line's place in the file (`PreviousIndex`); nil for a manifest read
    /// whole (see `loadedItems`) or with no items. The last line is `  ]`.
    func itemLines() -> FileLines? {
        guard loaded == nil, itemsOffset >= 0, let fd else { return nil }
        return FileLines(fd: fd, from: itemsOffset, owner: self)
    }

    /// The lines after `"items": []`, where the manifest's `kept` records
    /// may follow (`PreviousIndex`); nil when the items are not empty.
    func linesAfterEmptyItems() -> FileLines? {
        guard loaded == nil, itemsOffset < 0, emptyItemsEnd >= 0, let fd else { return nil }
        return FileLines(fd: fd, from: emptyItemsEnd, owner: self)
    }

    /// The items of a manifest in another layout, decoded whole when opened.
    var loadedItems: [ManifestItem]? { loaded }

    /// The open manifest, for reads at offsets `itemLines` gave.
    var descriptor: Int32? { fd }

    /// `run.shardOrder` from its first number; nil when there is none.
    func orderCursor(count: Int) -> ShardOrderCursor? {
        guard let order else { return nil }
        if let inline = order.inline { return ShardOrderCursor(inline: inline, count: count) }
        return ShardOrderCursor(lines: FileLines(fd: fd!, from: order.offset, owner: self), length: order.length, count: count)
    }

    // MARK: Header

    private static let itemsOpen = Array("  \"items\": [".utf8)
    private static let itemsEmpty = Array("  \"items\": []".utf8)
    private static let runPrefix = Array("  \"run\": ".utf8)
    private static let orderKey = Array("\"shardOrder\":\"".utf8)
    private static let goneOpen = Array("  \"gone\": [".utf8)

    /// The largest manifest in another layout than `ManifestWriter`'s (one
    /// written by hand, or pretty-printed by another tool) that is decoded
    /// whole: 16 MiB, about 20,000 items, whose `JSONDecoder` tree and items
    /// cost about twice the file (a million items, 1.4 GB). thumbs always
    /// writes its own layout, which is read as a stream at any size.
    static let wholeReadLimit = 16 << 20

    /// A header read from `ManifestWriter`'s layout: the header, the
    /// order's place and where the items start.
    typealias Parsed = (header: Manifest, order: OrderText?, itemsOffset: Int, emptyItemsEnd: Int)

    /// What the lines before the items turned out to be.
    enum HeaderRead {
        case parsed(Parsed)
        /// Not `ManifestWriter`'s layout (or a header past `wholeReadLimit`).
        case otherLayout
        /// `ManifestWriter`'s layout, up to its items line, with a header
        /// that does not decode as a manifest's (`JSONCoding.describe`).
        case damaged(String)
    }

    /// The header of a manifest in `ManifestWriter`'s layout, the order's
    /// place and the offset of the first item line.
    private static func readHeader(_ fd: Int32) throws(SystemError) -> HeaderRead {
        let lines = FileLines(fd: fd, from: 0)
        guard let first = try lines.next(), first.elementsEqual("{".utf8) else { return .otherLayout }
        var text: [UInt8] = Array("{\n".utf8)
        var order: OrderText?
        var empty = false
        while true {
            if try lines.require(runPrefix.count), lines.unread.starts(with: runPrefix) {
                guard let (line, found) = try readRunLine(lines) else { return .otherLayout }
                text += line
                text.append(0x0A)
                order = found
                continue
            }
            // `gone`, one id an item gone (millions after an unmount), is
            // not read into the header: no reader of a manifest needs it.
            if try lines.require(goneOpen.count), lines.unread.starts(with: goneOpen) {
                guard try skipLine(lines) else { return .otherLayout }
                continue
            }
            guard let line = try lines.next() else { return .otherLayout }
            if line.elementsEqual(itemsOpen) { break }
            if line.elementsEqual(itemsEmpty) { empty = true; break }
            guard text.count + line.count < wholeReadLimit else { return .otherLayout }
            text += line
            text.append(0x0A)
        }
        // -1: `"items": []`, nothing to read.
        let itemsOffset = empty ? -1 : lines.offset
        text += Array("  \"items\": []\n}".utf8)
        var header: Manifest
        do {
            header = try JSONDecoder().decode(Manifest.self, from: Data(text))
        } catch {
            return .damaged(JSONCoding.describe(error))
        }
        header.items = []
        if order != nil { header.run?.shardOrder = nil }
        return .parsed((header, order, itemsOffset, empty ? lines.offset : -1))
    }

    /// Passes over a line of any length without holding it.
    private static func skipLine(_ lines: FileLines) throws(SystemError) -> Bool {
        while true {
            let unread = lines.unread
            if let newline = unread.firstIndex(of: 0x0A) {
                lines.consume(newline + 1)
                return true
            }
            lines.consume(unread.count)
            if try !lines.fill() { return false }
        }
    }

    /// The `run` line with its shardOrder's text left out (`"shardOrder":""`),
    /// and where that text lies; read without holding the text.
    private static func readRunLine(_ lines: FileLines) throws(SystemError) -> ([UInt8], OrderText?)? {
        // The keys before shardOrder (decoders, downloads, ignored) are short.
        var kept: [UInt8] = []
        while true {
            let unread = lines.unread
            if let newline = unread.firstIndex(of: 0x0A), firstMatch(orderKey, in: unread, before: newline) == nil {
                kept += unread[..<newline]
                lines.consume(newline + 1)
                return (kept, nil)
            }
            if let at = firstMatch(orderKey, in: unread, before: unread.count) {
                kept += unread[..<(at + orderKey.count)]
                lines.consume(at + orderKey.count)
                break
            }
            if unread.count > 1 << 20 { return nil }
            if try !lines.fill() { return nil }
        }
        let offset = lines.offset
        var stream = SHA256Hex.Stream()
        var length = 0
        while true {
            let unread = lines.unread
            if let quote = ByteSearch.firstIndex(of: UInt8(ascii: "\""), in: unread.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, count: unread.count) {
                stream.update(UnsafeRawBufferPointer(rebasing: unread[..<quote]))
                length += quote
                lines.consume(quote)
                break
            }
            stream.update(unread)
            length += unread.count
            lines.consume(unread.count)
            if try !lines.fill() { return nil }
        }
        guard let rest = try lines.next() else { return nil }
        kept += rest
        return (kept, OrderText(offset: offset, length: length, digest: stream.finish(), inline: nil))
    }

    /// Where `pattern` first starts in `bytes[..<limit]`, if it does.
    static func firstMatch(_ pattern: [UInt8], in bytes: UnsafeRawBufferPointer, before limit: Int) -> Int? {
        guard limit >= pattern.count else { return nil }
        var i = 0
        while i + pattern.count <= limit {
            guard let hit = ByteSearch.firstIndex(of: pattern[0], in: bytes.baseAddress! + i, count: limit - pattern.count + 1 - i) else { return nil }
            let at = i + hit
            if UnsafeRawBufferPointer(rebasing: bytes[at..<(at + pattern.count)]).elementsEqual(pattern) { return at }
            i = at + 1
        }
        return nil
    }
}

/// A manifest's items in order, each line read by `ManifestItemDecoder`
/// for the fields its reader asks for, or by `JSONDecoder` when it is in
/// another layout (a line edited by hand).
final class ItemCursor {
    private let path: String
    private var lines: FileLines?
    private let fields: ManifestItemDecoder.Fields
    private var loaded: [ManifestItem] = []
    private var position = 0
    private var finished = false
    private let decoder = JSONDecoder()
    /// Items handed out so far.
    private(set) var count = 0

    init(path: String, lines: FileLines, fields: ManifestItemDecoder.Fields = .all) {
        self.path = path
        self.lines = lines
        self.fields = fields
    }

    init(path: String, loaded: [ManifestItem]) {
        self.path = path
        self.loaded = loaded
        fields = .all
    }

    /// The next item, or nil after the last.
    func next() throws(RunError) -> ManifestItem? {
        guard let lines else {
            guard position < loaded.count else { return nil }
            defer { position += 1; count += 1 }
            return loaded[position]
        }
        guard !finished else { return nil }
        let line: UnsafeRawBufferPointer
        do {
            guard let next = try lines.next() else {
                throw RunError.usage("\(path) is not a valid thumbs manifest: it ends inside its items (a file cut short?)")
            }
            line = next
        } catch let error as RunError {
            throw error
        } catch {
            throw .usage("cannot read manifest \(path): \(error)")
        }
        if line.elementsEqual("  ]".utf8) {
            finished = true
            return nil
        }
        var object = line
        while object.first == 0x20 { object = UnsafeRawBufferPointer(rebasing: object.dropFirst()) }
        if object.last == UInt8(ascii: ",") { object = UnsafeRawBufferPointer(rebasing: object.dropLast()) }
        if let item = ManifestItemDecoder.decode(object, fields: fields) {
            count += 1
            return item
        }
        do {
            let item = try decoder.decode(ManifestItem.self, from: Data(object))
            count += 1
            return item
        } catch {
            throw .usage("\(path) is not a valid thumbs manifest: item \(count + 1): \(JSONCoding.describe(error))")
        }
    }
}

/// `run.shardOrder` read number by number (`ShardOrder`'s text: shard
/// indices separated by commas).
final class ShardOrderCursor {
    private let lines: FileLines?
    private var inline: [UInt8]
    private var inlinePosition = 0
    private var remaining: Int
    private let count: Int
    /// Set when the text is not a list of indices below `count`.
    private(set) var damaged = false

    init(lines: FileLines, length: Int, count: Int) {
        self.lines = lines
        remaining = length
        self.count = count
        inline = []
    }

    init(inline text: String, count: Int) {
        lines = nil
        inline = Array(text.utf8)
        remaining = inline.count
        self.count = count
    }

    /// The next shard index; nil at the end of the text or when it is damaged.
    func next() throws(SystemError) -> Int? {
        guard remaining > 0, !damaged else { return nil }
        var value = 0, digits = 0
        while remaining > 0 {
            guard let byte = try nextByte() else { damaged = true; return nil }
            remaining -= 1
            if byte == UInt8(ascii: ",") {
                if remaining == 0 { damaged = true; return nil }  // a trailing comma
                break
            }
            guard byte >= 0x30, byte <= 0x39, digits < 9 else { damaged = true; return nil }
            value = value * 10 + Int(byte - 0x30)
            digits += 1
        }
        guard digits > 0, value < count else { damaged = true; return nil }
        return value
    }

    private func nextByte() throws(SystemError) -> UInt8? {
        if let lines {
            if lines.unread.isEmpty, try !lines.fill() { return nil }
            let byte = lines.unread[0]
            lines.consume(1)
            return byte
        }
        guard inlinePosition < inline.count else { return nil }
        defer { inlinePosition += 1 }
        return inline[inlinePosition]
    }
}
