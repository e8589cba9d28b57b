/// Text that must be shown, never obeyed.
public enum TestText {
    /// Every Unicode bidi control: embeddings, overrides, isolates and marks.
    public static let bidiControls: [Unicode.Scalar] = [
        "\u{202A}", "\u{202B}", "\u{202C}", "\u{202D}", "\u{202E}",
        "\u{2066}", "\u{2067}", "\u{2068}", "\u{2069}", "\u{200E}", "\u{200F}", "\u{061C}",
    ]
}
