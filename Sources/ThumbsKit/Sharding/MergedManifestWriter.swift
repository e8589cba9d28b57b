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
                if item.status == .ok || item.status == .duplicate, let key = item.identityKey,
                   let leader = try index.leader(sha: key), leader != item.id {
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
