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
        let report = ReportGatherer(spool: try ReportSpool(file: out.temporaryDirectory + "/report-failures-\(UUID().uuidString).tmp"))
        var failure: RunError?
        do {
            let stream = try MergedStream<ManifestItem>(shards, useOrder: checked.useOrder)
            let db = index.database
            let members = try db.prepare("SELECT pos, rep, distance FROM similar ORDER BY pos")
            let leaders = try db.prepare("SELECT DISTINCT rep FROM similar ORDER BY rep")
            var nextMember = try members.step() ? members.int(0) : Int.max
            var nextLeader = try leaders.step() ? leaders.int(0) : Int.max
            let lines = ManifestLines(header)
            try out.writer.write(to: out.manifestPath) { (emit: (UnsafeRawBufferPointer) throws(ItemError) -> Void) throws(ItemError) in
                do {
                    try lines.start(emit)
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
                        if position == nextLeader {
                            try index.addRepresentative(position: position, id: item.id)
                            nextLeader = try leaders.step() ? leaders.int(0) : Int.max
                        }
                        if position == nextMember {
                            let representative = members.int(1), distance = members.int(2)
                            if let id = try index.representativeID(position: representative) {
                                item.similarTo = SimilarReference(id: id, distance: distance)
                            }
                            nextMember = try members.step() ? members.int(0) : Int.max
                        }
                        accumulator.add(item)
                        report.add(item)
                        try lines.add(item, emit)
                    }
                    try lines.finish(emit)
                } catch let error as ItemError {
                    throw error
                } catch let error as RunError {
                    failure = error
                    throw ItemError.io(error.message)
                } catch {
                    failure = .fatal("cannot merge the shards: \(error)")
                    throw ItemError.io("\(error)")
                }
            }
        } catch let error as RunError {
            throw error
        } catch {
            if let failure { throw failure }
            throw .fatal("cannot write the merged manifest in \(out.root): \(error)")
        }
        report.finish()
        return Written(statistics: accumulator.finish(run: header.run, similar: similar), report: report)
    }
}

/// `ManifestWriter`'s layout, one item at a time: the header as it writes
/// it (everything up to `"items": [`), then each item on its own line.
final class ManifestLines {
    private let head: [UInt8]
    private var out = JSONText()
    private var written = 0

    init(_ header: Manifest) {
        var empty = header
        empty.items = []
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
            do throws(ItemError) { try emit(raw) } catch { failure = error }
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

    func finish(_ emit: (UnsafeRawBufferPointer) throws(ItemError) -> Void) throws(ItemError) {
        out.raw(written == 0 ? "]\n}\n" : "\n  ]\n}\n")
        try flush(emit)
    }

    private func flush(_ emit: (UnsafeRawBufferPointer) throws(ItemError) -> Void) throws(ItemError) {
        try out.withBytes { (raw: UnsafeRawBufferPointer) throws(ItemError) in try emit(raw) }
        out.removeAll()
    }
}
