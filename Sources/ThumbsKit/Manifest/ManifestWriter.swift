import Foundation

/// Writes manifest.json by hand rather than through JSONEncoder: keys in the
/// order PRODUCT.md lists them, one item per line (so a baseline manifest
/// committed to git diffs item by item), and several times faster, which
/// matters for re-runs over 100,000 items. `ManifestItemDecoder` reads its
/// item lines back (`ManifestSource`); `JSONDecoder` any other layout.
public enum ManifestWriter {
    /// The whole manifest as one buffer (the header `ManifestLines` writes
    /// before the items; small manifests, tests).
    public static func encode(_ manifest: Manifest) -> Data {
        var data = Data()
        write(manifest) { (chunk: UnsafeRawBufferPointer) in data.append(contentsOf: chunk) }
        return data
    }

    /// Emits the manifest in chunks of about 1 MB.
    public static func write<E: Error>(
        _ manifest: Manifest, emit: (UnsafeRawBufferPointer) throws(E) -> Void
    ) throws(E) {
        let chunkSize = 1 << 20
        var out = JSONText()
        out.reserve(chunkSize + 64 * 1024)
        func flush(_ force: Bool = false) throws(E) {
            guard force || out.count >= chunkSize else { return }
            try out.withBytes { (raw: UnsafeRawBufferPointer) throws(E) in try emit(raw) }
            out.removeAll()
        }
        out.raw("{\n  \"schema\": ")
        out.string(manifest.schema)
        out.raw(",\n  \"tool\": ")
        out.encoded(manifest.tool)
        out.raw(",\n  \"startedAt\": ")
        out.string(manifest.startedAt)
        out.raw(",\n  \"finishedAt\": ")
        out.string(manifest.finishedAt)
        out.raw(",\n  \"settings\": ")
        out.encoded(manifest.settings)
        if let shard = manifest.shard {
            out.raw(",\n  \"shard\": ")
            out.encoded(shard)
        }
        if let interrupted = manifest.interrupted {
            out.raw(",\n  \"interrupted\": ")
            out.raw(interrupted ? "true" : "false")
        }
        if let gone = manifest.gone {
            out.raw(",\n  \"gone\": [")
            for (index, id) in gone.enumerated() {
                if index > 0 { out.raw(", ") }
                out.string(id)
                try flush()
            }
            out.raw("]")
        }
        if let run = manifest.run {
            out.raw(",\n  \"run\": ")
            out.encoded(run)
        }
        out.raw(",\n  \"items\": [")
        for (index, item) in manifest.items.enumerated() {
            out.raw(index == 0 ? "\n    " : ",\n    ")
            write(item, into: &out)
            try flush()
        }
        out.raw(manifest.items.isEmpty ? "]" : "\n  ]")
        if let kept = manifest.kept, !kept.isEmpty {
            out.raw(keptOpen)
            for (index, item) in kept.enumerated() {
                out.raw(index == 0 ? "\n    " : ",\n    ")
                write(item, into: &out)
                try flush()
            }
            out.raw("\n  ]")
        }
        out.raw("\n}\n")
        try flush(true)
    }

    /// What opens `kept` after the items' `  ]`: on a line of its own that
    /// starts with the comma, so that every reader that stops at the items'
    /// `  ]` line (`ManifestSource`, `ManifestLineReader`, older versions)
    /// reads the items as before.
    static let keptOpen = "\n  , \"kept\": ["

    static func write(_ item: ManifestItem, into out: inout JSONText) {
        var similarAt = 0
        write(item, into: &out, similarAt: &similarAt)
    }

