import Foundation

/// Reads `Link: <https://…?page=2>; rel="next", <…>; rel="last"` (RFC 8288).
enum LinkHeader {
    /// The absolute URL of the `rel` link among all `Link` header values,
    /// resolved against `base`; nil when there is none.
    static func target(rel wanted: String, in values: [String], base: URL?) -> String? {
        for value in values {
            for link in split(value) {
                guard let open = link.firstIndex(of: "<"), let close = link[open...].firstIndex(of: ">") else { continue }
                let reference = String(link[link.index(after: open)..<close]).trimmingCharacters(in: .whitespaces)
                let parameters = link[link.index(after: close)...].split(separator: ";")
                let rels = parameters.compactMap { parameter -> [String]? in
                    let parts = parameter.split(separator: "=", maxSplits: 1)
                    guard parts.count == 2,
                          parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "rel" else { return nil }
                    let raw = parts[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                    return raw.lowercased().split(separator: " ").map(String.init)
                }.flatMap { $0 }
                guard rels.contains(wanted.lowercased()) else { continue }
                if let url = URL(string: reference, relativeTo: base)?.absoluteURL { return url.absoluteString }
            }
        }
        return nil
    }

    /// Splits one header value into its links: commas inside `<…>` or quotes
    /// do not separate.
    static func split(_ value: String) -> [Substring] {
        var links: [Substring] = []
        var start = value.startIndex
        var inAngle = false, inQuote = false
        var index = value.startIndex
        while index < value.endIndex {
            switch value[index] {
            case "<" where !inQuote: inAngle = true
            case ">" where !inQuote: inAngle = false
            case "\"" where !inAngle: inQuote.toggle()
            case "," where !inAngle && !inQuote:
                links.append(value[start..<index])
                start = value.index(after: index)
            default: break
            }
            index = value.index(after: index)
        }
        links.append(value[start...])
        return links
    }
}
