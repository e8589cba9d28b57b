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
        let parsed: (header: Manifest, order: OrderText?, itemsOffset: Int, emptyItemsEnd: Int)?
        do {
            parsed = try readHeader(fd)
        } catch {
            throw .usage("cannot read manifest \(path): \(error.text)")
        }
        guard let parsed else {
            // Another layout: read whole.
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

    /// The items from the first, one at a time.
    func items() -> ItemCursor<ManifestItem> { items(as: ManifestItem.self) }

    /// The items decoded as `Item`, which may read only some of their
    /// fields (`MergeCheckItem`: a third of the decoding).
    func items<Item: StreamedItem>(as: Item.Type) -> ItemCursor<Item> {
        if let loaded { return ItemCursor(path: path, loaded: loaded.map(Item.init)) }
        if itemsOffset < 0 { return ItemCursor(path: path, loaded: []) }
        return ItemCursor(path: path, lines: FileLines(fd: fd!, from: itemsOffset, owner: self))
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

    /// The header of a manifest in `ManifestWriter`'s layout, the order's
    /// place and the offset of the first item line; nil for another layout.
    private static func readHeader(_ fd: Int32) throws(SystemError) -> (header: Manifest, order: OrderText?, itemsOffset: Int, emptyItemsEnd: Int)? {
        let lines = FileLines(fd: fd, from: 0)
        guard let first = try lines.next(), first.elementsEqual("{".utf8) else { return nil }
        var text: [UInt8] = Array("{\n".utf8)
        var order: OrderText?
        var empty = false
        while true {
            if try lines.require(runPrefix.count), lines.unread.starts(with: runPrefix) {
                guard let (line, found) = try readRunLine(lines) else { return nil }
                text += line
                text.append(0x0A)
                order = found
                continue
            }
            // `gone`, one id an item gone (millions after an unmount), is
            // not read into the header: no reader of a manifest needs it.
            if try lines.require(goneOpen.count), lines.unread.starts(with: goneOpen) {
                guard try skipLine(lines) else { return nil }
                continue
            }
            guard let line = try lines.next() else { return nil }
            if line.elementsEqual(itemsOpen) { break }
            if line.elementsEqual(itemsEmpty) { empty = true; break }
            guard line.count < 64 << 20 else { return nil }
            text += line
            text.append(0x0A)
        }
        // -1: `"items": []`, nothing to read.
        let itemsOffset = empty ? -1 : lines.offset
        text += Array("  \"items\": []\n}".utf8)
        guard var header = try? JSONDecoder().decode(Manifest.self, from: Data(text)) else { return nil }
        header.items = []
        if order != nil { header.run?.shardOrder = nil }
        return (header, order, itemsOffset, empty ? lines.offset : -1)
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

/// What a manifest's items can be read as: the whole `ManifestItem`, or the
/// few fields one pass needs (`MergeCheckItem`), with what orders them.
protocol StreamedItem: Decodable {
    init(_ item: ManifestItem)
    var id: String { get }
    /// Where the item goes in `MergeOrder`'s k-way merge.
    var mergeKey: MergeOrder.Key { get }
}

extension ManifestItem: StreamedItem {
    init(_ item: ManifestItem) { self = item }
    var mergeKey: MergeOrder.Key { MergeOrder.Key(self) }
}

/// A manifest's items in order, decoded a batch of lines at a time (one
/// `JSONDecoder` call per batch: a call per line costs more than parsing).
final class ItemCursor<Item: StreamedItem> {
    private let path: String
    private var lines: FileLines?
    private var batch: [Item] = []
    private var position = 0
    private var finished = false
    /// Items handed out so far.
    private(set) var count = 0
    static var batchSize: Int { 64 }

    init(path: String, lines: FileLines) {
        self.path = path
        self.lines = lines
    }

    init(path: String, loaded: [Item]) {
        self.path = path
        batch = loaded
    }

    /// The next item, or nil after the last.
    func next() throws(RunError) -> Item? {
        if position == batch.count {
            guard let lines, !finished else { return nil }
            batch = try readBatch(lines)
            position = 0
            if batch.isEmpty { return nil }
        }
        let item = batch[position]
        position += 1
        count += 1
        return item
    }

    private var json: [UInt8] = []

    private func readBatch(_ lines: FileLines) throws(RunError) -> [Item] {
        json.removeAll(keepingCapacity: true)
        json.append(UInt8(ascii: "["))
        var n = 0
        do {
            while n < Self.batchSize {
                guard var line = try lines.next() else {
                    throw RunError.usage("\(path) is not a valid thumbs manifest: it ends inside its items (a file cut short?)")
                }
                if line.elementsEqual("  ]".utf8) {
                    finished = true
                    break
                }
                while line.first == 0x20 { line = UnsafeRawBufferPointer(rebasing: line.dropFirst()) }
                if line.last == UInt8(ascii: ",") { line = UnsafeRawBufferPointer(rebasing: line.dropLast()) }
                if n > 0 { json.append(UInt8(ascii: ",")) }
                json.append(contentsOf: line)
                n += 1
            }
        } catch let error as RunError {
            throw error
        } catch {
            throw .usage("cannot read manifest \(path): \(error)")
        }
        guard n > 0 else { return [] }
        json.append(UInt8(ascii: "]"))
        do {
            return try json.withUnsafeBytes { try JSONDecoder().decode([Item].self, from: Data($0)) }
        } catch {
            throw .usage("\(path) is not a valid thumbs manifest: item \(count + 1) to \(count + n): \(JSONCoding.describe(error))")
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
