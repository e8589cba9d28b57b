import Foundation

/// Reads one manifest item (a line of manifest.json as `ManifestWriter`
/// writes it, or of the journal as `JSONEncoder` writes it) without
/// `JSONDecoder`, which spent about 30 µs on each line of a no-op re-run
/// over a million images (issue 23). It is the one reader of an item line:
/// the merge's check pass, the report's tiles, the previous run's index,
/// the run's own spool and `JSONCoding.readManifest` all ask it, each for
/// the fields it needs (`Fields`).
///
/// It reads `ManifestItem`'s keys in any order (fastest in `ManifestWriter`'s),
/// each at most once, any of the optional ones absent or `null`, with any
/// JSON white space between tokens; `meta` with a generic value reader
/// (`JSONByteReader.value`). Anything else — an unknown or repeated key, a
/// wrong type, an escaped key, a number it does not read exactly as
/// `JSONDecoder` (`JSONByteReader`) — gives nil,
/// and `decode(_:fields:fallback:)` then asks `JSONDecoder`: a manifest edited by
/// hand or written by another version reads exactly as before, only slower.
enum ManifestItemDecoder {
    /// The fields of an item a caller reads, besides `id`, `source` and
    /// `status`, which every item is read with. A field left out is passed
    /// over (its value checked for being JSON, not converted) and left
    /// empty: nil, `[]` for `outputs`, 0 for `ms`.
    struct Fields: OptionSet, Sendable {
        let rawValue: UInt32
        static let sha256 = Fields(rawValue: 1 << 0)
        static let bytes = Fields(rawValue: 1 << 1)
        static let format = Fields(rawValue: 1 << 2)
        /// `width`, `height` and `orientation`.
        static let size = Fields(rawValue: 1 << 3)
        static let outputs = Fields(rawValue: 1 << 4)
        static let duplicateOf = Fields(rawValue: 1 << 5)
        static let placeholder = Fields(rawValue: 1 << 6)
        static let color = Fields(rawValue: 1 << 7)
        static let phash = Fields(rawValue: 1 << 8)
        static let similarTo = Fields(rawValue: 1 << 9)
        static let video = Fields(rawValue: 1 << 10)
        static let download = Fields(rawValue: 1 << 11)
        static let meta = Fields(rawValue: 1 << 12)
        static let warnings = Fields(rawValue: 1 << 13)
        static let error = Fields(rawValue: 1 << 14)
        static let ms = Fields(rawValue: 1 << 15)
        static let modified = Fields(rawValue: 1 << 16)
        static let read = Fields(rawValue: 1 << 17)
        static let all = Fields(rawValue: (1 << 18) - 1)
    }

    /// The item the JSON object in `line` holds (white space around it
    /// allowed), or nil when the line is not in the layout read here.
    static func decode(_ line: UnsafeRawBufferPointer, fields: Fields = .all) -> ManifestItem? {
        var reader = JSONByteReader(line)
        guard let item = reader.manifestItem(fields) else { return nil }
        reader.skipSpace()
        return reader.isAtEnd ? item : nil
    }

    static func decode(_ line: [UInt8], fields: Fields = .all) -> ManifestItem? {
        line.withUnsafeBytes { decode($0, fields: fields) }
    }

    /// The item in `line`, read here or else by `decoder` (whole); nil when
    /// neither can.
    static func decode(_ line: UnsafeRawBufferPointer, fields: Fields = .all, fallback decoder: JSONDecoder) -> ManifestItem? {
        decode(line, fields: fields) ?? (try? decoder.decode(ManifestItem.self, from: Data(line)))
    }

    static func decode(_ line: [UInt8], fields: Fields = .all, fallback decoder: JSONDecoder) -> ManifestItem? {
        line.withUnsafeBytes { decode($0, fields: fields, fallback: decoder) }
    }

