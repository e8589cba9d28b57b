import Foundation

/// Turns what the processing phase returned into the manifest a run ends
/// with.
enum RunManifest {
    /// Each item's record, in source order; an item the interruption left
    /// unreached keeps its earlier record on disk on record, if it has one.
    static func finalItems(_ records: [ManifestItem?], items: SourceItems, previous: PreviousRun) -> [ManifestItem] {
        var finalItems: [ManifestItem] = []
        finalItems.reserveCapacity(items.count)
        for (index, record) in records.enumerated() {
            if let record {
                finalItems.append(record)
            } else if let earlier = previous.items[items[index].id] {
                finalItems.append(earlier)
            }
        }
        return finalItems
    }

    /// Ids of the previous run's sources that are not among `items`. A shard
    /// sees only part of the sources, so it reports none.
    static func gone(from previous: PreviousRun, items: SourceItems, shard: Shard?) -> [String] {
        guard shard == nil else { return [] }
        let currentIDs = Set(items.map(\.id))
        return previous.order.filter { !currentIDs.contains($0) }
    }

    static func build(
        _ items: [ManifestItem], options: RunOptions, started: Date, ignored: Int, wallSeconds: Double,
        downloads: DownloadCounters?, interrupted: Bool, gone: [String], unreadable: Int = 0
    ) -> Manifest {
        var counters = RunCounters(ignored: ignored, wallSeconds: (wallSeconds * 1000).rounded() / 1000)
        counters.unreadable = unreadable
        counters.decoders = decoderCounts(items)
        counters.similar = options.similar
        if let downloads { counters.downloads = downloads }
        return Manifest(
            tool: .init(libvips: VipsRuntime.version),
            startedAt: Timestamp.string(started), finishedAt: Timestamp.now(),
            settings: options.output, shard: options.shard,
            interrupted: interrupted ? true : nil,
            gone: gone.isEmpty ? nil : gone,
            run: counters, items: items
        )
    }

    /// Items decoded per path in this run.
    static func decoderCounts(_ items: [ManifestItem]) -> SortedMap<Int> {
        var counts = SortedMap<Int>()
        for item in items {
            if let path = item.decoder { counts[path.rawValue] = (counts[path.rawValue] ?? 0) + 1 }
        }
        return counts
    }
}
