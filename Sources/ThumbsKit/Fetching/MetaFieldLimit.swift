/// How much of a list entry's field reaches the manifest's `meta`
/// (PRODUCT.md, "Re-runs": "up to 64 KiB each; a longer one is cut, and the
/// cut is noted").
///
/// A list can carry anything in its entries: a description of 50 MB would
/// otherwise be copied into the manifest once per entry (and held in memory
/// until then). So a field's value, and its name, are kept up to 64 KiB of
/// UTF-8 each; a longer one is cut at a character boundary (never inside a
/// UTF-8 sequence), and the field's name is listed, sorted, in the entry's
/// own `meta` field `"_truncated": ["description", …]`. That key is present
/// only when something was cut, and then replaces any `_truncated` field
/// the list itself gave.
enum MetaFieldLimit {
    /// The most UTF-8 bytes kept of one field's name or string value.
    static let maxBytes = 64 * 1024
    /// The `meta` field that lists the fields that were cut.
    static let truncatedKey = "_truncated"

    /// `fields` with every name and string value within `maxBytes`, and the
    /// cut ones listed under `truncatedKey`.
    static func apply(to fields: [String: JSONValue]) -> [String: JSONValue] {
        guard fields.contains(where: { $0.key.utf8.count > maxBytes || $0.value.stringValue.map(isLong) == true }) else {
            return fields
        }
        var kept: [String: JSONValue] = [:]
        var cutNames = Set<String>()
        for (name, value) in fields {
            let keptName = cut(name)
            var keptValue = value
            if case .string(let text) = value, isLong(text) { keptValue = .string(cut(text)) }
            if keptName != name || keptValue != value { cutNames.insert(keptName) }
            kept[keptName] = keptValue
        }
        kept[truncatedKey] = .array(cutNames.sorted().map(JSONValue.string))
        return kept
    }

    private static func isLong(_ text: String) -> Bool { text.utf8.count > maxBytes }

    /// `text` itself when it fits, else its longest prefix of at most
    /// `maxBytes` bytes that ends on a character boundary.
    static func cut(_ text: String) -> String {
        let utf8 = text.utf8
        guard utf8.count > maxBytes else { return text }
        var end = utf8.index(utf8.startIndex, offsetBy: maxBytes)
        // Back off continuation bytes (10xxxxxx): the cut falls before the
        // first byte of the sequence it would split.
        while end > utf8.startIndex, utf8[end] & 0xC0 == 0x80 { end = utf8.index(before: end) }
        return String(decoding: utf8[..<end], as: UTF8.self)
    }
}