    /// An item line of manifest.json (`    {"id": …},`): its id, which
    /// `ManifestWriter` writes first, and where its JSON object lies in the
    /// line (without the indent and the comma); nil when the object does
    /// not start with its id. Reads nothing past the id: a previous run's
    /// index is built from a million of these.
    static func itemObject(in line: UnsafeRawBufferPointer) -> (id: String, start: Int, length: Int)? {
        var start = 0
        while start < line.count, line[start] == 0x20 { start += 1 }
        var end = line.count
        if end > start, line[end - 1] == UInt8(ascii: ",") { end -= 1 }
        let object = UnsafeRawBufferPointer(rebasing: line[start..<end])
        var reader = JSONByteReader(object)
        guard reader.take(UInt8(ascii: "{")), let key = reader.key(), key.elementsEqual("id".utf8), let id = reader.string() else {
            return nil
        }
        return (id, start, end - start)
    }
}

/// The keys of one kind of object, in the order they are written.
protocol JSONFieldKey {
    /// Every key and its name's bytes, in order.
    static var order: [(key: Self, name: [UInt8])] { get }
}

extension JSONFieldKey where Self: CaseIterable & RawRepresentable<String> {
    static func makeOrder() -> [(key: Self, name: [UInt8])] {
        allCases.map { ($0, Array($0.rawValue.utf8)) }
    }
}

private enum ItemField: String, CaseIterable, JSONFieldKey {
    case id, source, status, sha256, read, bytes, format, width, height, orientation, outputs, duplicateOf
    case placeholder, color, phash, similarTo, video, download, meta, warnings, error, ms, modified
    static let order = makeOrder()

    /// The selectable field this key belongs to; nil for the three every
    /// item is read with.
    var field: ManifestItemDecoder.Fields? {
        switch self {
        case .id, .source, .status: nil
        case .sha256: .sha256
        case .read: .read
        case .bytes: .bytes
        case .format: .format
        case .width, .height, .orientation: .size
        case .outputs: .outputs
        case .duplicateOf: .duplicateOf
        case .placeholder: .placeholder
        case .color: .color
        case .phash: .phash
        case .similarTo: .similarTo
        case .video: .video
        case .download: .download
        case .meta: .meta
        case .warnings: .warnings
        case .error: .error
        case .ms: .ms
        case .modified: .modified
        }
    }
}

private enum ReadField: String, CaseIterable, JSONFieldKey {
    case bytes, partial, digest
    static let order = makeOrder()
}

private enum OutputField: String, CaseIterable, JSONFieldKey {
    case size, path, width, height, bytes, format, sha256
    static let order = makeOrder()
}

private enum PlaceholderField: String, CaseIterable, JSONFieldKey {
    case thumbhash, blurhash
    static let order = makeOrder()
}

private enum SimilarField: String, CaseIterable, JSONFieldKey {
    case id, distance
    static let order = makeOrder()
}

private enum VideoField: String, CaseIterable, JSONFieldKey {
    case durationSeconds, codec, fps, frameAtSeconds, hdr
    static let order = makeOrder()
}

private enum DownloadField: String, CaseIterable, JSONFieldKey {
    case url, status, bytes, size, partial, digest, attempts, ms, etag, lastModified
    static let order = makeOrder()
}

private enum ErrorField: String, CaseIterable, JSONFieldKey {
    case code, message
    static let order = makeOrder()
}

