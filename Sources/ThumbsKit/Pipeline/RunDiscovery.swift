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
        /// Why the run exits 3 once its manifest, stats and report are
        /// written (a list cut short at a `next` link thumbs refuses): one
        /// line each, shown last.
        var deferredFatal: [String] = []

        /// `deferredFatal`, one error line each, and the status they make of
        /// `status` (exit 3; an interruption still gives 130).
        func finalStatus(_ status: ExitStatus, console: Console) -> ExitStatus {
            for message in deferredFatal {
                console.event("fatal", level: .error, message, fields: ["exitCode": .number(Double(ExitStatus.fatal.rawValue))])
            }
            return deferredFatal.isEmpty || status == .interrupted ? status : .fatal
        }
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
            discovered.deferredFatal = fetched.refusals
        }
        if !files.isEmpty {
            let resolved = try SourceResolver().resolveFiles(files)
            discovered.items += resolved.items
            discovered.ignored += resolved.ignored
        }
        discovered.items = SourceResolver.finalise(discovered.items)
        if let shard = options.shard {
            discovered.items = discovered.items.filter { ShardPartition.contains($0.id, shard: shard) }
        }
        return discovered
    }
}
