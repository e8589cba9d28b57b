import Foundation

/// Keeps an item's error message readable: about 300 characters at most.
///
/// Decoders can be chatty: one damaged TIFF made libtiff emit thousands of
/// near-identical warnings, and the item's message grew to 10,000 characters
/// in the manifest and on the terminal. A message is split into its parts
/// (lines, or the `; ` that `VipsErrorBuffer` joins lines with);
/// repeated parts, and parts that differ only in their numbers ("tag 33000",
/// "tag 33001"), are folded into the first with a count (`(×12)`); the first
/// part is always kept, and when the rest does not fit, the message says how
/// many parts were left out.
public enum MessageFolding {
    /// The longest message kept, in characters.
    public static let limit = 300

    public static func fold(_ message: String) -> String {
        if message.count <= limit && !message.contains(where: \.isNewline) { return message }
        let parts = split(message)
        guard !parts.isEmpty else { return "" }

        // Fold parts that repeat (exactly, or but for their numbers).
        var groups: [(text: String, count: Int, identical: Bool)] = []
        var index: [String: Int] = [:]
        for part in parts {
            let key = shape(of: part)
            if let at = index[key] {
                groups[at].count += 1
                if part != groups[at].text { groups[at].identical = false }
            } else {
                index[key] = groups.count
                groups.append((part, 1, true))
            }
        }
        let shown = groups.map { group in
            group.count == 1 ? group.text : "\(group.text) (×\(group.count)\(group.identical ? "" : " alike"))"
        }

        var out = cut(shown[0], to: limit)
        var kept = 1
        for text in shown.dropFirst() {
            let remaining = shown.count - kept - 1
            let tail = remaining > 0 ? tailNote(remaining) : ""
            if (out + "; " + text + tail).count > limit { break }
            out += "; " + text
            kept += 1
        }
        let dropped = shown.count - kept
        if dropped > 0 {
            let note = tailNote(dropped)
            if out.count + note.count > limit { out = cut(out, to: limit - note.count) }
            out += note
        }
        return out
    }

    private static func tailNote(_ dropped: Int) -> String {
        "; … \(dropped) more message\(dropped == 1 ? "" : "s") left out"
    }

    /// The parts of a message: its lines, each split at "; ", trimmed.
    static func split(_ message: String) -> [String] {
        var parts: [String] = []
        for line in message.split(whereSeparator: \.isNewline) {
            for piece in line.split(separator: "; ", omittingEmptySubsequences: true) {
                let trimmed = piece.trimmingCharacters(in: .whitespaces)
                if !trimmed.isEmpty { parts.append(trimmed) }
            }
        }
        return parts
    }

    /// A part with every run of digits (decimal or hex after `0x`) replaced
    /// by `#`: parts that differ only in numbers fold together.
    static func shape(of part: String) -> String {
        var out = ""
        var inNumber = false
        for character in part {
            if character.isASCII && (character.isNumber || (inNumber && character.isHexDigit) || (inNumber && character == "x")) {
                if !inNumber { out.append("#") }
                inNumber = true
            } else {
                out.append(character)
                inNumber = false
            }
        }
        return out
    }

    /// `text` cut to at most `length` characters, ending in "…" when cut.
    static func cut(_ text: String, to length: Int) -> String {
        guard text.count > length else { return text }
        return String(text.prefix(max(0, length - 1))) + "…"
    }
}
