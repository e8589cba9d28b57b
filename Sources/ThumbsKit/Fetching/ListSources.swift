import Foundation

/// Photo-list sources: URLs, list files and standard input.
///
/// `resolve` reads every list up front (its pages one after another), turns
/// the entries into items, and hands back the downloader that ItemProcessor
/// calls for each item while decoding goes on, plus the closure that ends
/// the HTTP session and gives stats.json its `downloads` counters.
enum ListSources {
    struct Resolved: Sendable {
        var items: [SourceItem]
        /// How many of `items` each source gave, in the order given.
        var counts: [Int] = []
        /// Lists that ended at a `next` link thumbs refuses: one message
        /// each, for the run to show and exit 3 on once the manifest is
        /// written.
        var refusals: [String] = []
        var fetcher: any RemoteFetching
        var counters: @Sendable () async -> DownloadCounters
    }

    /// `interrupt` stops the list read (exit 130) and, later, the downloads.
    static func resolve(
        _ sources: [String], options: RunOptions, console: Console, interrupt: InterruptSignal = InterruptSignal()
    ) async throws(RunError) -> Resolved {
        try await resolve(sources, options: options, console: console, interrupt: interrupt, standardInput: readStandardInput)
    }

    /// `standardInput` reads the list given as `-` (tests pass their own).
    static func resolve(
        _ sources: [String], options: RunOptions, console: Console, interrupt: InterruptSignal = InterruptSignal(),
        standardInput: @escaping @Sendable () async -> Data
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
        var items: [SourceItem] = []
        var counts: [Int] = []
        var refusals: [String] = []
        do {
            for source in sources {
                let (more, refused) = try await self.items(of: source, reader: reader, options: options, console: console,
                                                           standardInput: standardInput)
                counts.append(more.count)
                if items.isEmpty { items = more } else { items += more }  // one list: no copy of a million items
                if let refused { refusals.append(refused) }
            }
        } catch {
            await downloader.prefetcher?.discardRest()
            _ = await session.finish()
            throw error
        }
        let fetcher = downloader
        return Resolved(items: items, counts: counts, refusals: refusals, fetcher: fetcher, counters: {
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

    private static func items(
        of source: String, reader: ListReader, options: RunOptions, console: Console,
        standardInput: @escaping @Sendable () async -> Data
    ) async throws(RunError) -> (items: [SourceItem], refused: String?) {
        let label = source == "-" ? "the list on standard input" : "the photo list \(RemoteURL.redacted(source))"
        switch try await reader.read(source, standardInput: standardInput) {
        case .image(let url):
            let id = RemoteURL.lastSegment(of: url) ?? "image"
            return ([SourceItem(id: id, source: url, origin: .remote(url: url, meta: .empty))], nil)
        case .entries(let entries, let refused):
            if !entries.isEmpty, !entries.contains(where: { $0.url.map { RemoteURL.problem($0) == nil } ?? false }) {
                let hint = options.urlField.map { "no entry has an http(s) URL in the field \($0)" }
                    ?? "no entry has an http(s) URL in \(ListParser.urlFieldGuesses.joined(separator: ", ")); --url-field PATH names the field"
                throw .fatal("\(label) has \(entries.count) entries but no image to fetch: \(hint)")
            }
            if entries.isEmpty {
                console.event("list-empty", level: .warning, "\(label) holds no entries")
            }
            let items = entries.enumerated().map { index, entry in
                let url = entry.url ?? ""
                return SourceItem(
                    id: entry.itemID(position: index + 1),
                    source: url.isEmpty ? "\(source == "-" ? "stdin" : source)#\(index + 1)" : url,
                    origin: .remote(url: url, meta: entry.meta))
            }
            return (items, refused)
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
