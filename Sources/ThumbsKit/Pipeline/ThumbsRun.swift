import Foundation

/// `thumbs run`: sequences the phases of a run, each in a file of its own:
/// validate the options (`RunOptions.validate`), list the sources for a dry
/// run (`DryRun`) or lock OUT (`OutputDirectory`), discover the sources
/// (`RunDiscovery`), load the previous run (`PreviousRun`), process every item
/// (`ProcessingWindow`), prune (`OutputPruner`), build and write the manifest,
/// stats and report (`RunManifest`, `ResultWriter`), and sum up (`RunLog`).
public struct ThumbsRun: Sendable {
    public var options: RunOptions
    public var console: Console
    public var interrupt: InterruptSignal
    /// Called with each item's record as it finishes, in the order they
    /// finish (not source order), on the run's own task: keep it short. The
    /// record holds what the manifest does not keep, such as the path that
    /// decoded it (`decoder`).
    public var onItem: (@Sendable (ManifestItem) -> Void)?

    public init(options: RunOptions, console: Console = .silent, interrupt: InterruptSignal = InterruptSignal()) {
        self.options = options
        self.console = console
        self.interrupt = interrupt
    }

    /// What a run ended with.
    public struct Outcome: Sendable {
        public var status: ExitStatus
        /// The manifest without its items (a run over millions never holds
        /// them); nil for a dry run.
        public var header: Manifest?
        public var statistics: Statistics?
        /// Where the manifest was written.
        public var manifestPath: String?
        /// Each item's `decoder` by id, when the caller gathered them with
        /// `onItem` (manifest.json does not hold them): `manifest` puts
        /// them back on its items.
        public var itemDecoders: [String: DecodePath]?

        public init(status: ExitStatus, header: Manifest?, statistics: Statistics?, manifestPath: String? = nil) {
            self.status = status
            self.header = header
            self.statistics = statistics
            self.manifestPath = manifestPath
        }

        /// The whole manifest as written, read back from `manifestPath`
        /// (tests and small runs; a run of millions reads it as a stream).
        public var manifest: Manifest? {
            guard let manifestPath, var manifest = try? JSONCoding.readManifest(at: manifestPath) else { return nil }
            if let itemDecoders {
                for index in manifest.items.indices { manifest.items[index].decoder = itemDecoders[manifest.items[index].id] }
            }
            return manifest
        }
    }

    public func run() async throws(RunError) -> Outcome {
        try options.validate()
        try ProcessingWindow.startLibvips(options)
        let log = RunLog(options: options, console: console)
        let started = Date()
        let clock = ContinuousClock.now
        // Listening before the lists are read: Ctrl-C there exits 130 too.
        interrupt.install { log.interrupted() }
        defer { interrupt.uninstall() }

        let discovery = RunDiscovery(options: options, console: console, interrupt: interrupt)
        if options.dryRun {
            let discovered = try await discovery.discover()
            var outcome = DryRun(options: options, console: console).list(discovered.items, ignored: discovered.ignored)
            outcome.status = discovered.finalStatus(outcome.status, console: console)
            return outcome
        }
        // OUT is locked before discovery: a second run into a held OUT exits
        // 3 at once, before it walks a folder or asks a server for a list.
        try discovery.checkFileSourcesExist()
        let out = try OutputDirectory(path: options.outputDirectory)
        var discovered = try await discovery.discover(scratchFolder: out.temporaryDirectory)
        var items = discovered.items
        discovered.items = []
        let discoverSeconds = Elapsed.seconds(since: clock)

        let loadStart = ContinuousClock.now
        // With --force too: the last run's records are not reused, but say
        // what is gone and what is no longer produced (`OutputPruner`).
        let previous = PreviousRun.load(manifestPath: out.manifestPath, journalPath: out.journalPath, settings: options.output,
                                        indexPath: PreviousIndex.place(in: out), force: options.force)
        defer { previous.remove() }
        let loadSeconds = Elapsed.seconds(since: loadStart)
        previous.warnIfUnreadable(console, manifestPath: out.manifestPath)
        let journal = Journal(path: out.journalPath, thumbnailFolders: out.thumbnailFolders)
        try journal.open(settings: options.output, keepExisting: previous.resumed)

        let results = try RunResults(out: out, trackOutputs: options.prune)
        defer { results.remove() }
        let window = ProcessingWindow(options: options, log: log, interrupt: interrupt, onItem: onItem)
        log.start(images: items.count, out: out, jobs: window.jobs, resumed: previous.resumed)
        let processed = await window.run(items, sharedSizes: discovered.sharedSizes, previous: previous, out: out, journal: journal,
                                         fetcher: discovered.fetcher, clock: clock, emit: results.add)
        console.endProgress()
        let processSeconds = Elapsed.seconds(since: clock) - discoverSeconds - loadSeconds
        // Every thumbnail under its name for good before the manifest
        // records it: the journal's last flush did it, unless the journal
        // had failed.
        do throws(WrittenFolders.Failure) {
            try out.thumbnailFolders.flush()
        } catch {
            throw .fatal(error.message)
        }

        // A journal that failed is said at once, and ends the run with exit 3.
        let journalFailure = journal.failure
        if let journalFailure { log.journalFailed(journalFailure) }
        // A signal counts whenever it came, even with every record in; a
        // failed journal stopped the run if it left items unreached.
        var interrupted = interrupt.isRaised || (journalFailure != nil && processed.unreached > 0)
        // What lies below a folder that could not be read is unknown, not
        // gone; so is all that a list cut short at a refused `next` link
        // would have held: nothing is pruned for it and the records stay.
        // A shard sees only part of the sources, so it reports none gone.
        let listCutShort = !discovered.deferredFatal.isEmpty
        // --force looked no record up: its items are marked seen here, so
        // that what is gone is what this run did not see.
        if options.force, !previous.isEmpty {
            for index in 0..<items.count { previous.markSeen(items.id(at: index)) }
        }
        items = []
        // Gone: a record of the last run this run did not see, unless it
        // lies below what could not be read, past a list cut short, or in
        // another shard. Decided record by record, never listed in memory.
        let reportsGone = options.shard == nil && !listCutShort
        let unreadable = discovered.unreadable
        let isGone = { (id: String) in reportsGone && !unreadable.covers(id) }
        let pruned = settlePrevious(previous, isGone: isGone, interrupted: interrupted, listCutShort: listCutShort, out: out,
                                    results: results)
        let pruneRefused = pruned.refused
        let gone = results.goneCount

        let writeStart = ContinuousClock.now
        let wallSeconds = Elapsed.seconds(since: clock)
        let groupStart = ContinuousClock.now
        _ = try resumable(journal) { () throws(RunError) in try results.group(distance: options.similar) }
        let groupSeconds = Elapsed.seconds(since: groupStart)
        var header = RunManifest.header(
            options: options, started: started, ignored: discovered.ignored, wallSeconds: wallSeconds,
            downloads: await discovered.downloadCounters?(), interrupted: interrupted, gone: gone,
            unreadable: discovered.unreadable.count, decoders: results.decoderCounts)
        // Copied in from its file as the manifest is written.
        header.run?.shardOrder = discovered.shardOrder.map { _ in "" }
        let statistics = results.statistics(run: header.run)
        try resumable(journal) { () throws(RunError) in try writeResults(header, statistics, results: results, out: out, shardOrder: discovered.shardOrder, first: true) }
        // The manifest is flushed under its name (`AtomicFile`). A signal
        // that came while it was written still counts: it is written again,
        // saying so; from here on a signal changes nothing.
        let signalled = interrupt.seal()
        if signalled && !interrupted {
            interrupted = true
            header.interrupted = true
            try writeResults(header, statistics, results: results, out: out, shardOrder: discovered.shardOrder, first: false)
        }
        if !interrupted { journal.remove() }
        let writeSeconds = Elapsed.seconds(since: writeStart)

        let status: ExitStatus
        if signalled {
            status = .interrupted
        } else if journalFailure != nil || pruneRefused {
            status = .fatal
        } else if !discovered.deferredFatal.isEmpty {
            status = .fatal  // said after the summary (`finalStatus`)
        } else if options.maxFailures.isExceeded(failed: statistics.counts.failed, total: results.count) {
            status = .failures
        } else {
            status = .success
        }
        let phases = RunLog.Phases(discover: discoverSeconds, load: loadSeconds, process: processSeconds,
                                   group: groupSeconds, write: writeSeconds)
        log.finish(statistics, out: out, gone: gone, leftOutputs: pruned.left, interrupted: interrupted, status: status, phases: phases)
        return Outcome(status: discovered.finalStatus(status, console: console), header: header, statistics: statistics,
                       manifestPath: out.manifestPath)
    }