extension JSONByteReader {
    /// An object of `Key`s, `read` called for each; false for another key
    /// or one seen twice. Any may be missing: the caller checks the required
    /// ones. Keys are looked for in `Key.order` from the one after the last
    /// found, so a line in that order (`ManifestWriter`'s) costs one
    /// comparison a key, and one in another (`JSONEncoder` writes them in
    /// hash order, which changes from run to run) a few more.
    mutating func fields<Key: JSONFieldKey>(_: Key.Type, _ read: (inout JSONByteReader, Key) -> Bool) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        if take(UInt8(ascii: "}")) { return true }
        let order = Key.order
        var next = 0
        var seen: UInt64 = 0
        repeat {
            guard let raw = key() else { return false }
            var found: Key?
            for step in 0..<order.count {
                let k = (next + step) % order.count
                guard order[k].name.elementsEqual(raw) else { continue }
                guard seen & (1 << UInt64(k)) == 0 else { return false }
                seen |= 1 << UInt64(k)
                found = order[k].key
                next = k + 1
                break
            }
            guard let found, read(&self, found) else { return false }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}"))
    }

    /// An optional field: `null` stores nil; else what `read` reads, false when it cannot.
    mutating func optional<T>(_ slot: inout T?, _ read: (inout JSONByteReader) -> T?) -> Bool {
        if takeNull() {
            slot = nil
            return true
        }
        slot = read(&self)
        return slot != nil
    }

    mutating func array<T>(_ read: (inout JSONByteReader) -> T?) -> [T]? {
        guard take(UInt8(ascii: "[")) else { return nil }
        var values: [T] = []
        if take(UInt8(ascii: "]")) { return values }
        repeat {
            guard let value = read(&self) else { return nil }
            values.append(value)
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "]")) ? values : nil
    }

    /// An item, with only `fields` besides its id, source and status
    /// (`ManifestItemDecoder.Fields`).
    mutating func manifestItem(_ wanted: ManifestItemDecoder.Fields = .all) -> ManifestItem? {
        var id: String?, source: String?, status: ItemStatus?, sha256: String?, bytes: Int64?, format: String?
        var width: Int?, height: Int?, orientation: Int?, outputs: [ManifestOutput]?, duplicateOf: String?
        var placeholder: Placeholder?, color: String?, phash: String?, similarTo: SimilarReference?
        var video: VideoFacts?, download: DownloadRecord?, meta: [String: JSONValue]?, warnings: [String]?
        var error: ErrorRecord?
        var ms: Double?, modified: Double?, readRecord: ReadRecord?
        let read = fields(ItemField.self) { r, key in
            if let field = key.field, !wanted.contains(field) { return r.value() != nil }
            switch key {
            case .id: id = r.string(); return id != nil
            case .source: source = r.string(); return source != nil
            case .status: status = r.string().flatMap(ItemStatus.init(rawValue:)); return status != nil
            case .sha256: return r.optional(&sha256) { $0.string() }
            case .read: return r.optional(&readRecord) { $0.readRecord() }
            case .bytes: return r.optional(&bytes) { $0.int64() }
            case .format: return r.optional(&format) { $0.string() }
            case .width: return r.optional(&width) { $0.int() }
            case .height: return r.optional(&height) { $0.int() }
            case .orientation: return r.optional(&orientation) { $0.int() }
            case .outputs: outputs = r.array { $0.manifestOutput() }; return outputs != nil
            case .duplicateOf: return r.optional(&duplicateOf) { $0.string() }
            case .placeholder: return r.optional(&placeholder) { $0.placeholder() }
            case .color: return r.optional(&color) { $0.string() }
            case .phash: return r.optional(&phash) { $0.string() }
            case .similarTo: return r.optional(&similarTo) { $0.similarReference() }
            case .video: return r.optional(&video) { $0.videoFacts() }
            case .download: return r.optional(&download) { $0.downloadRecord() }
            case .meta: return r.optional(&meta) { $0.take(UInt8(ascii: "{")) ? $0.object() : nil }
            case .warnings: return r.optional(&warnings) { $0.array { $0.string() } }
            case .error: return r.optional(&error) { $0.errorRecord() }
            case .ms: ms = r.double(); return ms != nil
            case .modified: return r.optional(&modified) { $0.double() }
            }
        }
        // The required fields a caller left out are empty, not missing.
        if !wanted.contains(.outputs) { outputs = outputs ?? [] }
        if !wanted.contains(.ms) { ms = ms ?? 0 }
        guard read, let id, let source, let status, let outputs, let ms else { return nil }
        var item = ManifestItem(
            id: id, source: source, status: status, sha256: sha256, bytes: bytes, format: format,
            width: width, height: height, orientation: orientation, outputs: outputs, duplicateOf: duplicateOf,
            download: download, meta: meta, error: error, ms: ms, modified: modified)
        item.placeholder = placeholder
        item.color = color
        item.phash = phash
        item.similarTo = similarTo
        item.video = video
        item.warnings = warnings
        item.read = readRecord
        return item
    }

    private mutating func readRecord() -> ReadRecord? {
        var bytes: Int64?, partial: Bool?, digest: String?
        let read = fields(ReadField.self) { r, key in
            switch key {
            case .bytes: bytes = r.int64(); return bytes != nil
            case .partial: return r.optional(&partial) { $0.bool() }
            case .digest: return r.optional(&digest) { $0.string() }
            }
        }
        guard read, let bytes else { return nil }
        return ReadRecord(bytes: bytes, partial: partial, digest: digest)
    }

    private mutating func manifestOutput() -> ManifestOutput? {
        var size: String?, path: String?, width: Int?, height: Int?, bytes: Int64?, format: String?, sha256: String?
        let read = fields(OutputField.self) { r, key in
            switch key {
            case .size: size = r.string(); return size != nil
            case .path: path = r.string(); return path != nil
            case .width: width = r.int(); return width != nil
            case .height: height = r.int(); return height != nil
            case .bytes: bytes = r.int64(); return bytes != nil
            case .format: format = r.string(); return format != nil
            case .sha256: sha256 = r.string(); return sha256 != nil
            }
        }
        guard read, let size, let path, let width, let height, let bytes, let format, let sha256 else { return nil }
        return ManifestOutput(size: size, path: path, width: width, height: height, bytes: bytes, format: format, sha256: sha256)
    }

    private mutating func placeholder() -> Placeholder? {
        var thumbhash: String?, blurhash: String?
        let read = fields(PlaceholderField.self) { r, key in
            switch key {
            case .thumbhash: thumbhash = r.string(); return thumbhash != nil
            case .blurhash: blurhash = r.string(); return blurhash != nil
            }
        }
        guard read, let thumbhash, let blurhash else { return nil }
        return Placeholder(thumbhash: thumbhash, blurhash: blurhash)
    }

    private mutating func similarReference() -> SimilarReference? {
        var id: String?, distance: Int?
        let read = fields(SimilarField.self) { r, key in
            switch key {
            case .id: id = r.string(); return id != nil
            case .distance: distance = r.int(); return distance != nil
            }
        }
        guard read, let id, let distance else { return nil }
        return SimilarReference(id: id, distance: distance)
    }

    private mutating func videoFacts() -> VideoFacts? {
        var duration: Double?, codec: String?, fps: Double?, frameAt: Double?, hdr: String?
        let read = fields(VideoField.self) { r, key in
            switch key {
            case .durationSeconds: duration = r.double(); return duration != nil
            case .codec: codec = r.string(); return codec != nil
            case .fps: fps = r.double(); return fps != nil
            case .frameAtSeconds: frameAt = r.double(); return frameAt != nil
            case .hdr: return r.optional(&hdr) { $0.string() }
            }
        }
        guard read, let duration, let codec, let fps, let frameAt else { return nil }
        return VideoFacts(durationSeconds: duration, codec: codec, fps: fps, frameAtSeconds: frameAt, hdr: hdr)
    }

    private mutating func downloadRecord() -> DownloadRecord? {
        var url: String?, status: Int?, bytes: Int64?, size: Int64?, partial: Bool?, digest: String?, attempts: Int?, ms: Double?
        var etag: String?, lastModified: String?
        let read = fields(DownloadField.self) { r, key in
            switch key {
            case .url: url = r.string(); return url != nil
            case .status: return r.optional(&status) { $0.int() }
            case .bytes: bytes = r.int64(); return bytes != nil
            case .size: return r.optional(&size) { $0.int64() }
            case .partial: return r.optional(&partial) { $0.bool() }
            case .digest: return r.optional(&digest) { $0.string() }
            case .attempts: attempts = r.int(); return attempts != nil
            case .ms: ms = r.double(); return ms != nil
            case .etag: return r.optional(&etag) { $0.string() }
            case .lastModified: return r.optional(&lastModified) { $0.string() }
            }
        }
        guard read, let url, let bytes, let attempts, let ms else { return nil }
        var record = DownloadRecord(url: url, status: status, bytes: bytes, attempts: attempts, ms: ms, etag: etag, lastModified: lastModified)
        record.size = size
        record.partial = partial
        record.digest = digest
        return record
    }

    private mutating func errorRecord() -> ErrorRecord? {
        var code: String?, message: String?
        let read = fields(ErrorField.self) { r, key in
            switch key {
            case .code: code = r.string(); return code != nil
            case .message: message = r.string(); return message != nil
            }
        }
        guard read, let code, let message else { return nil }
        return ErrorRecord(code: code, message: message)
    }
}
