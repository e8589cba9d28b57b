import Foundation

/// `thumbs merge MANIFEST... --out DIR [--copy]`: joins the manifests of the
/// shards of one run (`thumbs run --shard I/N`) into DIR/manifest.json, with
/// DIR/stats.json recomputed from the merged items and one DIR/report.html.
///
/// Exit codes: 2 when the manifests are not the complete, consistent shards
/// of one run (`ShardSetCheck`), 3 when the merge cannot go on (a shard still
/// running, a thumbnail a shard lists is missing, DIR not writable).
public struct ThumbsMerge: Sendable {
    /// Manifest paths, or shard folders holding a manifest.json.
    public var manifests: [String]
    public var outputDirectory: String
    /// Copy (hard link where possible) the thumbnails into DIR instead of
    /// referring to them in the shards' folders.
    public var copy: Bool
    public var writeReport: Bool
    public var console: Console

    public init(manifests: [String], outputDirectory: String, copy: Bool = false, writeReport: Bool = true,
                console: Console = .silent) {
        self.manifests = manifests
        self.outputDirectory = outputDirectory
        self.copy = copy
        self.writeReport = writeReport
        self.console = console
    }

    public struct Outcome: Sendable {
        public var manifest: Manifest
        public var statistics: Statistics
        /// The shard count N.
        public var shardCount: Int
        /// Thumbnails placed in DIR with `--copy`.
        public var copiedFiles: Int
    }

    public func run() throws(RunError) -> Outcome {
        var inputs: [ShardInput] = []
        for argument in manifests { inputs.append(try ShardInput.load(argument)) }
        var shards = try ShardSetCheck.check(inputs)
        inputs = []
        let outRoot = RelativePath.absolute(outputDirectory)
        if let clash = shards.first(where: { $0.root == outRoot }) {
            throw .usage("--out \(outputDirectory) is the folder of \(clash.label): choose a new folder for the merged run")
        }
        warnAboutVersions(shards)

        let locks = try ShardLocks(shards)
        defer { withExtendedLifetime(locks) {} }
        try checkOutputsExist(shards)
        let out = try OutputDirectory(path: outputDirectory)
        var copied = 0
        if copy { copied = try copyOutputs(shards, into: out) }

        let sizes = shards[0].manifest.settings.sizes.map(\.label)
        let manifest = ShardMerger.merge(&shards, referencedFrom: copy ? nil : out.root)
        let statistics = Statistics(manifest: manifest)
        try ResultWriter(out: out, writeReport: writeReport).write(manifest, statistics, what: "merged manifest")
        summarise(statistics, shardCount: shards.count, sizes: sizes, out: out, copied: copied)
        return Outcome(manifest: manifest, statistics: statistics, shardCount: shards.count, copiedFiles: copied)
    }

    /// Every thumbnail a shard lists must be there, or the merged report and
    /// `thumbs verify` would point at nothing.
    private func checkOutputsExist(_ shards: [ShardInput]) throws(RunError) {
        var missing: [(ShardInput, String)] = []
        for shard in shards {
            for item in shard.manifest.items {
                for output in item.outputs {
                    let path = shard.root + "/" + output.path
                    if FileInfo.of(path)?.kind != .regular { missing.append((shard, path)) }
                }
            }
        }
        guard let (shard, path) = missing.first else { return }
        let more = missing.count > 1 ? " and \(missing.count - 1) more" : ""
        throw .fatal("\(path) listed by \(shard.label) is missing\(more): "
                     + "run that shard again with the same command (it remakes missing thumbnails), then merge")
    }

    /// Hard links (or copies, across file systems) every thumbnail to the same
    /// relative path in DIR, atomically.
    private func copyOutputs(_ shards: [ShardInput], into out: OutputDirectory) throws(RunError) -> Int {
        var count = 0
        for shard in shards {
            for item in shard.manifest.items {
                for output in item.outputs {
                    do {
                        try OutputLinker.link(shard.root + "/" + output.path, to: out.absolute(output.path), writer: out.writer)
                    } catch {
                        throw .fatal("cannot copy a thumbnail of \(shard.label) into \(out.root): \(error.message)")
                    }
                    count += 1
                }
            }
        }
        return count
    }

    /// Shards made by different versions of thumbs or libvips may encode
    /// thumbnails differently; the merge goes on, but says so.
    private func warnAboutVersions(_ shards: [ShardInput]) {
        let versions = Set(shards.map { "thumbs \($0.manifest.tool.version), libvips \($0.manifest.tool.libvips)" })
        guard versions.count > 1 else { return }
        console.event("mixed-versions", level: .warning,
                      "the shards were made with different versions (\(versions.sorted().joined(separator: "; "))): "
                        + "their thumbnails may differ from what one run would make",
                      fields: ["versions": .array(versions.sorted().map(JSONValue.string))])
    }

    private func summarise(_ stats: Statistics, shardCount: Int, sizes: [String], out: OutputDirectory, copied: Int) {
        let c = stats.counts
        var lines = [
            "merged \(shardCount) shards: \(c.ok) ok, \(c.unchanged) unchanged, \(c.duplicate) duplicate, \(c.failed) failed"
                + " of \(c.discovered) images (\(c.ignored) other files ignored)",
        ]
        if copy {
            lines.append("\(copied) thumbnails copied into \(out.root)/{\(sizes.joined(separator: ","))}/")
        } else {
            lines.append("thumbnails stay in the shards' folders; manifest and report refer to them relatively (--copy copies them)")
        }
        lines.append("manifest \(out.manifestPath), stats \(out.statsPath)" + (writeReport ? ", report \(out.reportPath)" : ""))
        console.summary(lines)
        console.event("merged", level: console.format == .json ? .info : .debug,
                      "merged \(shardCount) shards into \(out.root)",
                      fields: ["shards": .number(Double(shardCount)), "discovered": .number(Double(c.discovered)),
                               "ok": .number(Double(c.ok)), "unchanged": .number(Double(c.unchanged)),
                               "duplicate": .number(Double(c.duplicate)), "failed": .number(Double(c.failed)),
                               "copied": .number(Double(copied)), "manifest": .string(out.manifestPath)])
    }
}
