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

    public init(options: RunOptions, console: Console = .silent, interrupt: InterruptSignal = InterruptSignal()) {
        self.options = options
        self.console = console
        self.interrupt = interrupt
    }

    /// What a run ended with.
    public struct Outcome: Sendable {
        public var status: ExitStatus
        public var manifest: Manifest?
        public var statistics: Statistics?
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
        let previous = options.force
            ? PreviousRun.empty
            : PreviousRun.load(manifestPath: out.manifestPath, journalPath: out.journalPath, settings: options.output)
        let loadSeconds = Elapsed.seconds(since: loadStart)
        previous.warnIfUnreadable(console, manifestPath: out.manifestPath)
        let journal = Journal(path: out.journalPath)
        try journal.open(settings: options.output, keepExisting: previous.resumed)

        let window = ProcessingWindow(options: options, log: log, interrupt: interrupt)
        log.start(images: items.count, out: out, jobs: window.jobs, resumed: previous.resumed)
        var records = await window.run(items, previous: previous, out: out, journal: journal,
                                       fetcher: discovered.fetcher, clock: clock)
        console.endProgress()
        let processSeconds = Elapsed.seconds(since: clock) - discoverSeconds - loadSeconds

        // A journal that failed is said at once, and ends the run with exit 3.
        let journalFailure = journal.failure
        if let journalFailure { log.journalFailed(journalFailure) }
        // A signal counts whenever it came, even with every record in; a
        // failed journal stopped the run if it left items unreached.
        var interrupted = interrupt.isRaised || (journalFailure != nil && records.contains(where: { $0 == nil }))
        var finalItems = RunManifest.finalItems(records, items: items, previous: previous)
        // What follows builds the manifest, stats and report: let go of the
        // per-item structures the processing needed first (memory at 100k).
        records = []
        // What lies below a folder that could not be read is unknown, not
        // gone; so is all that a list cut short at a refused `next` link
        // would have held: nothing is pruned for it and the records stay.
        let listCutShort = !discovered.deferredFatal.isEmpty
        let missing = RunManifest.gone(from: previous, items: items, shard: options.shard)
        let gone = listCutShort ? [] : missing.filter { !discovered.unreadable.covers($0) }
        items = []
        var pruneRefused = false
        if options.prune, !interrupted, !listCutShort {
            do {
                try OutputPruner(out: out, console: console).prune(gone, previous: previous, keeping: finalItems, limit: options.maxPrune)
            } catch {
                pruneRefused = true  // exit 3, once the thumbnails and the manifest are written
            }
        }
        if pruneRefused || listCutShort || gone.count < missing.count {
            let unseen = pruneRefused || listCutShort ? missing : missing.filter { discovered.unreadable.covers($0) }
            finalItems += OutputPruner.unseenRecords(unseen, previous: previous)
        }

        let writeStart = ContinuousClock.now
        let wallSeconds = Elapsed.seconds(since: clock)
        let groupStart = ContinuousClock.now
        LookalikeGrouping.apply(to: &finalItems, distance: options.similar)
        let groupSeconds = Elapsed.seconds(since: groupStart)
        var manifest = RunManifest.build(
            finalItems, options: options, started: started, ignored: discovered.ignored, wallSeconds: wallSeconds,
            downloads: await discovered.downloadCounters?(), interrupted: interrupted, gone: gone,
            unreadable: discovered.unreadable.count)
        manifest.run?.shardOrder = discovered.shardOrder
        finalItems = []
        let statistics = Statistics(manifest: manifest)
        try ResultWriter(out: out, writeReport: options.writeReport).write(manifest, statistics)
        // The manifest is flushed under its name (`AtomicFile`). A signal
        // that came while it was written still counts: it is written again,
        // saying so; from here on a signal changes nothing.
        let signalled = interrupt.seal()
        if signalled && !interrupted {
            interrupted = true
            manifest.interrupted = true
            try ResultWriter(out: out, writeReport: options.writeReport).write(manifest, statistics)
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
        } else if options.maxFailures.isExceeded(failed: statistics.counts.failed, total: manifest.items.count) {
            status = .failures
        } else {
            status = .success
        }
        let phases = RunLog.Phases(discover: discoverSeconds, load: loadSeconds, process: processSeconds,
                                   group: groupSeconds, write: writeSeconds)
        log.finish(statistics, out: out, gone: gone, interrupted: interrupted, status: status, phases: phases)
        return Outcome(status: discovered.finalStatus(status, console: console), manifest: manifest, statistics: statistics)
    }
}
