/// One `SourceItem` as bytes, for the spool file of `SourceItems`: every
/// field, exactly, with nothing shared between items.
///
/// Layout: a kind byte (file, unreadable, remote; `sameAsSource` when the
/// path or URL is the source, which is then written once), then id, source,
/// output name and path or URL as length-prefixed UTF-8, then the kind's
/// fields: size and time (8 bytes each), a reason, or a list entry's packed
/// fields (`EntryMeta`) and the URL they refer to. Lengths are varints.
enum SourceItemCoding {
    private static let file: UInt8 = 0, unreadable: UInt8 = 1, remote: UInt8 = 2
    private static let sameAsSource: UInt8 = 0x10

    static func encode(_ item: SourceItem, into bytes: inout [UInt8]) {
        let kind: UInt8, location: String
        switch item.origin {
        case .file(let path, _, _): (kind, location) = (file, path)
        case .unreadable(let path, _): (kind, location) = (unreadable, path)
        case .remote(let url, _): (kind, location) = (remote, url)
        }
        let same = sameBytes(location, item.source)
        bytes.append(kind | (same ? sameAsSource : 0))
        appendString(item.id, to: &bytes)
        appendString(item.source, to: &bytes)
        appendString(item.outputName, to: &bytes)
        if !same { appendString(location, to: &bytes) }
        switch item.origin {
        case .file(_, let size, let modified):
            appendFixed(UInt64(bitPattern: size), to: &bytes)
            appendFixed(modified.bitPattern, to: &bytes)
        case .unreadable(_, let reason):
            appendString(reason, to: &bytes)
        case .remote(let url, let meta):
            let packed = meta.packed
            appendVarint(UInt64(packed.bytes.count), to: &bytes)
            bytes += packed.bytes
            switch packed.url {
            case nil: bytes.append(0)
            case let metaURL? where metaURL.utf8.elementsEqual(url.utf8): bytes.append(1)
            case let metaURL?:
                bytes.append(2)
                appendString(metaURL, to: &bytes)
            }
        }
    }

    /// Only the id of the item in `bytes` (naming's first passes).
    static func decodeID(_ bytes: UnsafeRawBufferPointer) -> String? {
        var reader = Reader(bytes: bytes)
        guard reader.byte() != nil else { return nil }
        return reader.string()
    }

    /// Whether two strings have the same UTF-8 bytes (`==` would take
    /// canonically equal ones for the same).
    private static func sameBytes(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in b.withUTF8 { y in x.elementsEqual(y) } }
    }

    /// The item in `bytes`, as `encode` wrote it; nil if they are not one.
    static func decode(_ bytes: UnsafeRawBufferPointer) -> SourceItem? {
        var reader = Reader(bytes: bytes)
        guard let flags = reader.byte(), let id = reader.string(), let source = reader.string(),
              let outputName = reader.string() else { return nil }
        let location: String
        if flags & sameAsSource != 0 {
            location = source
        } else {
            guard let text = reader.string() else { return nil }
            location = text
        }
        let origin: SourceItem.Origin
        switch flags & ~sameAsSource {
        case file:
            guard let size = reader.fixed(), let modified = reader.fixed() else { return nil }
            origin = .file(path: location, size: Int64(bitPattern: size), modified: Double(bitPattern: modified))
        case unreadable:
            guard let reason = reader.string() else { return nil }
            origin = .unreadable(path: location, reason: reason)
        case remote:
            guard let count = reader.varint(), let packed = reader.bytes(Int(clamping: count)), let urlKind = reader.byte() else { return nil }
            let metaURL: String?
            switch urlKind {
            case 0: metaURL = nil
            case 1: metaURL = location
            default:
                guard let text = reader.string() else { return nil }
                metaURL = text
            }
            origin = .remote(url: location, meta: EntryMeta(packed: Array(packed), url: metaURL))
        default:
            return nil
        }
        return SourceItem(id: id, source: source, outputName: outputName, origin: origin)
    }

    private static func appendString(_ text: String, to bytes: inout [UInt8]) {
        appendVarint(UInt64(text.utf8.count), to: &bytes)
        bytes += text.utf8
    }

    private static func appendFixed(_ value: UInt64, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// Reads `bytes` forward; nil past their end.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        mutating func byte() -> UInt8? {
            guard index < bytes.count else { return nil }
            defer { index += 1 }
            return bytes.load(fromByteOffset: index, as: UInt8.self)
        }

        mutating func varint() -> UInt64? {
            var value: UInt64 = 0, shift: UInt64 = 0
            while let byte = byte() {
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
                if shift > 63 { return nil }
            }
            return nil
        }

        mutating func bytes(_ count: Int) -> UnsafeRawBufferPointer? {
            guard count >= 0, count <= bytes.count - index else { return nil }
            defer { index += count }
            return UnsafeRawBufferPointer(start: bytes.baseAddress.map { $0 + index }, count: count)
        }

        mutating func string() -> String? {
            guard let count = varint(), let slice = bytes(Int(clamping: count)) else { return nil }
            return String(decoding: slice, as: UTF8.self)
        }

        mutating func fixed() -> UInt64? {
            guard let slice = bytes(8) else { return nil }
            return UInt64(littleEndian: slice.loadUnaligned(as: UInt64.self))
        }
    }
}
