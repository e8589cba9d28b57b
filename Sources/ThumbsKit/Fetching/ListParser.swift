import Foundation

/// Why a photo list could not be read; the run stops with exit 3.
struct ListParseError: Error, Sendable {
    var message: String
}

/// Reads the entries of one photo list (or one page of it), whatever its
/// format, recognised by content:
///
/// - a JSON array of objects: Lorem Picsum `/v2/list`
///   (`id, author, width, height, url, download_url`), Unsplash photo objects
///   (`id, width, height, urls.{raw,full,regular,small,thumb}`, `likes`,
///   `downloads`, `user.name`), or any objects with an image URL field;
///   a JSON array of URL strings;
/// - a JSON object holding such an array under `results` (Unsplash search),
///   `photos`, `items`, `data` or `images`, or one photo object;
/// - NDJSON: one JSON object (or URL string) per line;
/// - plain text: one URL per line; blank lines and `#` comments are skipped.
enum ListParser {
    /// Where the image URL is looked for, in order, unless `--url-field` says.
    /// Picsum's `download_url` comes before `url` (which is a web page), and
    /// Unsplash's `urls.regular` (1080 px wide) is the default: large enough
    /// for any thumbnail, far lighter than `raw` or `full`.
    static let urlFieldGuesses = [
        "download_url", "urls.regular", "urls.full", "urls.raw", "urls.small", "urls.thumb",
        "image_url", "imageUrl", "image", "src", "url",
    ]

    /// Keys of a JSON object that may hold the entries.
    static let arrayKeys = ["results", "photos", "items", "data", "images"]

    static func parse(_ data: Data, urlField: String?, base: URL?) throws(ListParseError) -> [ListEntry] {
        var bytes = data[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        guard let first = bytes.first(where: { !isWhitespace($0) }) else { return [] }
        // An array (the usual big list) is read a batch of entries at a time;
        // the whole-text parse below is for the other shapes, and for the
        // message when the array is not valid JSON.
        if first == UInt8(ascii: "["), let entries = try? ListArrayStream.parse(bytes, urlField: urlField, base: base) {
            return entries
        }
        switch first {
        case UInt8(ascii: "["), UInt8(ascii: "{"):
            let whole: JSONValue
            do {
                whole = try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
            } catch {
                if first == UInt8(ascii: "{"), let entries = try? ndjson(bytes, urlField: urlField, base: base) {
                    return entries
                }
                let what = first == UInt8(ascii: "{") ? "JSON nor NDJSON" : "JSON"
                throw ListParseError(message: "it is not valid \(what) (\(jsonProblem(bytes)))")
            }
            return try entries(of: whole, urlField: urlField, base: base)
        case UInt8(ascii: "<"):
            throw ListParseError(message: "it is an HTML or XML page, not a photo list (JSON, NDJSON or one URL per line)")
        default:
            return try text(bytes, base: base)
        }
    }

    private static func entries(of value: JSONValue, urlField: String?, base: URL?) throws(ListParseError) -> [ListEntry] {
        switch value {
        case .array(let elements):
            return elements.map { entry(of: $0, urlField: urlField, base: base) }
        case .object(let fields):
            for key in arrayKeys {
                if case .array(let elements)? = fields[key] {
                    return elements.map { entry(of: $0, urlField: urlField, base: base) }
                }
            }
            let single = entry(of: value, urlField: urlField, base: base)
            guard single.url != nil else {
                throw ListParseError(message: "it is a JSON object with no array of photos (looked for \(arrayKeys.joined(separator: ", "))) and no image URL")
            }
            return [single]
        default:
            throw ListParseError(message: "it is a single JSON value, not a list of photos")
        }
    }

    private static func ndjson(_ bytes: Data.SubSequence, urlField: String?, base: URL?) throws -> [ListEntry] {
        var entries: [ListEntry] = []
        let decoder = JSONDecoder()
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            guard line.contains(where: { !isWhitespace($0) }) else { continue }
            let value = try decoder.decode(JSONValue.self, from: Data(line))
            entries.append(entry(of: value, urlField: urlField, base: base))
        }
        return entries
    }

    private static func text(_ bytes: Data.SubSequence, base: URL?) throws(ListParseError) -> [ListEntry] {
        guard !bytes.contains(0), let text = String(data: Data(bytes), encoding: .utf8) else {
            throw ListParseError(message: "it is binary data, not a photo list (JSON, NDJSON or one URL per line)")
        }
        var entries: [ListEntry] = []
        var sawURL = false
        for raw in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.contains("://") { sawURL = true }
            entries.append(ListEntry(url: RemoteURL.resolve(line, base: base)))
        }
        guard sawURL || entries.isEmpty else {
            let sample = RemoteURL.quoted(entries[0].url ?? "")
            throw ListParseError(message: "it is neither JSON nor a list of URLs, one per line (first line: \(sample))")
        }
        return entries
    }

    /// One element of a list: a photo object, or a URL string.
    static func entry(of value: JSONValue, urlField: String?, base: URL?) -> ListEntry {
        switch value {
        case .string(let url):
            return ListEntry(url: RemoteURL.resolve(url, base: base))
        case .object(let fields):
            let found = urlField.map { value[path: $0]?.stringValue } ?? guessURL(value)
            let id = fields["id"]?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines)
            return ListEntry(
                id: id?.isEmpty == false ? id : nil,
                url: found.map { RemoteURL.resolve($0, base: base) },
                meta: meta(of: fields)
            )
        default:
            return ListEntry(url: nil)
        }
    }

    /// The first guessed field holding an http(s) URL; else the first
    /// holding any string (a relative URL, or a bad one that then fails
    /// with a message naming it).
    private static func guessURL(_ value: JSONValue) -> String? {
        let candidates = urlFieldGuesses.compactMap { field -> String? in
            guard case .string(let text)? = value[path: field], !text.isEmpty else { return nil }
            return text
        }
        return candidates.first(where: { RemoteURL.problem($0) == nil }) ?? candidates.first
    }

    /// The entry's own scalar fields (strings, numbers, booleans), as the
    /// list gives them. Nested objects and arrays (Unsplash's `urls`,
    /// `links`, `user` with its profile images…) are left out so that the
    /// manifest stays small; Unsplash's `user.name` becomes `author`, as in
    /// Picsum lists. Numeric fields feed the `source` summaries of stats.json.
    /// Each field is kept up to 64 KiB (`MetaFieldLimit`).
    static func meta(of fields: [String: JSONValue]) -> [String: JSONValue] {
        var meta: [String: JSONValue] = [:]
        for (key, value) in fields {
            switch value {
            // An image URL's credentials are not written out (`RemoteURL.withoutCredentials`).
            case .string(let text): meta[key] = .string(RemoteURL.withoutCredentials(text))
            case .number, .bool: meta[key] = value
            case .null, .array, .object: break
            }
        }
        if meta["author"] == nil, case .string(let name)? = JSONValue.object(fields)[path: "user.name"] {
            meta["author"] = .string(name)
        }
        return MetaFieldLimit.apply(to: meta)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// Where the JSON goes wrong, in JSONSerialization's words ("Invalid
    /// value around character 8."), which JSONDecoder does not give on Linux.
    private static func jsonProblem(_ bytes: Data.SubSequence) -> String {
        do {
            _ = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
            return "not a valid list"
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            return (detail ?? "\(error)").trimmingCharacters(in: CharacterSet(charactersIn: ". "))
        }
    }
}
