import Foundation

/// Photo-list sources: URLs, list files and standard input.
///
/// `resolve` reads every list up front (its pages one after another), turns
/// the entries into items as they are read, written to `SourceItems` (spool
/// files for a run: a list's entries are never all in memory), and hands
/// back the downloader that ItemProcessor calls for each item while
/// decoding goes on, plus the closure that ends the HTTP session and gives
/// stats.json its `downloads` counters.
enum ListSources {
    struct Resolved: Sendable {
        /// The items of the first `separateFrom` lists, in the order given
        /// (the collection `resolve` was given).
        var items: SourceItems
        /// The items of each later list, in its own collection (a spool
        /// file in the scratch folder), written whole: discovery appends
        /// them where they belong among the folders.
        var separate: [SourceItems] = []
        /// How many items each source gave, in the order given.
        var counts: [Int] = []
        /// Lists that ended at a `next` link thumbs refuses: one message
        /// each, for the run to show and exit 3 on once the manifest is
        /// written.
        var refusals: [String] = []
        var fetcher: any RemoteFetching
        var counters: @Sendable () async -> DownloadCounters
    }

    /// `interrupt` stops the list read (exit 130) and, later, the downloads.
    /// The first `separateFrom` lists append their items to `items`; each
    /// later one writes its own spool in `scratchFolder` (in memory when nil).
    static func resolve(
        _ sources: [String], options: RunOptions, console: Console, interrupt: InterruptSignal = InterruptSignal(),
        into items: SourceItems, separateFrom: Int, scratchFolder: String?
    ) async throws(RunError) -> Resolved {
        try await resolve(sources, options: options, console: console, interrupt: interrupt, standardInput: readStandardInput,
                          into: items, separateFrom: separateFrom, scratchFolder: scratchFolder)
    }

    /// `standardInput` reads the list given as `-` (tests pass their own).
    /// By default every list's items go to one collection in memory.
    static func resolve(
        _ sources: [String], options: RunOptions, console: Console, interrupt: InterruptSignal = InterruptSignal(),
        standardInput: @escaping @Sendable () async -> Data,
        into items: SourceItems = [], separateFrom: Int = .max, scratchFolder: String? = nil
    ) async throws(RunError) -> Resolved {
        let session = try HTTPSession(options: options, console: console, interrupt: interrupt)
        var downloader = ImageDownloader(session: session)
        var reader = ListReader(session: session, urlField: options.urlField, maxPages: options.maxPages, console: console,
                                headers: options.listHeaders)
        if isFreshRun(options) {
            let prefetcher = Prefetcher(limit: 2 * max(1, options.downloadJobs))
            downloader.prefetcher = prefetcher
            let early = downloader
            reader.onEntries = { entries in await prefetcher.offer(entries, downloader: early) }
        }
        var separate: [SourceItems] = []
        var counts: [Int] = []
        var refusals: [String] = []
        do {
            for (index, source) in sources.enumerated() {
                let destination = index < separateFrom ? items : try SourceItems(scratchFolder: scratchFolder)
                let (count, refused) = try await self.items(of: source, into: destination, reader: reader, options: options,
                                                            console: console, standardInput: standardInput)
                if index >= separateFrom {
                    try destination.finishWriting()
                    separate.append(destination)
                }
                counts.append(count)
                if let refused { refusals.append(refused) }
            }
        } catch {
            await downloader.prefetcher?.discardRest()
            _ = await session.finish()
            throw error
        }
        let fetcher = downloader
        return Resolved(items: items, separate: separate, counts: counts, refusals: refusals, fetcher: fetcher, counters: {
            await fetcher.prefetcher?.discardRest()
            return await session.finish()
        })
    }

    /// Whether nothing in OUT could make requests conditional, and every
    /// image read will be processed by this process.
    static func isFreshRun(_ options: RunOptions) -> Bool {
        guard !options.dryRun, options.shard == nil else { return false }
        let out = options.outputDirectory
        return !FileManager.default.fileExists(atPath: OutputDirectory.manifestPath(in: out))
            && !FileManager.default.fileExists(atPath: OutputDirectory.journalPath(in: out))
    }

    /// Reads one list into `destination`: its items, or its one image;
    /// the checks on its entries come once it is read whole.
    private static func items(
        of source: String, into destination: SourceItems, reader: ListReader, options: RunOptions, console: Console,
        standardInput: @escaping @Sendable () async -> Data
    ) async throws(RunError) -> (count: Int, refused: String?) {
        let label = source == "-" ? "the list on standard input" : "the photo list \(RemoteURL.redacted(source))"
        var writer = ListItemWriter(source: source, into: destination)
        switch try await reader.read(source, standardInput: standardInput, take: { writer.take($0) }) {
        case .image(let url):
            let id = RemoteURL.lastSegment(of: url) ?? "image"
            destination.append(SourceItem(id: id, source: RemoteURL.withoutCredentials(url), origin: .remote(url: url, meta: .empty)))
            return (1, nil)
        case .entries(let count, let refused):
            assert(count == writer.count, "the reader handed on \(writer.count) of \(count) entries")
            if count > 0, !writer.hasFetchable {
                let hint = options.urlField.map { "no entry has an http(s) URL in the field \($0)" }
                    ?? "no entry has an http(s) URL in \(ListParser.urlFieldGuesses.joined(separator: ", ")); --url-field PATH names the field"
                throw .fatal("\(label) has \(count) entries but no image to fetch: \(hint)")
            }
            if count == 0 {
                console.event("list-empty", level: .warning, "\(label) holds no entries")
            }
            return (count, refused)
        }
    }

    /// Reads all of standard input off Swift's cooperative threads.
    @Sendable static func readStandardInput() async -> Data {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: FileHandle.standardInput.readDataToEndOfFile())
            }
        }
    }
}
