import Foundation

/// `thumbs verify`: every placeholder, colour and hash in the manifest is
/// well-formed, so that an app reading them can decode each one.
enum PlaceholderCheck {
    /// One finding per malformed field of `item`.
    static func findings(_ item: ManifestItem) -> [VerifyFinding] {
        var findings: [VerifyFinding] = []
        if let placeholder = item.placeholder {
            if let problem = thumbHashProblem(placeholder.thumbhash) {
                findings.append(VerifyFinding(.badPlaceholder, id: item.id, "placeholder.thumbhash \(problem)"))
            }
            if let problem = blurHashProblem(placeholder.blurhash) {
                findings.append(VerifyFinding(.badPlaceholder, id: item.id, "placeholder.blurhash \(problem)"))
            }
        }
        if let color = item.color, ReportWriter.safeColour(color) == nil {
            findings.append(VerifyFinding(.badPlaceholder, id: item.id, "color \(quoted(color)) is not #rrggbb (lower-case hex)"))
        }
        if let phash = item.phash, PerceptualHash.parse(phash) == nil {
            findings.append(VerifyFinding(.badPlaceholder, id: item.id, "phash \(quoted(phash)) is not 16 hex digits"))
        }
        return findings
    }

    /// A ThumbHash is standard base64: a 24-bit and a 16-bit header (and
    /// one more byte with alpha), then 4-bit AC coefficients; at most a few
    /// dozen bytes in all.
    static func thumbHashProblem(_ text: String) -> String? {
        guard let bytes = Data(base64Encoded: text), bytes.count >= 5 else {
            return "\(quoted(text)) is not base64 of a ThumbHash (5 bytes or more)"
        }
        let hasAlpha = bytes[2] & 0x80 != 0
        guard bytes.count >= (hasAlpha ? 6 : 5) + 1, bytes.count <= 64 else {
            return "is \(bytes.count) bytes, not the length of a ThumbHash"
        }
        return nil
    }

    static let base83 = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~".utf8)

    /// A BlurHash is base83: one character for the component counts, one
    /// for the maximum AC value, four for DC, two per AC component.
    static func blurHashProblem(_ text: String) -> String? {
        let chars = Array(text.utf8)
        guard chars.count >= 6, chars.allSatisfy({ base83.contains($0) }), let first = base83.firstIndex(of: chars[0]) else {
            return "\(quoted(text)) is not a BlurHash (base83, 6 characters or more)"
        }
        let cx = first % 9 + 1, cy = first / 9 + 1
        guard chars.count == 4 + 2 * cx * cy else {
            return "has \(chars.count) characters; \(cx)×\(cy) components need \(4 + 2 * cx * cy)"
        }
        return nil
    }

    private static func quoted(_ text: String) -> String {
        "\"" + VerifyFinding.oneLine(String(text.prefix(40))) + (text.count > 40 ? "…" : "") + "\""
    }
}
