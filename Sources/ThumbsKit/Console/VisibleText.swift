/// Characters that change how text around them is shown without being seen
/// themselves, written out as visible text (`<U+202E>`) where a person reads
/// names that came from file systems and photo lists.
///
/// Bidirectional controls are the reason: U+202E (RIGHT-TO-LEFT OVERRIDE) in
/// `photo\u{202E}gpj.exe` shows as `photoexe.jpg`. In a terminal, C0 and C1
/// controls are the same kind of risk: ESC starts an escape sequence, CR
/// overwrites the start of the line, a newline forges a second log line.
public enum VisibleText {
    /// Whether `scalar` is one of the Unicode bidirectional formatting
    /// controls: LRE, RLE, PDF, LRO, RLO (U+202A–U+202E), the isolates
    /// LRI, RLI, FSI, PDI (U+2066–U+2069), the marks LRM, RLM (U+200E, U+200F)
    /// and ALM (U+061C).
    public static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: true
        default: false
        }
    }

    /// Whether a terminal line must not contain `scalar` as it is: C0 and C1
    /// controls, DEL, and the bidirectional controls.
    public static func isHiddenInTerminal(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || isBidiControl(scalar)
    }

    /// The visible stand-in for a scalar: `<U+202E>`, `<U+001B>`.
    public static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "<U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + ">"
    }

    /// `text` for one terminal line: every control character and bidi
    /// control written as `<U+XXXX>`.
    public static func forTerminal(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isHiddenInTerminal) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isHiddenInTerminal(scalar) {
                out.append(contentsOf: codePoint(scalar).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }
}
