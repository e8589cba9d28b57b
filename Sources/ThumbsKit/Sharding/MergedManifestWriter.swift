import Foundation

/// The merge's second pass: the shards' items in merged order again, each
/// made what one run would have written (`ShardMerger` says what changes),
/// written to `OUT/manifest.json` one line at a time and added to the
/// statistics and to the report's gathering (`ReportGatherer`) as it goes.
/// Nothing of the items is kept.
enum MergedManifestWriter {
    struct Written {
        var statistics: Statistics
        var report: ReportGatherer
    }

    /// `header` is the merged manifest without items (`ShardMerger.header`);
    /// `referencedFrom` as in `ShardMerger`.
    static func write(
        _ checked: ShardSetCheck.Checked, header: Manifest, index: MergeIndex, similar: LookalikeGroups.Summary,
        referencedFrom outRoot: String?, out: OutputDirectory
    ) throws(RunError) -> Written {
        let shards = checked.shards
        var accumulator = StatisticsAccumulator(countLookalikes: false)
        let scratch = out.temporaryDirectory + "/report-\(UUID().uuidString)"
        let report = ReportGatherer(spool: try ReportSpool(file: scratch + "-failures.tmp"),
                                    warningSpool: try ReportSpool(file: scratch + "-warnings.tmp"))
        let stream = try MergedStream(shards, useOrder: checked.useOrder)
        try ManifestLines.write(header, in: out, failing: "cannot merge the shards", what: "merged manifest") { lines, emit in
            let groups = try LookalikeGroupCursor(index: index)
            while let (original, k) = try stream.next() {
                let position = stream.position - 1
                var item = original
                if let outRoot {
                    let root = shards[k].root
                    for j in item.outputs.indices {
                        item.outputs[j].path = RelativePath.relative(from: outRoot, to: root + "/" + item.outputs[j].path)
                    }
                }
                // Identical bytes across shards: the first `ok` leads.
                if item.status == .ok || item.status == .duplicate, let sha = item.sha256,
                   let leader = try index.leader(sha: sha), leader != item.id {
                    item.status = .duplicate
                    item.duplicateOf = leader
                }
                item.similarTo = nil
                if position == groups.nextLeader { try groups.leaderMet(id: item.id) }
                if position == groups.nextMember { item.similarTo = try groups.memberMet() }
                accumulator.add(item)
                report.add(item)
                try lines.add(item, emit)
            }
        }
        report.finish()
        return Written(statistics: accumulator.finish(run: header.run, similar: similar), report: report)
    }
}

/// `ManifestWriter`'s layout, one item at a time: the header as it writes
/// it (everything up to `"items": [`), then each item on its own line.
final class ManifestLines {
    /// Writes OUT/manifest.json (`AtomicFile`): `header`, the items `body`
    /// adds, and the end. A `RunError` thrown by `body` is the one thrown
    /// here; any other failure says `failing` (reading) or `what` (writing).
    static func write(
        _ header: Manifest, in out: OutputDirectory, failing: String, what: String, inserts: [HeaderInsert] = [],
        _ body: (ManifestLines, (UnsafeRawBufferPointer) throws(ItemError) -> Void) throws -> Void
    ) throws(RunError) {
        let lines = ManifestLines(header, inserts: inserts)
        var failure: RunError?
        do {
            try out.writer.write(to: out.manifestPath) { (emit: (UnsafeRawBufferPointer) throws(ItemError) -> Void) throws(ItemError) in
                do {
                    try lines.start(emit)
                    // `body` and `emit` are both non-escaping; neither is kept.
                    try withoutActuallyEscaping(emit) { emit in try body(lines, emit) }
                    try lines.finish(emit)
                } catch let error as ItemError {
                    throw error
                } catch let error as RunError {
                    failure = error
                    throw ItemError.io(error.message)
                } catch {
                    failure = .fatal("\(failing): \(error)")
                    throw ItemError.io("\(error)")
                }
            }
        } catch {
            if let failure { throw failure }
            throw .fatal("cannot write the \(what) in \(out.root): \(error)")
        }
    }

    /// Text copied into the header from a file, right after the first
    /// `after` (`run.shardOrder` after `"shardOrder":"`, the `gone` ids
    /// after `"gone": [`, each encoded empty): never held whole.
    struct HeaderInsert {
        var after: [UInt8]
        var text: ScratchText
    }

    private let head: [UInt8]
    private let inserts: [HeaderInsert]
    private var out = JSONText()
    private var written = 0

    init(_ header: Manifest, inserts: [HeaderInsert] = []) {
        self.inserts = inserts
        var empty = header
        empty.items = []
        empty.kept = nil
        // The header exactly as ManifestWriter writes it, up to the items.
        let encoded = Array(ManifestWriter.encode(empty))
        let tail = Array("]\n}\n".utf8)
        precondition(encoded.count > tail.count && Array(encoded.suffix(tail.count)) == tail)
        head = Array(encoded.dropLast(tail.count))
        out.reserve(1 << 20 + 64 * 1024)
    }

    func start(_ emit: (UnsafeRawBufferPointer) throws(ItemError) -> Void) throws(ItemError) {
        var failure: ItemError?
        head.withUnsafeBytes { raw in
            var at = 0
            do {
                for insert in inserts {
                    let rest = UnsafeRawBufferPointer(rebasing: raw[at...])
                    guard let found = ManifestSource.firstMatch(insert.after, in: rest, before: rest.count) else { continue }
                    let end = at + found + insert.after.count
                    try emit(UnsafeRawBufferPointer(rebasing: raw[at..<end]))
                    try insert.text.forEachChunk { chunk in try emit(chunk) }
                    at = end
                }
                try emit(UnsafeRawBufferPointer(rebasing: raw[at...]))
            } catch let error as ItemError {
                failure = error
            } catch {
                failure = .io("\(error)")
            }
        }
        if let failure { throw failure }
    }

    func add(_ item: ManifestItem, _ emit: (UnsafeRawBufferPointer) throws(ItemError) -> Void) throws(ItemError) {
        out.raw(written == 0 ? "\n    " : ",\n    ")
        ManifestWriter.write(item, into: &out)
        written += 1
        if out.count >= 1 << 20 { try flush(emit) }
    }

    /// An item already written by `ManifestWriter.write(_:into:)` (a run's
    /// spooled line, `RunResults`), copied as it is.
    func add(encoded line: UnsafeRawBufferPointer, _ emit: (UnsafeRawBufferPointer) throws(ItemError) -> Void) throws(ItemError) {
        out.raw(written == 0 ? "\n    " : ",\n    ")
        out.append(line)
        written += 1
        if out.count >= 1 << 20 { try flush(emit) }
    }

    /// Ends the items and opens the manifest's `kept` records, which the
    /// `add`s that follow write (`Manifest.kept`).
    func startKept() {
        out.raw(written == 0 ? "]" : "\n  ]")
        out.raw(ManifestWriter.keptOpen)
        written = 0
    }

    func finish(_ emit: (UnsafeRawBufferPointer) throws(ItemError) -> Void) throws(ItemError) {
        // The items' end, or the kept records' (an empty `kept` is never opened).
        out.raw(written == 0 ? "]\n}\n" : "\n  ]\n}\n")
        try flush(emit)
    }

    private func flush(_ emit: (UnsafeRawBufferPointer) throws(ItemError) -> Void) throws(ItemError) {
        try out.withBytes { (raw: UnsafeRawBufferPointer) throws(ItemError) in try emit(raw) }
        out.removeAll()
    }
}