    /// `body`, whose failure means no manifest is written (a full disk):
    /// the failure says so, and that the journal, which is kept, lets the
    /// next run resume without redoing the images finished before it.
    private func resumable<T>(_ journal: Journal, _ body: () throws(RunError) -> T) throws(RunError) -> T {
        do {
            return try body()
        } catch {
            guard journal.isOpen else { throw error }
            throw .fatal("\(error.message); no manifest was written: the journal keeps the images finished before this,"
                         + " and the next run resumes from it (run the same command again once there is room)")
        }
    }

    /// What the last runs left that this run does not produce
    /// (`OutputPruner`): with `--prune`, deleted, unless `--max-prune`
    /// refuses (`refused`: exit 3); whatever stays goes to the manifest's
    /// `kept` records, and `left` counts its outputs for the summary. After
    /// an interruption or a list cut short nothing is deleted.
    private func settlePrevious(_ previous: PreviousRun, isGone: (String) -> Bool, interrupted: Bool, listCutShort: Bool,
                                out: OutputDirectory, results: RunResults) -> (refused: Bool, left: Int) {
        // Same settings, every record seen, nothing kept before: nothing
        // to find, and no pass over the records (a no-op re-run).
        guard previous.needsSettling else { return (false, 0) }
        let pruner = OutputPruner(out: out, console: console, settings: options.output)
        let isKept = options.prune ? results.records(outputPath:) : { (_: String) in false }
        var delete = options.prune && !interrupted && !listCutShort
        var refused = false
        if delete {
            do {
                try pruner.check(pruner.survey(previous, isGone: isGone, isKept: isKept), total: previous.count, limit: options.maxPrune)
            } catch {
                delete = false
                refused = true  // exit 3, once the thumbnails and the manifest are written
            }
        }
        let found = pruner.settle(previous, isGone: isGone, isKept: isKept, delete: delete, keepUnseen: options.shard == nil,
                                  keep: results.keep, gone: results.addGone)
        return (refused, delete ? 0 : found.outputs)
    }

    /// manifest.json from the run's spooled lines (`RunResults`), then
    /// stats.json and the report (`ResultWriter`, as a merge writes them).
    private func writeResults(_ header: Manifest, _ statistics: Statistics, results: RunResults, out: OutputDirectory,
                              shardOrder: ScratchText?, first: Bool) throws(RunError) {
        try results.writeManifest(header, shardOrder: shardOrder)
        if first { results.finishReport() }
        try ResultWriter(out: out, writeReport: options.writeReport).write(header, statistics, report: results.report)
    }
}
