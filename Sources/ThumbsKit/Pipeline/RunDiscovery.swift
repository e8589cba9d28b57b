import Foundation

/// The discovery phase of `thumbs run`: the items of every SOURCE, in
/// order, with their output names, narrowed to `--shard`; for photo lists,
/// also the downloader that fetches them while the run goes on.
struct RunDiscovery {
    let options: RunOptions
    let console: Console
    let interrupt: InterruptSignal

    /// Items of every source, with fetching for the list sources.
    struct Discovered: Sendable {
        var items: [SourceItem]
        var ignored: Int
        var fetcher: (any RemoteFetching)?
        var downloadCounters: (@Sendable () async -> DownloadCounters)?
        /// With `--shard`: every item's shard, in the run's order (`ShardOrder`).
        var shardOrder: String?
    }

    /// A file SOURCE that is not there is a usage error before anything
    /// else happens: OUT is neither created nor locked for a typo.
    func checkFileSourcesExist() throws(RunError) {
        for source in options.sources where !SourceResolver.isList(source) {
            guard FileManager.default.fileExists(atPath: source) else { throw .missingSource(source) }
        }
    }

    func discover() async throws(RunError) -> Discovered {
        let lists = options.sources.filter(SourceResolver.isList)
        let files = options.sources.filter { !SourceResolver.isList($0) }
        var discovered = Discovered(items: [], ignored: 0)
        if !lists.isEmpty {
            let fetched = try await ListSources.resolve(lists, options: options, console: console, interrupt: interrupt)
            discovered.items = fetched.items  // not `+=`: a copy of a million items
            discovered.fetcher = fetched.fetcher
            discovered.downloadCounters = fetched.counters
        }
        if !files.isEmpty {
            let resolved = try SourceResolver().resolveFiles(files)
            discovered.items += resolved.items
            discovered.ignored += resolved.ignored
        }
        discovered.items = SourceResolver.finalise(discovered.items)
        if let shard = options.shard {
            discovered.shardOrder = ShardOrder.make(discovered.items.lazy.map(\.id), count: shard.count)
            discovered.items = discovered.items.filter { ShardPartition.contains($0.id, shard: shard) }
        }
        return discovered
    }
}
