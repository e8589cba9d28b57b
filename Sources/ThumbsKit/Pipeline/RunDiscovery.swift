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
        /// In a spool file in the scratch folder (`SourceItems`).
        var items: SourceItems
        var ignored: Int
        /// File sizes that occur more than once among `items`: an item of
        /// a size no other has is no duplicate, and skips its hash.
        var sharedSizes: Set<Int64> = []
        /// Folders and files that could not be read: `--prune` keeps what
        /// lies below them.
        var unreadable = UnreadableSources()
        var fetcher: (any RemoteFetching)?
        var downloadCounters: (@Sendable () async -> DownloadCounters)?
        /// With `--shard`: every item's shard, in the run's order (`ShardOrder`).
        var shardOrder: ScratchText?
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

    /// Lists are read first (their downloads start while the folders are
    /// walked), but the items come in the order of the sources on the
    /// command line, lists and folders interleaved (PRODUCT.md: source order).
    ///
    /// The items go to a spool file in `scratchFolder` as they are found
    /// (a run gives OUT/.thumbs/tmp; a dry run, which writes nothing to
    /// OUT, the system's temporary folder), and are named there
    /// (`SourceFinaliser`): memory does not grow with the items. Nor with
    /// a list's entries: they become items as they are read (a page, or a
    /// megabyte of a JSON array file, at a time). The lists before the
    /// first folder write straight into the run's spool, since nothing
    /// comes before them; a list after a folder writes its own spool in
    /// the same scratch folder, appended (read back in order) once the
    /// folders before it are walked, then let go.
    func discover(scratchFolder: String = DiscoveryScratch.systemFolder) async throws(RunError) -> Discovered {
        let isList = options.sources.map(SourceResolver.isList)
        let lists = zip(options.sources, isList).filter { $0.1 }.map { $0.0 }
        let fileCount = isList.count - lists.count
        let found = try SourceItems(scratchFolder: scratchFolder)
        var discovered = Discovered(items: [], ignored: 0)
        let leadingLists = isList.prefix { $0 }.count
        var separate: [SourceItems] = []
        if !lists.isEmpty {
            let fetched = try await ListSources.resolve(lists, options: options, console: console, interrupt: interrupt,
                                                        into: found, separateFrom: leadingLists, scratchFolder: scratchFolder)
            separate = fetched.separate
            discovered.fetcher = fetched.fetcher
            discovered.downloadCounters = fetched.counters
            discovered.deferredFatal = fetched.refusals
        }
        let resolver = SourceResolver(outputDirectory: options.outputDirectory)
        var listIndex = 0
        for (source, isList) in zip(options.sources, isList) {
            if isList {
                if listIndex >= leadingLists {
                    found.append(contentsOf: separate[listIndex - leadingLists])
                    separate[listIndex - leadingLists] = []  // its spool file goes
                }
                listIndex += 1
                continue
            }
            let resolved = try resolver.resolveFile(source, prefixWithName: fileCount > 1, into: found)
            report(resolved)
            discovered.ignored += resolved.ignored
            discovered.unreadable.add(resolved.unreadable)
        }
        try found.finishWriting()
        let finalised = try SourceFinaliser.finalise(found, shard: options.shard)
        discovered.items = finalised.items
        discovered.shardOrder = finalised.shardOrder
        discovered.sharedSizes = finalised.sharedSizes
        return discovered
    }

    /// One line per folder or file that could not be read and per folder
    /// not walked; special files are named under `--verbose`.
    private func report(_ resolved: SourceResolver.Resolved) {
        for path in resolved.unreadable.paths {
            console.event("unreadable", level: .warning,
                          "cannot read \(path.path): \(path.reason); nothing below it is processed, and --prune keeps its thumbnails",
                          fields: ["path": .string(path.path), "reason": .string(path.reason)])
        }
        for folder in resolved.skippedRuns {
            console.event("folder-skipped", level: .info, "not walking \(folder.path): \(folder.reason)",
                          fields: ["path": .string(folder.path), "reason": .string(folder.reason)])
        }
        for file in resolved.specialFiles {
            console.event("special-file-ignored", level: .debug, "ignored \(file.path): \(file.reason)",
                          fields: ["path": .string(file.path), "reason": .string(file.reason)])
        }
    }
}
