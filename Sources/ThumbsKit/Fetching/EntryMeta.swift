import Foundation

/// The scalar fields of one list entry (`meta` in the manifest, with the
/// `_truncated` list of `MetaFieldLimit`), packed in one small byte array
/// while the item waits to be processed.
///
/// A list of a million entries writes a million of these to the run's spool
/// (`SourceItemCoding`), and a page of entries holds one each. As a
/// `[String: JSONValue]` each took about 400 bytes (a hash table, its keys,
/// boxed values); packed, a Picsum entry takes about 100: keys are numbers in
/// a table shared by the whole process (`MetaKeys`), integers are varints,
/// and a string equal to the entry's image URL (Picsum's `download_url`) is
/// a one-byte reference to `url`, which the item holds anyway.
public struct EntryMeta: Sendable, Hashable {
    /// Fields sorted by key, each: key, value tag, value (see `Tag`).
    private let bytes: [UInt8]
    /// The entry's image URL (shares its storage with the item's).
    private let url: String?

    public static let empty = EntryMeta([:], url: nil)

    init(_ fields: [String: JSONValue], url: String?) {
        var bytes: [UInt8] = []
        var referencesURL = false
        for key in fields.keys.sorted() {
            if let index = MetaKeys.shared.index(of: key) {
                bytes.append(index)
            } else {
                bytes.append(MetaKeys.inline)
                Self.appendString(key, to: &bytes)
            }
            switch fields[key]! {
            case .string(let text) where url != nil && text == url:
                bytes.append(Tag.imageURL.rawValue)
                referencesURL = true
            case .string(let text):
                bytes.append(Tag.string.rawValue)
                Self.appendString(text, to: &bytes)
            case .number(let number) where number.rounded() == number && abs(number) < 9.0e15:
                bytes.append(Tag.integer.rawValue)
                let value = Int64(number)
                Self.appendVarint(UInt64(bitPattern: (value << 1) ^ (value >> 63)), to: &bytes)
            case .number(let number):
                bytes.append(Tag.double.rawValue)
                withUnsafeBytes(of: number.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
            case .bool(let flag):
                bytes.append(flag ? Tag.yes.rawValue : Tag.no.rawValue)
            case .array(let elements) where elements.allSatisfy({ $0.stringValue != nil }):
                // `_truncated`'s list of names (`MetaFieldLimit`).
                bytes.append(Tag.strings.rawValue)
                Self.appendVarint(UInt64(elements.count), to: &bytes)
                for element in elements { Self.appendString(element.stringValue ?? "", to: &bytes) }
            case .null, .array, .object:
                bytes.append(Tag.null.rawValue)
            }
        }
        self.bytes = bytes
        self.url = referencesURL ? url : nil
    }

    public var isEmpty: Bool { bytes.isEmpty }

    /// The packed form and the URL it refers to, for `SourceItemCoding`.
    var packed: (bytes: [UInt8], url: String?) { (bytes, url) }
    init(packed bytes: [UInt8], url: String?) { (self.bytes, self.url) = (bytes, url) }

    public subscript(key: String) -> JSONValue? { fields[key] }

    /// The fields as the list gave them.
    public var fields: [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        var index = 0
        func string() -> String {
            let count = Int(Self.varint(bytes, at: &index))
            defer { index += count }
            return String(decoding: bytes[index..<index + count], as: UTF8.self)
        }
        while index < bytes.count {
            let keyByte = bytes[index]
            index += 1
            let key = keyByte == MetaKeys.inline ? string() : MetaKeys.shared.key(at: keyByte)
            let tag = Tag(rawValue: bytes[index])!
            index += 1
            switch tag {
            case .string: fields[key] = .string(string())
            case .imageURL: fields[key] = .string(url ?? "")
            case .integer:
                let zigzag = Self.varint(bytes, at: &index)
                fields[key] = .number(Double(Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)))
            case .double:
                var pattern: UInt64 = 0
                for shift in 0..<8 { pattern |= UInt64(bytes[index + shift]) << (8 * shift) }
                index += 8
                fields[key] = .number(Double(bitPattern: pattern))
            case .yes: fields[key] = .bool(true)
            case .no: fields[key] = .bool(false)
            case .null: fields[key] = .null
            case .strings:
                let count = Int(Self.varint(bytes, at: &index))
                fields[key] = .array((0..<count).map { _ in .string(string()) })
            }
        }
        return fields
    }

    private enum Tag: UInt8 {
        case string, imageURL, integer, double, yes, no, null
        /// An array of strings: its count, then each string.
        case strings
    }

    private static func appendString(_ text: String, to bytes: inout [UInt8]) {
        let utf8 = text.utf8
        appendVarint(UInt64(utf8.count), to: &bytes)
        bytes.append(contentsOf: utf8)
    }

    private static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    private static func varint(_ bytes: [UInt8], at index: inout Int) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = bytes[index]
            index += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }
}

/// Field names of list entries, numbered once per process so that each entry
/// stores a byte instead of the name. At most 250 names are numbered (a list
/// whose entries all have different keys cannot grow the table); other
/// names are stored in the entry itself.
final class MetaKeys: @unchecked Sendable {
    static let shared = MetaKeys()
    /// Marks a key stored inline.
    static let inline: UInt8 = 255

    private let lock = NSLock()
    private var names: [String] = []
    private var numbers: [String: UInt8] = [:]

    func index(of key: String) -> UInt8? {
        lock.lock()
        defer { lock.unlock() }
        if let number = numbers[key] { return number }
        guard names.count < 250 else { return nil }
        let number = UInt8(names.count)
        names.append(key)
        numbers[key] = number
        return number
    }

    func key(at index: UInt8) -> String {
        lock.lock()
        defer { lock.unlock() }
        return names[Int(index)]
    }
}
