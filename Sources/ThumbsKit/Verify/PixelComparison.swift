import Foundation

/// Compares one output with the baseline's output of the same item and
/// size, by eye (`PixelDifference`): both read only as regular files inside
/// their own folder (`ContainedFile`), decoded by libvips to sRGB.
///
/// The new output's own problems (missing, unreadable, outside OUT) are
/// `OutputCheck`'s findings: here it is then simply not compared. The
/// baseline's are findings of their own, since the baseline is as untrusted
/// as any manifest: a baseline output that is missing, unreadable, of other
/// dimensions or outside the baseline's folder is reported, never followed.
struct PixelComparison: Sendable {
    /// Folders the two manifests' output paths are relative to.
    var root: String
    var baselineRoot: String
    var limits: DifferenceLimits
    /// Where each changed output's side-by-side image goes (`--diff`).
    var diff: DiffWriter?

    /// What the comparison of one output says.
    struct Verdict: Sendable {
        var findings: [VerifyFinding] = []
        /// The two outputs were looked at (the same bytes, or both decoded
        /// at one size and measured): their pixels are the verdict, and the
        /// size of their files says nothing more.
        var judged = false
    }

    func compare(_ new: ManifestOutput, with old: ManifestOutput, of id: String) -> Verdict {
        func finding(_ kind: VerifyFinding.Kind, _ message: String, _ difference: PixelDifference? = nil) -> Verdict {
            Verdict(findings: [VerifyFinding(kind, id: id, path: new.path, size: new.size, message, difference: difference)])
        }
        guard let newBytes = try? ContainedFile.read(new.path, under: root) else { return Verdict() }
        let oldBytes: Data
        do {
            oldBytes = try ContainedFile.read(old.path, under: baselineRoot)
        } catch {
            switch error {
            case .outside:
                return finding(.baselineOutsideFolder, "the baseline's \(old.path) leads outside the baseline's folder, so verify does not open it")
            case .link(let link):
                return finding(.baselineOutsideFolder, (link == old.path ? "the baseline's \(old.path) is a symbolic link" : "the baseline's \(old.path) goes through the symbolic link \(link)")
                               + ", and verify follows no link: it is not opened")
            case .missing:
                return finding(.baselineMissingOutput, "the baseline's \(old.path) does not exist: \(new.path) is not compared")
            case .notRegular(let kind):
                return finding(.baselineUnreadableOutput, "the baseline's \(old.path) is a \(kind), not a regular file: it is not read")
            case .unreadable(let reason):
                return finding(.baselineUnreadableOutput, "the baseline's \(old.path) cannot be read: \(reason)")
            }
        }
        // The same bytes decode to the same pixels: most outputs of a CI
        // run, which then cost a read and no decode.
        guard newBytes != oldBytes else { return Verdict(judged: true) }
        guard let current = try? SRGBPixels.decode(newBytes) else { return Verdict() }
        let baseline: SRGBPixels
        do {
            baseline = try SRGBPixels.decode(oldBytes)
        } catch {
            return finding(.baselineUnreadableOutput, "the baseline's \(old.path) does not decode: \(error.message)")
        }
        guard baseline.width == current.width, baseline.height == current.height,
              let (difference, map) = PixelDifference.measure(baseline, current, keepMap: diff != nil)
        else {
            return finding(.baselineDimensionMismatch,
                           "the baseline's \(old.path) is \(baseline.width)×\(baseline.height), \(new.path) is \(current.width)×\(current.height): not compared")
        }
        guard limits.exceeded(by: difference) else { return Verdict(judged: true) }
        var result = finding(.changedPixels, limits.describe(difference), difference)
        result.judged = true
        if let diff, let map {
            if let problem = diff.write(id: id, output: new, baseline: baseline, current: current, map: map, difference: difference) {
                result.findings[0].message += " (no diff image: \(problem))"
            }
        }
        return result
    }
}
