/// Photo-list sources: URLs, list files and standard input.
enum ListSources {
    struct Resolved: Sendable {
        var items: [SourceItem]
        var fetcher: any RemoteFetching
        var counters: @Sendable () async -> DownloadCounters
    }

    static func resolve(_ sources: [String], options: RunOptions, console: Console) async throws(RunError) -> Resolved {
        throw .usage("photo lists (\(sources.joined(separator: ", "))) are not supported yet")
    }
}
