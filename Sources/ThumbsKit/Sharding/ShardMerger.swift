import Foundation

/// Joins the checked shards of one run into the manifest one run over the
/// same sources would have written (timings aside).
///
/// - Items: the union, in the run's order as the shards recorded it
///   (`ShardOrder`), else in the order `MergeOrder` gives (`MergedStream`).
/// - Output paths: with `referencedFrom` set (no `--copy`), each path becomes
///   the relative path from the merged folder to the shard's file, so the
///   merged report's links find the thumbnails where they lie (`thumbs
///   verify` opens nothing outside a manifest's folder, so it reports these
///   paths: verify the shards, or merge with `--copy`); with `--copy` the files are copied to the same relative paths and
///   the paths stay as they were (output names are assigned over the whole
///   run before sharding, so they never collide).
/// - Look-alikes: grouped again over the merged order (`LookalikeSpill`).
/// - Duplicates: a run decodes identical bytes once, the first item in source
///   order leads and the others are `duplicate`. Shards cannot see each other,
///   so two copies in different shards were both decoded (`ok`); the merge
///   applies the run's rule across shards: the first in merged order stays
///   `ok`, the later ones become `duplicate` of it. Their outputs are
///   identical either way, since thumbnails are deterministic.
/// - `run` counters: downloads are summed, except `pages`: every shard reads
///   the whole photo list, so it is the largest shard's count (page requests
///   do stay in `requests` once per shard). `ignored` is the largest shard's
///   count too, because every shard walks all the sources and counts every
///   ignored file, not only its share (and so is `unreadable`). `wallSeconds` is the longest shard's:
///   shards run side by side, so the merged run took as long as its slowest
///   shard, and images/s in stats.json is the throughput of all of them.
/// - `startedAt` is the earliest shard's start, `finishedAt` the latest
///   finish, `tool` is shard 0's, and `shard` is absent: the result is whole.
enum ShardMerger {
    /// The merged manifest without its items (`MergedManifestWriter`
    /// streams them): counters, times and tool as listed above.
    static func header(_ shards: [ShardInput]) -> Manifest {
        let manifests = shards.map(\.manifest)
        return Manifest(
            tool: manifests[0].tool,
            startedAt: earliest(manifests.map(\.startedAt)),
            finishedAt: latest(manifests.map(\.finishedAt)),
            settings: manifests[0].settings,
            shard: nil,
            run: counters(manifests.map { $0.run ?? RunCounters() }),
            items: []
        )
    }

    static func counters(_ runs: [RunCounters]) -> RunCounters {
        var merged = RunCounters()
        for run in runs {
            merged.ignored = max(merged.ignored, run.ignored)
            if let unreadable = run.unreadable { merged.unreadable = max(merged.unreadable ?? 0, unreadable) }
            merged.wallSeconds = max(merged.wallSeconds, run.wallSeconds)
            let pages = max(merged.downloads.pages, run.downloads.pages)
            merged.downloads.add(run.downloads)
            merged.addDecoders(run.decoders)
            merged.similar = merged.similar ?? run.similar
            merged.downloads.pages = pages
        }
        return merged
    }

    static func earliest(_ stamps: [String]) -> String {
        stamps.min { date($0) < date($1) } ?? ""
    }

    static func latest(_ stamps: [String]) -> String {
        stamps.max { date($0) < date($1) } ?? ""
    }

    /// A timestamp as a date; one that does not parse sorts first.
    private static func date(_ stamp: String) -> Date {
        let precise = ISO8601DateFormatter()
        precise.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = precise.date(from: stamp) { return date }
        return ISO8601DateFormatter().date(from: stamp) ?? .distantPast
    }
}
