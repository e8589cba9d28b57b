import Foundation

/// `thumbs merge MANIFEST... --out DIR [--copy]`: joins the manifests of the
/// shards of one run (`thumbs run --shard I/N`) into DIR/manifest.json, with
/// DIR/stats.json recomputed from the merged items and one DIR/report.html.
///
/// Exit codes: 2 when the manifests are not the complete, consistent shards
/// of one run (`ShardSetCheck`), or with `--copy` when a shard's thumbnail is
/// a link, not a regular file, or not the bytes its manifest records; 3 when
/// the merge cannot go on (a shard still running, a thumbnail a shard lists
/// is missing, DIR not writable).
public struct ThumbsMerge: Sendable {
    /// Manifest paths, or shard folders holding a manifest.json.
    public var manifests: [String]
    public var outputDirectory: String
    /// Copy (hard link where possible) the thumbnails into DIR — regular
    /// files inside each shard's folder only, each checked against its
    /// hash — instead of referring to them in the shards' folders.
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
        /// The merged manifest without its items (a merge of millions never
        /// holds them): read OUT/manifest.json for those.
        public var header: Manifest
        public var statistics: Statistics
        /// The shard count N.
        public var shardCount: Int
        /// Thumbnails placed in DIR with `--copy`.
        public var copiedFiles: Int
    }

    /// Streams: the shards' manifests are read item by item (`ManifestSource`)
    /// in two passes over the merged order (`MergedStream`): one that checks
    /// and indexes (`MergeCheckPass`: `MergeIndex`, `LookalikeSpill`, both
    /// under OUT/.thumbs/), one that writes (`MergedManifestWriter`); the
    /// report reads the merged manifest back the same way. Memory holds a
    /// batch of items per shard and SQLite's capped page cache, whatever
    /// the number of items.
    public func run() throws(RunError) -> Outcome {
        // Lock every shard's folder first, then read: a shard still running
        // is refused before a byte of its manifest is read.
        let locations = manifests.map(ShardInput.Location.init)
        let locks = try ShardLocks(locations)
        defer { withExtendedLifetime(locks) {} }
        var inputs: [ShardInput] = []
        for location in locations { inputs.append(try location.load()) }
        let checked = try ShardSetCheck.check(inputs)
        inputs = []
        let shards = checked.shards
        let outRoot = RelativePath.absolute(outputDirectory)
        if let clash = shards.first(where: { $0.root == outRoot }) {
            throw .usage("--out \(outputDirectory) is the folder of \(clash.label): choose a new folder for the merged run")
        }
        warnAboutVersions(shards)

        let existed = FileInfo.of(outRoot) != nil
        let out = try OutputDirectory(path: outputDirectory)
        let index: MergeIndex
        let spill: LookalikeSpill
        do {
            index = try MergeIndex(stateDirectory: out.stateDirectory)
            spill = try LookalikeSpill(folder: out.stateDirectory)
        } catch {
            Self.removeIfMadeHere(out, existed: existed)
            throw error
        }
        defer { index.remove() }
        do {
            try MergeCheckPass.run(checked, index: index, spill: spill)
            if copy { try checkCopiesMatch(shards) }
        } catch {
            index.remove()
            Self.removeIfMadeHere(out, existed: existed)
            throw error
        }
        var copied = 0
        if copy { copied = try copyOutputs(shards, into: out) }

        let sizes = shards[0].manifest.settings.sizes.map(\.label)
        let header = ShardMerger.header(shards)
        let similar = try spill.group(distance: header.run?.similar ?? LookalikeGrouping.defaultDistance, index: index)
        let written = try MergedManifestWriter.write(checked, header: header, index: index, similar: similar,
                                                     referencedFrom: copy ? nil : out.root, out: out)
        let statistics = written.statistics
        index.remove()
        try ResultWriter(out: out, writeReport: writeReport).write(header, statistics, report: written.report, what: "merged ")
        summarise(statistics, shardCount: shards.count, sizes: sizes, out: out, copied: copied)
        return Outcome(header: header, statistics: statistics, shardCount: shards.count, copiedFiles: copied)
    }

    /// A refused merge leaves no OUT behind that it made itself (its state
    /// folder is empty once the index is gone).
    private static func removeIfMadeHere(_ out: OutputDirectory, existed: Bool) {
        let files = FileManager.default
        guard !existed, (try? files.contentsOfDirectory(atPath: out.root)) == [".thumbs"],
              (try? files.contentsOfDirectory(atPath: out.temporaryDirectory))?.isEmpty ?? true
        else { return }
        try? files.removeItem(atPath: out.root)
    }

    /// With `--copy`, before DIR is written: every thumbnail is a regular file
    /// inside its shard's folder, reached without following a link, whose
    /// bytes have the SHA-256 its manifest records. A shard that fails this
    /// is refused (exit 2) and nothing is written.
    private func checkCopiesMatch(_ shards: [ShardInput]) throws(RunError) {
        for shard in shards {
            let items = shard.source.items()
            while let item = try items.next() {
                for output in item.outputs { _ = try verifiedBytes(output, of: item, in: shard) }
            }
        }
    }

    /// Puts every thumbnail at the same relative path in DIR, atomically: a
    /// hard link where the file system allows it (no extra space on the same
    /// volume), checked as it lies in DIR; else the very bytes that were read
    /// and checked. Either way neither a link nor a file changed since the
    /// check can end up in DIR.
    private func copyOutputs(_ shards: [ShardInput], into out: OutputDirectory) throws(RunError) -> Int {
        var count = 0
        for shard in shards {
            let items = shard.source.items()
            while let item = try items.next() {
                for output in item.outputs {
                    if linkChecked(output, of: shard, into: out) {
                        count += 1
                        continue
                    }
                    let data = try verifiedBytes(output, of: item, in: shard)
                    do {
                        try out.writer.write(data, to: out.absolute(output.path))
                    } catch {
                        throw .fatal("cannot copy a thumbnail of \(shard.label) into \(out.root): \(error.message)")
                    }
                    count += 1
                }
            }
        }
        return count
    }

    /// Hard-links the thumbnail into DIR's temporary folder (its folders
    /// opened without following links, `linkat` not following one at the
    /// name), then reads what was linked there as `ContainedFile` reads: a
    /// regular file with the recorded size and SHA-256 is put in place. False
    /// (and nothing left) otherwise; the caller then copies, or refuses.
    private func linkChecked(_ output: ManifestOutput, of shard: ShardInput, into out: OutputDirectory) -> Bool {
        guard let place = try? ContainedPath(output.path, under: shard.root, create: false) else { return false }
        let name = UUID().uuidString + ".link"
        let temp = out.writer.temporaryDirectory + "/" + name
        guard hardLink(place.name, inFolder: place.folder, to: temp) else { return false }
        if let bytes = try? ContainedFile.read(name, under: out.writer.temporaryDirectory),
           Int64(bytes.count) == output.bytes, SHA256Hex.of(bytes) == output.sha256,
           (try? out.writer.place(temp, at: out.absolute(output.path))) != nil {
            return true
        }
        try? PathChanges.remove(temp)
        return false
    }

    /// The bytes of one of a shard's thumbnails, read by `ContainedFile`
    /// and checked against the shard's manifest.
    ///
    /// Exit codes: a thumbnail that is not there is exit 3, as without
    /// `--copy` (`checkOutputsExist`: the shard is unfinished, running it
    /// again remakes it). A link, a FIFO, or bytes other than the manifest
    /// records are exit 2, a refused shard set, like an output path that
    /// leaves its folder (`ShardSetCheck`): that shard's folder does not hold
    /// what its manifest says, and a merge must not pass it on.
    private func verifiedBytes(_ output: ManifestOutput, of item: ManifestItem, in shard: ShardInput) throws(RunError) -> Data {
        let path = shard.root + "/" + output.path
        let data: Data
        do {
            data = try ContainedFile.read(output.path, under: shard.root)
        } catch {
            switch error {
            case .outside:
                throw .usage("\(shard.label) lists an output outside its folder: \(ShardSetCheck.quoted(output.path))")
            case .link(let link):
                let what = link == output.path ? "an output of \(shard.label)" : "on the way to \(output.path) of \(shard.label)"
                throw .usage("\(shard.root)/\(link) (\(what)) is a symbolic link: --copy copies only regular files inside "
                             + "the shard's folder, never through a link; put the real files there (run that shard again)")
            case .missing:
                throw .fatal("\(path) listed by \(shard.label) is missing: "
                             + "run that shard again with the same command (it remakes missing thumbnails), then merge")
            case .notRegular(let kind):
                throw .usage("\(path), an output of \(shard.label), is a \(kind), not a regular file: --copy copies only regular files")
            case .unreadable(let reason):
                throw .fatal("cannot read \(path), an output of \(shard.label): \(reason)")
            }
        }
        guard Int64(data.count) == output.bytes, SHA256Hex.of(data) == output.sha256 else {
            throw .usage("\(path), an output of \(shard.label) for \(ShardSetCheck.quoted(item.id)), is not the file its manifest "
                         + "records (\(data.count) bytes, the manifest says \(output.bytes), or another SHA-256): "
                         + "run that shard again (it remakes damaged thumbnails), then merge")
        }
        return data
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
