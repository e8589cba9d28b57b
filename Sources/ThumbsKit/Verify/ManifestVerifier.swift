import Foundation

/// `thumbs verify MANIFEST [--against BASELINE]`: the outputs on disk against
/// the manifest, and optionally the manifest against a baseline.
public struct ManifestVerifier: Sendable {
    public var manifestPath: String
    public var baselinePath: String?

    public init(manifestPath: String, baselinePath: String? = nil) {
        self.manifestPath = manifestPath
        self.baselinePath = baselinePath
    }

    /// Throws `usage` (exit 2) when a manifest cannot be read or is not one.
    public func run() throws(RunError) -> VerifyResult {
        let manifest = try JSONCoding.readManifest(at: manifestPath)
        let baseline = try baselinePath.map { path throws(RunError) in try JSONCoding.readManifest(at: path) }
        try VipsRuntime.start()
        let root = (manifestPath as NSString).deletingLastPathComponent
        let disk = OutputCheck(manifest: manifest, root: root.isEmpty ? "." : root).run()
        var findings = disk.findings
        if let baseline {
            findings += BaselineComparison(current: manifest, baseline: baseline).run()
        }
        return VerifyResult(manifest: manifestPath, baseline: baselinePath, items: manifest.items.count,
                            outputs: disk.outputs, findings: findings)
    }
}

/// What `verify` found, printable as lines or as JSON (`--json`).
public struct VerifyResult: Sendable, Codable, Equatable {
    public static let schemaName = "thumbs.verify/1"

    public var schema: String = VerifyResult.schemaName
    public var manifest: String
    public var baseline: String?
    /// Items in the manifest and outputs checked on disk.
    public var items: Int
    public var outputs: Int
    public var findings: [VerifyFinding]

    public init(manifest: String, baseline: String?, items: Int, outputs: Int, findings: [VerifyFinding]) {
        self.manifest = manifest
        self.baseline = baseline
        self.items = items
        self.outputs = outputs
        self.findings = findings
    }

    public var isClean: Bool { findings.isEmpty }

    /// Exit 1 on any finding, 0 when clean.
    public var exitStatus: ExitStatus { isClean ? .success : .failures }

    /// One line per finding, then the count line.
    public var lines: [String] { findings.map(\.line) + [summary] }

    public var summary: String {
        let checked = "\(items) item\(items == 1 ? "" : "s"), \(outputs) output\(outputs == 1 ? "" : "s") checked"
        let against = baseline.map { " against \($0)" } ?? ""
        guard !isClean else {
            return "verify: ok, \(checked)" + (baseline == nil ? "" : ", no differences from \(baseline!)")
        }
        let fromBaseline = findings.filter(\.kind.isBaseline).count
        let onDisk = findings.count - fromBaseline
        var parts: [String] = []
        if onDisk > 0 { parts.append("\(onDisk) in the outputs") }
        if fromBaseline > 0 { parts.append("\(fromBaseline)\(against)") }
        return "verify: \(findings.count) finding\(findings.count == 1 ? "" : "s") (\(parts.joined(separator: ", "))), \(checked)"
    }
}
