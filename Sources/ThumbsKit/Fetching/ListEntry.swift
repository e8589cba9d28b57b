import Foundation

/// One entry of a photo list, before it becomes a `SourceItem`.
struct ListEntry: Sendable, Hashable {
    /// The entry's own `id`, if it has one.
    var id: String?
    /// The image URL as the list gives it (resolved against a remote list's
    /// URL when relative); nil when the entry names none.
    var url: String?
    /// The entry's own fields (see `ListParser.meta(of:)`), packed.
    var meta: EntryMeta

    init(id: String? = nil, url: String?, meta: [String: JSONValue] = [:]) {
        self.id = id
        self.url = url
        self.meta = meta.isEmpty ? .empty : EntryMeta(meta, url: url)
    }

    /// The item id: the entry's id, else the last path segment of its URL.
    func itemID(position: Int) -> String {
        if let id, !id.isEmpty { return id }
        if let url, let segment = RemoteURL.lastSegment(of: url) { return segment }
        return "entry-\(position)"
    }
}

/// Checks the URLs a list names before anything is fetched from them.
enum RemoteURL {
    /// Why `url` cannot be fetched, or nil when it is an http(s) URL with a
    /// host. Other schemes (`file:`, `ftp:`…) are refused so that a list can
    /// never make thumbs read local files.
    static func problem(_ url: String) -> String? {
        if url.isEmpty { return "no image URL" }
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased() else {
            return "\(quoted(url)) is not an absolute http(s) URL"
        }
        guard scheme == "http" || scheme == "https" else {
            return "\(quoted(url)) uses \(scheme):, only http and https URLs are fetched"
        }
        guard let host = parsed.host, !host.isEmpty else { return "\(quoted(url)) has no host" }
        return nil
    }

    /// The last non-empty path segment (percent-decoded), else the host.
    static func lastSegment(of url: String) -> String? {
        guard let parsed = URL(string: url) else { return nil }
        if let last = parsed.pathComponents.last(where: { $0 != "/" && !$0.isEmpty }) { return last }
        return parsed.host
    }

    /// Resolves a relative reference against a remote list's URL.
    static func resolve(_ reference: String, base: URL?) -> String {
        let text = reference.trimmingCharacters(in: .whitespacesAndNewlines)
        if let url = URL(string: text), url.scheme != nil { return text }
        guard let base, let url = URL(string: text, relativeTo: base) else { return text }
        return url.absoluteString
    }

    /// The host (lower case) and port, for messages and the rate limiter.
    static func host(of url: String) -> String? {
        URL(string: url)?.host?.lowercased()
    }

    static func quoted(_ text: String) -> String {
        let shown = text.count > 200 ? String(text.prefix(200)) + "…" : text
        return "\"" + shown.replacingOccurrences(of: "\0", with: "\\0") + "\""
    }
}
