import Foundation
import NIOHTTP1

/// One `--header 'NAME: VALUE'`: a request header for a photo list's pages
/// (an API key, `Authorization: Client-ID …`).
///
/// Its value is a secret: it is sent only to the list URL's own origin
/// (`ListReader`), never to image hosts nor across a redirect to another
/// origin (`HTTPSession.get`), and never written anywhere. `description`
/// hides it, so that a value interpolated by mistake still shows nothing.
public struct RequestHeader: Sendable, Equatable, CustomStringConvertible {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    public var description: String { "\(name): …" }
}

/// Reads `--header` values, `--header @FILE` files and `THUMBS_HEADER`.
///
/// Every message names the option, the file or the header's name and never
/// the value, which may be a secret pasted in the wrong place.
public enum ListHeaders {
    /// The environment variable that holds headers (one per line), so that a
    /// secret stays out of `ps` and the shell's history.
    public static let environmentVariable = "THUMBS_HEADER"

    /// Headers a list request may not set: HTTP framing and routing, which
    /// the client owns (a wrong `Host` or `Content-Length` would break the
    /// request or send it elsewhere), and `Range`, which image downloads use.
    static let refused: Set<String> = [
        "host", "content-length", "transfer-encoding", "connection", "upgrade", "te", "trailer", "keep-alive",
        "proxy-connection", "range",
    ]

    /// The headers of `arguments` (each `NAME: VALUE` or `@FILE`), then of
    /// `environment` (the value of THUMBS_HEADER, one header per line).
    /// Throws a usage error (exit 2) for a malformed or refused one.
    public static func parse(arguments: [String], environment: String?) throws(RunError) -> [RequestHeader] {
        var headers: [RequestHeader] = []
        for (index, argument) in arguments.enumerated() {
            let which = arguments.count > 1 ? "--header (the \(ordinal(index + 1)))" : "--header"
            if argument.hasPrefix("@") {
                let path = String(argument.dropFirst())
                guard !path.isEmpty else { throw .usage("\(which): @ needs a file name, as in --header @headers.txt") }
                let text: String
                do {
                    text = try String(contentsOfFile: path, encoding: .utf8)
                } catch {
                    throw .usage("\(which): cannot read the header file \(path): \((error as NSError).localizedDescription)")
                }
                headers += try lines(text, what: "line %d of the header file \(path)")
            } else {
                headers.append(try header(argument, what: which))
            }
        }
        if let environment {
            headers += try lines(environment, what: "line %d of \(environmentVariable)")
        }
        return headers
    }

    /// The headers of a file or of THUMBS_HEADER: one per line; blank lines
    /// and lines starting with `#` are skipped; CRLF line ends allowed.
    private static func lines(_ text: String, what: String) throws(RunError) -> [RequestHeader] {
        var headers: [RequestHeader] = []
        // "\r\n" is one Character, and a newline.
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            headers.append(try header(String(line), what: what.replacingOccurrences(of: "%d", with: String(index + 1))))
        }
        return headers
    }

    /// One `NAME: VALUE`, checked: NAME is an HTTP token (RFC 9110), VALUE
    /// has no control characters but tab, and neither is empty.
    static func header(_ text: String, what: String) throws(RunError) -> RequestHeader {
        guard let colon = text.firstIndex(of: ":") else {
            throw .usage("\(what) is not NAME: VALUE (no ':'), e.g. --header 'Authorization: Client-ID KEY'")
        }
        let name = text[..<colon].trimmingCharacters(in: .whitespaces)
        let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { throw .usage("\(what) has no header name before ':'") }
        guard name.unicodeScalars.allSatisfy(isTokenCharacter) else {
            // Not shown: text before a stray ':' may be part of a secret.
            throw .usage("\(what): the text before ':' is not a header name (letters, digits and !#$%&'*+-.^_`|~ only, no spaces)")
        }
        guard !refused.contains(name.lowercased()) else {
            throw .usage("\(what): thumbs sets \(name) itself; it cannot be given with --header")
        }
        guard !value.isEmpty else { throw .usage("\(what): the header \(name) has an empty value") }
        guard value.unicodeScalars.allSatisfy({ $0 == "\t" || ($0.value >= 0x20 && $0.value != 0x7F) }) else {
            throw .usage("\(what): the value of \(name) holds a control character (a line break?)")
        }
        return RequestHeader(name: name, value: value)
    }

    private static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9": true
        default: "!#$%&'*+-.^_`|~".unicodeScalars.contains(scalar)
        }
    }

    private static func ordinal(_ n: Int) -> String {
        switch n {
        case 1: "1st"
        case 2: "2nd"
        case 3: "3rd"
        default: "\(n)th"
        }
    }

    /// The headers as NIO's.
    static func http(_ headers: [RequestHeader]) -> HTTPHeaders {
        HTTPHeaders(headers.map { ($0.name, $0.value) })
    }
}

extension RemoteURL {
    /// `scheme://host:port` in lower case (default ports made explicit), or
    /// nil: two URLs of one origin share it.
    static func origin(of url: String) -> String? {
        guard let parsed = URLComponents(string: url), let scheme = parsed.scheme?.lowercased(),
              let host = parsed.host?.lowercased(), !host.isEmpty else { return nil }
        let port = parsed.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\(host):\(port)"
    }

    /// Query parameters that hold API keys and signatures: their values are
    /// shown as `…` in messages and logs (`client_id=…`).
    static let secretParameters = [
        "client_id", "client_secret", "api_key", "apikey", "api-key", "key", "access_token", "token", "auth",
        "secret", "signature", "sig", "password", "x-api-key",
    ]

    private static let secretPattern: NSRegularExpression = {
        let names = secretParameters.map(NSRegularExpression.escapedPattern(for:)).joined(separator: "|")
        // A parameter starts the query or follows `&` (or `;`).
        return try! NSRegularExpression(pattern: "([?&;](?:\(names)))=[^&;#\\s\"'<>]*", options: [.caseInsensitive])
    }()

    /// `text` (a URL, or a message holding URLs) with the values of API-key
    /// query parameters replaced by `…`, and credentials too
    /// (`withoutCredentials`).
    static func redacted(_ text: String) -> String {
        let text = withoutCredentials(text)
        guard text.contains("=") else { return text }
        let range = NSRange(text.startIndex..., in: text)
        return secretPattern.stringByReplacingMatches(in: text, range: range, withTemplate: "$1=…")
    }

    /// The userinfo of a URL (`user:pass@`, before the host).
    private static let credentialsPattern = try! NSRegularExpression(
        pattern: "([A-Za-z][A-Za-z0-9+.-]*://)[^/?#@\\s\"'<>]+@")

    /// `text` (a URL, or a message holding URLs) with the credentials of
    /// its URLs shown as `…` (`http://…@host/a.jpg`). Everything thumbs
    /// writes or prints says a URL this way: the manifest's `source`,
    /// `download.url` and `meta`, the report, messages and logs. Only the
    /// request itself uses the credentials.
    static func withoutCredentials(_ text: String) -> String {
        guard text.contains("@"), text.contains("://") else { return text }
        let range = NSRange(text.startIndex..., in: text)
        return credentialsPattern.stringByReplacingMatches(in: text, range: range, withTemplate: "$1…@")
    }
}
