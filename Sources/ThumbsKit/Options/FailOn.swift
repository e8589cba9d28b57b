/// `--fail-on`: how strict decoding is (libvips `fail_on`). It travels in
/// `DecodeLimits`, not in `OutputSettings`.
public enum FailOn: String, Sendable, Codable, CaseIterable {
    /// Decode what can be decoded, never fail on damage.
    case none
    /// Fail on truncated images only.
    case truncated
    /// Fail on any decoder error.
    case error
}
