import Foundation

/// `thumbs verify MANIFEST [--against BASELINE]`: the outputs on disk against
/// the manifest, and optionally the manifest and its outputs against a
/// baseline run's.
public struct ManifestVerifier: Sendable {
    public var manifestPath: String
    /// A baseline run's folder, or its manifest with the outputs beside it.
    public var baselinePath: String?
    public var limits: DifferenceLimits
    /// `--diff DIR`: a side-by-side image per changed output, and index.html.
    public var diffFolder: String?

    public init(manifestPath: String, baselinePath: String? = nil, limits: DifferenceLimits = DifferenceLimits(),
                diffFolder: String? = nil) {
        self.manifestPath = manifestPath
        self.baselinePath = baselinePath
        self.limits = limits
        self.diffFolder = diffFolder
    }

    /// Items checked at once (spread over the cores by `OutputCheck`).
    static let batch = 256

    /// Throws `usage` (exit 2) when a manifest cannot be read or is not one.
    ///
    /// Both manifests are read item by item (`ManifestSource`): the
    /// baseline's items are indexed by id in SQLite (`PreviousIndex`, in
    /// memory for a small baseline, else a file of a scratch folder removed
    /// at the end), and each item of this manifest, read in batches, looks up
    /// its baseline record there. Memory holds a batch and the findings,
    /// never a manifest: a million items cost what ten thousand do.
    public func run() throws(RunError) -> VerifyResult {
        let source = try ManifestSource.open(manifestPath)
        let baseline = try baselinePath.map { path throws(RunError) in try BaselineLocation(path) }
        let scratch = BaselineScratch()
        defer { scratch.remove() }
        let index = try baseline.map { place throws(RunError) in try scratch.index(of: place.manifest) }
        try VipsRuntime.start()
        let root = Self.folder(of: manifestPath)
        let check = OutputCheck(manifest: source.header, root: root)
        var diff: DiffWriter?
        if baseline != nil, let diffFolder { diff = try DiffWriter(folder: diffFolder) }
        let comparison = index.map { index in
            BaselineComparison(current: source.header, baseline: index.header,
                               pixels: PixelComparison(root: root, baselineRoot: baseline!.root, limits: limits, diff: diff))
        }
        var findings: [VerifyFinding] = []
        // Compared by eye, the outputs say what other settings changed (a
        // --quality of a few points passes, a lost orientation does not):
        // the settings themselves are a note, not a finding.
        let notes = comparison.map { BaselineComparison.settingsFindings($0.current.settings, $0.baseline.settings).map(\.message) } ?? []
        var items = 0, outputs = 0
        var read = SourceReadTally(), downloaded = SourceReadTally()
        var batch: [ManifestItem] = []
        batch.reserveCapacity(Self.batch)
        func flush() {
            findings += check.findings(for: batch)
            if let comparison, let index {
                for item in batch {
                    guard let old = index.records.record(for: item.id) else {
                        findings.append(BaselineComparison.added(item))
                        continue
                    }
                    comparison.compare(item, with: old, into: &findings)
                }
            }
            batch.removeAll(keepingCapacity: true)
        }
        let cursor = source.items()
        while let item = try cursor.next() {
            items += 1
            outputs += item.outputs.count
            SourceReadTally.add(item, files: &read, downloads: &downloaded)
            batch.append(item)
            if batch.count == Self.batch { flush() }
        }
        flush()
        if let index {
            for id in index.records.unseen() {
                if let old = index.records.record(for: id) { findings.append(BaselineComparison.missing(old)) }
            }
        }
        if let baseline { try diff?.finish(baseline: baseline.manifest, limits: limits) }
        var result = VerifyResult(manifest: manifestPath, baseline: baseline?.manifest, items: items,
                                  outputs: outputs, findings: findings, maxDifference: baseline == nil ? nil : limits.maxDifference)
        result.notes = notes
        result.read = read.items > 0 ? read : nil
        result.download = downloaded.items > 0 ? downloaded : nil
        return result
    }

    /// The folder a manifest's output paths are relative to.
    static func folder(of manifestPath: String) -> String {
        let folder = (manifestPath as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
    }
}

/// Where a baseline lies: `--against` names its folder (the manifest is
/// `manifest.json` in it) or its manifest (the outputs beside it).
public struct BaselineLocation: Sendable, Equatable {
    public var manifest: String
    /// The baseline's folder: its output paths are relative to it, and
    /// nothing outside it is read (or, with `--update`, written).
    public var root: String

    public init(_ path: String) throws(RunError) {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw .usage("baseline \(path) does not exist: give a baseline run's folder or its manifest.json")
        }
        if isFolder.boolValue {
            let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
            manifest = trimmed + "/manifest.json"
            root = trimmed
        } else {
            manifest = path
            root = ManifestVerifier.folder(of: path)
        }
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
    /// `--max-difference` of the comparison with the baseline; the findings
    /// `changed-pixels` carry their measures (`difference`).
    public var maxDifference: Double?
    public var findings: [VerifyFinding]
    /// What verify saw that is not a finding (the settings of a baseline
    /// compared by eye): printed before the count line, never exit 1.
    public var notes: [String] = []
    /// File sources' bytes read against their sizes, and downloads' bytes
    /// received against theirs (nil when there are none).
    public var read: SourceReadTally?
    public var download: SourceReadTally?

    public init(manifest: String, baseline: String?, items: Int, outputs: Int, findings: [VerifyFinding],
                maxDifference: Double? = nil) {
        self.manifest = manifest
        self.baseline = baseline
        self.items = items
        self.outputs = outputs
        self.findings = findings
        self.maxDifference = maxDifference
    }

    public var isClean: Bool { findings.isEmpty }

    /// Exit 1 on any finding, 0 when clean.
    public var exitStatus: ExitStatus { isClean ? .success : .failures }

    /// One line per finding, each note, then the count line.
    public var lines: [String] { findings.map(\.line) + notes.map { "note: " + VerifyFinding.oneLine($0) } + [summary] }

    public var summary: String {
        let checked = "\(items) item\(items == 1 ? "" : "s"), \(outputs) output\(outputs == 1 ? "" : "s") checked"
            + (read.map { "; " + $0.text("read") } ?? "") + (download.map { "; " + $0.text("downloaded") } ?? "")
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