    /// `similarAt`: where, from the start of this item's text, its
    /// `similarTo` is (or would be) written, so that a run can add it to a
    /// line written before its groups were known (`RunResults`).
    static func write(_ item: ManifestItem, into out: inout JSONText, similarAt: inout Int) {
        let start = out.count
        out.raw("{\"id\": ")
        out.string(item.id)
        out.raw(", \"source\": ")
        out.string(item.source)
        out.raw(", \"status\": ")
        out.string(item.status.rawValue)
        if let v = item.sha256 { out.raw(", \"sha256\": "); out.string(v) }
        if let r = item.read {
            out.raw(", \"read\": {\"bytes\": "); out.int(r.bytes)
            if r.partial == true { out.raw(", \"partial\": true") }
            if let d = r.digest { out.raw(", \"digest\": "); out.string(d) }
            out.raw("}")
        }
        if let v = item.bytes { out.raw(", \"bytes\": "); out.int(v) }
        if let v = item.format { out.raw(", \"format\": "); out.string(v) }
        if let v = item.width { out.raw(", \"width\": "); out.int(v) }
        if let v = item.height { out.raw(", \"height\": "); out.int(v) }
        if let v = item.orientation { out.raw(", \"orientation\": "); out.int(v) }
        out.raw(", \"outputs\": [")
        for (index, o) in item.outputs.enumerated() {
            out.raw(index == 0 ? "{\"size\": " : ", {\"size\": ")
            out.string(o.size)
            out.raw(", \"path\": "); out.string(o.path)
            out.raw(", \"width\": "); out.int(o.width)
            out.raw(", \"height\": "); out.int(o.height)
            out.raw(", \"bytes\": "); out.int(o.bytes)
            out.raw(", \"format\": "); out.string(o.format)
            out.raw(", \"sha256\": "); out.string(o.sha256)
            out.raw("}")
        }
        out.raw("]")
        if let v = item.duplicateOf { out.raw(", \"duplicateOf\": "); out.string(v) }
        if let p = item.placeholder {
            out.raw(", \"placeholder\": {\"thumbhash\": "); out.string(p.thumbhash)
            out.raw(", \"blurhash\": "); out.string(p.blurhash)
            out.raw("}")
        }
        if let v = item.color { out.raw(", \"color\": "); out.string(v) }
        if let v = item.phash { out.raw(", \"phash\": "); out.string(v) }
        similarAt = out.count - start
        if let s = item.similarTo { write(s, into: &out) }
        if let v = item.video {
            out.raw(", \"video\": {\"durationSeconds\": "); out.number(v.durationSeconds)
            out.raw(", \"codec\": "); out.string(v.codec)
            out.raw(", \"fps\": "); out.number(v.fps)
            out.raw(", \"frameAtSeconds\": "); out.number(v.frameAtSeconds)
            if let hdr = v.hdr { out.raw(", \"hdr\": "); out.string(hdr) }
            out.raw("}")
        }
        if let d = item.download {
            out.raw(", \"download\": {\"url\": "); out.string(d.url)
            out.raw(", \"status\": ")
            if let status = d.status { out.int(status) } else { out.raw("null") }
            out.raw(", \"bytes\": "); out.int(d.bytes)
            if let v = d.size { out.raw(", \"size\": "); out.int(v) }
            if d.partial == true { out.raw(", \"partial\": true") }
            if let v = d.digest { out.raw(", \"digest\": "); out.string(v) }
            out.raw(", \"attempts\": "); out.int(d.attempts)
            out.raw(", \"ms\": "); out.number(d.ms)
            if let v = d.etag { out.raw(", \"etag\": "); out.string(v) }
            if let v = d.lastModified { out.raw(", \"lastModified\": "); out.string(v) }
            out.raw("}")
        }
        if let meta = item.meta {
            out.raw(", \"meta\": ")
            out.value(.object(meta))
        }
        if let warnings = item.warnings {
            out.raw(", \"warnings\": [")
            for (index, warning) in warnings.enumerated() {
                if index > 0 { out.raw(", ") }
                out.string(warning)
            }
            out.raw("]")
        }
        if let e = item.error {
            out.raw(", \"error\": {\"code\": "); out.string(e.code)
            out.raw(", \"message\": "); out.string(e.message)
            out.raw("}")
        }
        out.raw(", \"ms\": ")
        out.number(item.ms)
        if let v = item.modified { out.raw(", \"modified\": "); out.number(v) }
        out.raw("}")
    }
}

extension ManifestWriter {
    /// An item's `similarTo`, with the comma before it.
    static func write(_ similar: SimilarReference, into out: inout JSONText) {
        out.raw(", \"similarTo\": {\"id\": "); out.string(similar.id)
        out.raw(", \"distance\": "); out.int(similar.distance)
        out.raw("}")
    }
}

/// A growing UTF-8 JSON text.
struct JSONText {
    private(set) var bytes: [UInt8] = []

    var count: Int { bytes.count }

    mutating func reserve(_ n: Int) { bytes.reserveCapacity(n) }

    mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    func withBytes<E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> Void) throws(E) {
        var failure: E?
        bytes.withUnsafeBytes { raw in
            do throws(E) { try body(raw) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    mutating func raw(_ text: String) { bytes.append(contentsOf: text.utf8) }

    /// Bytes that are JSON already (an item line written before).
    mutating func append(_ raw: UnsafeRawBufferPointer) { bytes.append(contentsOf: raw) }

    mutating func int<T: BinaryInteger>(_ value: T) { raw(String(value)) }

    mutating func number(_ value: Double) {
        guard value.isFinite else { return raw("0") }
        raw(value.jsonInteger.map { String($0) } ?? "\(value)")
    }

    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20, 0x7F:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                          hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func value(_ value: JSONValue) {
        switch value {
        case .null: raw("null")
        case .bool(let b): raw(b ? "true" : "false")
        case .number(let n): number(n)
        case .string(let s): string(s)
        case .array(let values):
            raw("[")
            for (index, v) in values.enumerated() {
                if index > 0 { raw(", ") }
                self.value(v)
            }
            raw("]")
        case .object(let fields):
            raw("{")
            for (index, key) in fields.keys.sorted().enumerated() {
                if index > 0 { raw(", ") }
                string(key)
                raw(": ")
                self.value(fields[key]!)
            }
            raw("}")
        }
    }

    /// Small fixed objects (tool, settings, run) through JSONEncoder, compact.
    mutating func encoded<T: Encodable>(_ value: T) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        bytes.append(contentsOf: (try? encoder.encode(value)) ?? Data("null".utf8))
    }
}
