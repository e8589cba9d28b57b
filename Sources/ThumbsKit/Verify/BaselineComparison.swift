import Foundation

/// Compares a manifest with a baseline manifest, item by item (by id): items
/// added or missing, status changes, source and output dimension changes,
/// each output's pixels against the baseline's (`PixelComparison`, when the
/// outputs are at hand), and, for an output whose pixels were not compared,
/// a size that moved by more than `sizeTolerance`.
///
/// Output hashes are deliberately not compared: a new libvips or libjpeg
/// changes bytes without changing what a person sees, and CI should not fail
/// for that. Statuses are compared as "has its thumbnails" (`ok`,
/// `unchanged`, `duplicate`) or "failed, with this code": an incremental
/// re-run reports `unchanged` for the very same thumbnail, and which of two
/// identical files is the `duplicate` depends only on their order.
public struct BaselineComparison: Sendable {
    public var current: Manifest
    public var baseline: Manifest
    /// Relative change in output bytes tolerated (0.10 = 10%).
    public var sizeTolerance: Double
    /// Compares the pixels of outputs of equal dimensions, when the outputs
    /// are at hand (nil: the manifests alone are compared).
    var pixels: PixelComparison?

    public init(current: Manifest, baseline: Manifest, sizeTolerance: Double = 0.10) {
        self.current = current
        self.baseline = baseline
        self.sizeTolerance = sizeTolerance
    }

    init(current: Manifest, baseline: Manifest, pixels: PixelComparison?) {
        self.init(current: current, baseline: baseline)
        self.pixels = pixels
    }

    public func run() -> [VerifyFinding] {
        var findings = Self.settingsFindings(current.settings, baseline.settings)
        let before = Dictionary(baseline.items.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var seen = Set<String>()
        seen.reserveCapacity(current.items.count)
        for item in current.items where seen.insert(item.id).inserted {
            guard let old = before[item.id] else {
                findings.append(Self.added(item))
                continue
            }
            compare(item, with: old, into: &findings)
        }
        for old in baseline.items where !seen.contains(old.id) {
            seen.insert(old.id)
            findings.append(Self.missing(old))
        }
        return findings
    }

    /// One finding when the settings differ, none when they are the same.
    static func settingsFindings(_ current: OutputSettings, _ baseline: OutputSettings) -> [VerifyFinding] {
        guard current != baseline else { return [] }
        return [VerifyFinding(.settingsChanged, id: "",
                              "settings differ from the baseline: \(describe(baseline)) → \(describe(current))")]
    }

    static func added(_ item: ManifestItem) -> VerifyFinding {
        VerifyFinding(.added, id: item.id, "new item (\(item.status.rawValue)), not in the baseline")
    }

    static func missing(_ old: ManifestItem) -> VerifyFinding {
        VerifyFinding(.missing, id: old.id, "in the baseline (\(old.status.rawValue)) but not in this manifest")
    }

    /// The findings of one item against its baseline record.
    func compare(_ item: ManifestItem, with old: ManifestItem, into findings: inout [VerifyFinding]) {
        if Self.statusClass(item) != Self.statusClass(old) {
            var message = "status \(Self.statusClass(old)) → \(Self.statusClass(item))"
            if let error = item.error { message += " (\(error.message))" }
            findings.append(VerifyFinding(.statusChanged, id: item.id, message))
        }
        // A failed item has no outputs and maybe no dimensions: its status
        // change says it all.
        guard item.status != .failed, old.status != .failed else { return }
        if let w = item.width, let h = item.height, let ow = old.width, let oh = old.height, (w, h) != (ow, oh) {
            findings.append(VerifyFinding(.sourceDimensionsChanged, id: item.id, "source is \(w)×\(h), was \(ow)×\(oh)"))
        }
        let now = Dictionary(item.outputs.map { ($0.size, $0) }, uniquingKeysWith: { first, _ in first })
        let then = Dictionary(old.outputs.map { ($0.size, $0) }, uniquingKeysWith: { first, _ in first })
        for output in old.outputs {
            guard let new = now[output.size] else {
                findings.append(VerifyFinding(.outputMissing, id: item.id, path: output.path,
                                              "no output for size \(output.size) (baseline had \(output.path))"))
                continue
            }
            var judged = false
            if (new.width, new.height) != (output.width, output.height) {
                findings.append(VerifyFinding(.outputDimensionsChanged, id: item.id, path: new.path,
                    "\(new.path) is \(new.width)×\(new.height), was \(output.width)×\(output.height)"))
            } else if let pixels {
                let verdict = pixels.compare(new, with: output, of: item.id)
                findings += verdict.findings
                judged = verdict.judged
            }
            // A file's size stands in for its pixels only where they were
            // not looked at: a --quality change moves sizes by more than 10%
            // and is rightly passed by eye.
            if !judged, changedBeyondTolerance(new.bytes, output.bytes) {
                findings.append(VerifyFinding(.outputSizeChanged, id: item.id, path: new.path,
                    "\(new.path) is \(new.bytes) bytes, was \(output.bytes) (\(Self.percent(new.bytes, output.bytes)), more than \(Int((sizeTolerance * 100).rounded()))%)"))
            }
        }
        for output in item.outputs where then[output.size] == nil {
            findings.append(VerifyFinding(.outputAdded, id: item.id, path: output.path,
                                          "new output for size \(output.size) (\(output.path)), not in the baseline"))
        }
    }

    func changedBeyondTolerance(_ new: Int64, _ old: Int64) -> Bool {
        guard old > 0 else { return new != old }
        return abs(Double(new - old)) > sizeTolerance * Double(old)
    }

    static func percent(_ new: Int64, _ old: Int64) -> String {
        guard old > 0 else { return "was empty" }
        let change = (Double(new) - Double(old)) / Double(old) * 100
        return (change >= 0 ? "+" : "") + String(format: "%.0f%%", change)
    }

    /// `ok` for every status with thumbnails, `failed (code)` otherwise.
    static func statusClass(_ item: ManifestItem) -> String {
        guard item.status == .failed else { return ItemStatus.ok.rawValue }
        return "failed (\(item.error?.code ?? "no code"))"
    }

    /// The settings as the options that would produce them.
    static func describe(_ s: OutputSettings) -> String {
        var parts = s.sizes.map { "--size \($0.label)" }
        parts.append("--fit \(s.fit.rawValue)")
        if s.fit == .cover { parts.append("--crop \(s.crop.rawValue)") }
        if s.enlarge { parts.append("--enlarge") }
        parts.append("--format \(s.format.rawValue)")
        parts.append("--quality \(s.quality)")
        if s.keepMetadata { parts.append("--keep-metadata") }
        return parts.joined(separator: " ")
    }
}
