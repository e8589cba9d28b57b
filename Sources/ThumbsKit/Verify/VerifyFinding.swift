/// One problem `thumbs verify` found: an output that does not match its
/// manifest, or a difference from the baseline manifest.
public struct VerifyFinding: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        // The manifest against the files on disk.
        case missingOutput = "missing-output"
        /// An output path that leads outside the manifest's folder (`..`,
        /// absolute, or through a symbolic link): reported, never opened.
        case outsideFolder = "outside-folder"
        case sizeMismatch = "size-mismatch"
        case hashMismatch = "hash-mismatch"
        case unreadableOutput = "unreadable-output"
        case dimensionMismatch = "dimension-mismatch"
        case outsideBox = "outside-box"
        case missingSize = "missing-size"
        case unknownSize = "unknown-size"
        case badPlaceholder = "bad-placeholder"
        // The manifest against a baseline manifest.
        case settingsChanged = "settings-changed"
        case added
        case missing
        case statusChanged = "status-changed"
        case sourceDimensionsChanged = "source-dimensions-changed"
        case outputAdded = "output-added"
        case outputMissing = "output-missing"
        case outputDimensionsChanged = "output-dimensions-changed"
        case outputSizeChanged = "output-size-changed"
        /// The output looks different from the baseline's (`PixelDifference`
        /// beyond `DifferenceLimits`).
        case changedPixels = "changed-pixels"
        /// The baseline's output of the same item and size cannot be
        /// compared: not there, not readable, leading outside the baseline's
        /// folder, or of other dimensions than its manifest says.
        case baselineMissingOutput = "baseline-missing-output"
        case baselineUnreadableOutput = "baseline-unreadable-output"
        case baselineOutsideFolder = "baseline-outside-folder"
        case baselineDimensionMismatch = "baseline-dimension-mismatch"

        /// True for findings that come from comparing with a baseline.
        public var isBaseline: Bool {
            switch self {
            case .missingOutput, .outsideFolder, .sizeMismatch, .hashMismatch, .unreadableOutput, .dimensionMismatch,
                 .outsideBox, .missingSize, .unknownSize, .badPlaceholder:
                false
            default:
                true
            }
        }
    }

    public var kind: Kind
    /// The item's id (empty for findings about the whole manifest).
    public var id: String
    /// The output's path relative to OUT, when the finding is about one output.
    public var path: String?
    /// The output's size label (`256`, `100x40`), for findings about one
    /// output compared with the baseline's.
    public var size: String?
    public var message: String
    /// The measures, for `changed-pixels`.
    public var difference: PixelDifference?

    public init(_ kind: Kind, id: String, path: String? = nil, size: String? = nil, _ message: String,
                difference: PixelDifference? = nil) {
        self.kind = kind
        self.id = id
        self.path = path
        self.size = size
        self.message = message
        self.difference = difference
    }

    /// One line for a terminal or a CI log. Ids come from file names and
    /// lists, so control characters are escaped: a finding stays one line.
    public var line: String {
        let label = kind.rawValue.padding(toLength: VerifyFinding.kindWidth, withPad: " ", startingAt: 0)
        let sized = size.map { " " + VerifyFinding.oneLine($0) } ?? ""
        let subject = id.isEmpty ? "" : VerifyFinding.oneLine(id) + sized + ": "
        return label + " " + subject + VerifyFinding.oneLine(message)
    }

    static let kindWidth = Kind.allCases.map(\.rawValue.count).max() ?? 0

    /// Replaces control characters by visible escapes (`\n`, `\u{1b}`), and
    /// bidirectional controls by `<U+202E>` (`VisibleText`), so that a name
    /// can neither break the line nor read backwards.
    static func oneLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || VisibleText.isBidiControl($0) })
        else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if VisibleText.isBidiControl(scalar) {
                    out += VisibleText.codePoint(scalar)
                } else if scalar.properties.generalCategory == .control {
                    out += "\\u{" + String(scalar.value, radix: 16) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
