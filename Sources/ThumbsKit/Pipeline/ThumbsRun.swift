import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `thumbs run`: discovers the sources, processes every item through a
/// sliding window of tasks, and writes thumbnails, manifest, stats and report.
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
        try VipsRuntime.start()
        let jobs = max(1, options.jobs)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        VipsRuntime.setThreadsPerImage(max(1, cores / jobs))
        VipsRuntime.setUntrustedLoaders(allowed: options.allowUntrusted)

        let started = Date()
        let clock = ContinuousClock.now
        // Listening before the lists are read: Ctrl-C there exits 130 too.
        interrupt.install { [console] in
            console.event("interrupt", level: .warning,
                          "interrupted: no new downloads; finishing the images in flight, then writing the manifest (press Ctrl-C again to stop at once)")
        }
        defer { interrupt.uninstall() }
        var discovered = try await discover()
        if let shard = options.shard {
            discovered.items = discovered.items.filter { ShardPartition.contains($0.id, shard: shard) }
        }
        var items = discovered.items
        discovered.items = []
        let discoverSeconds = Self.seconds(since: clock)

        if options.dryRun {
            return dryRun(items, ignored: discovered.ignored)
        }

        let out = try OutputDirectory(path: options.outputDirectory)
        let loadStart = ContinuousClock.now
        let previous = options.force
            ? PreviousRun.empty
            : PreviousRun.load(manifestPath: out.manifestPath, journalPath: out.journalPath, settings: options.output)
        let loadSeconds = Self.seconds(since: loadStart)
        previous.warnIfUnreadable(console, manifestPath: out.manifestPath)
        let journal = Journal(path: out.journalPath)
        try journal.open(settings: options.output, keepExisting: previous.resumed)

        console.event("start", level: .info,
                      "thumbs: \(items.count) images from \(options.sources.joined(separator: " ")) → \(out.root)"
                        + (previous.resumed ? " (resuming an unfinished run)" : ""),
                      fields: ["images": .number(Double(items.count)), "out": .string(out.root),
                               "jobs": .number(Double(jobs)), "resumed": .bool(previous.resumed)])

        var records = await processAll(items, previous: previous, out: out, journal: journal,
                                       fetcher: discovered.fetcher, clock: clock)
        console.endProgress()
        let processSeconds = Self.seconds(since: clock) - discoverSeconds - loadSeconds

        let interrupted = interrupt.isRaised && records.contains(where: { $0 == nil })
        var finalItems: [ManifestItem] = []
        finalItems.reserveCapacity(items.count)
        for (index, record) in records.enumerated() {
            if let record {
                finalItems.append(record)
            } else if let earlier = previous.items[items[index].id] {
                // Not reached before the interruption: keep what is on disk on record.
                finalItems.append(earlier)
            }
        }
        // What follows builds the manifest, stats and report: let go of the
        // per-item structures the processing needed first (memory at 100k).
        records = []
        let currentIDs = Set(items.map(\.id))
        items = []
        let gone = options.shard == nil ? previous.order.filter { !currentIDs.contains($0) } : []
        if options.prune, !interrupted {
            prune(gone, previous: previous, keeping: finalItems, out: out)
        }

        let writeStart = ContinuousClock.now
        let wall = Self.seconds(since: clock)
        var counters = RunCounters(ignored: discovered.ignored, wallSeconds: (wall * 1000).rounded() / 1000)
        counters.decoders = Self.decoderCounts(finalItems)
        counters.similar = options.similar
        let groupStart = ContinuousClock.now
        LookalikeGrouping.apply(to: &finalItems, distance: options.similar)
        let groupSeconds = Self.seconds(since: groupStart)
        if let downloads = await discovered.downloadCounters?() { counters.downloads = downloads }
        let manifest = Manifest(
            tool: .init(libvips: VipsRuntime.version),
            startedAt: Timestamp.string(started), finishedAt: Timestamp.now(),
            settings: options.output, shard: options.shard,
            interrupted: interrupted ? true : nil,
            gone: gone.isEmpty ? nil : gone,
            run: counters, items: finalItems
        )
        let statistics = Statistics(manifest: manifest)
        try ResultWriter(out: out, writeReport: options.writeReport).write(manifest, statistics)
        if !interrupted { journal.remove() }
        let writeSeconds = Self.seconds(since: writeStart)

        let status: ExitStatus
        if interrupted {
            status = .interrupted
        } else if options.maxFailures.isExceeded(failed: statistics.counts.failed, total: finalItems.count) {
            status = .failures
        } else {
            status = .success
        }
        let phases = Phases(discover: discoverSeconds, load: loadSeconds, process: processSeconds, group: groupSeconds, write: writeSeconds)
        summarise(statistics, out: out, gone: gone, interrupted: interrupted, status: status, phases: phases)
        return Outcome(status: status, manifest: manifest, statistics: statistics)
    }

    // MARK: - Steps

    /// The sliding window: `window` tasks in flight, one added as one ends;
    /// every blocking step runs on a pool of our own: hashing and decoding on
    /// `--jobs` decode threads, resizing and encoding decoded JPEGs on as many
    /// finishing threads, file reads and writes on I/O threads. The
    /// processor (and with it the duplicate registry) lives only as long as
    /// this call.
    private func processAll(
        _ items: [SourceItem], previous: PreviousRun, out: OutputDirectory, journal: Journal,
        fetcher: (any RemoteFetching)?, clock: ContinuousClock.Instant
    ) async -> [ManifestItem?] {
        let jobs = max(1, options.jobs)
        let decoders = BlockingPool(threads: jobs)
        let finishers = BlockingPool(threads: jobs)
        let io = BlockingPool(threads: max(2, jobs))
        let processor = ItemProcessor(
            settings: options.output,
            limits: DecodeLimits(maxPixels: options.maxPixels, failOn: options.failOn),
            out: out, decoders: decoders, finishers: finishers, io: io,
            memory: MemoryBudget(capacity: DirectJPEG.memoryBudget * jobs),
            previous: previous, force: options.force,
            sharedSizes: Self.sharedSizes(items), fetcher: fetcher
        )
        // Tasks in flight: per decoder, one image decoding, one read and
        // waiting, one being written and one more, so a decoder never waits
        // for I/O; plus room for downloads to run ahead of decoding.
        // Downloaded images wait as files on disk, so memory stays bounded
        // (about jobs × 4 source files in memory at once).
        let window = jobs * 4 + (fetcher != nil ? 2 * max(1, options.downloadJobs) : 0)
        var records = [ManifestItem?](repeating: nil, count: items.count)
        var done = 0, failed = 0
        await withTaskGroup(of: (Int, ManifestItem).self) { group in
            var next = 0
            while next < items.count && next < window {
                let index = next, item = items[index]
                group.addTask { (index, await processor.process(item)) }
                next += 1
            }
            while let (index, record) = await group.next() {
                if RemoteInterruption.isAbandoned(record) { continue }  // not reached: left off the record
                records[index] = record
                if record.status != .unchanged { journal.append(record) }
                done += 1
                if done % 2000 == 0 { MemoryTrim.releaseFreePages() }
                report(record)
                if record.status == .failed { failed += 1 }
                let elapsed = Self.seconds(since: clock)
                console.progress(done: done, total: items.count, failed: failed, elapsed: elapsed)
                if next < items.count && !interrupt.isRaised {
                    let index = next, item = items[index]
                    group.addTask { (index, await processor.process(item)) }
                    next += 1
                }
            }
        }
        await decoders.shutdown()
        await finishers.shutdown()
        await io.shutdown()
        return records
    }

    /// Items of every source, with fetching for the list sources.
    struct Discovered: Sendable {
        var items: [SourceItem]
        var ignored: Int
        var fetcher: (any RemoteFetching)?
        var downloadCounters: (@Sendable () async -> DownloadCounters)?
    }

    private func discover() async throws(RunError) -> Discovered {
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
        return discovered
    }

    private func report(_ record: ManifestItem) {
        if record.status == .failed, let error = record.error {
            console.event("item-failed", level: .error, "\(record.source): \(error.code): \(error.message)",
                          fields: ["id": .string(record.id), "source": .string(record.source),
                                   "code": .string(error.code), "message": .string(error.message)])
        } else {
            let sizes = record.outputs.map { "\($0.width)×\($0.height)" }.joined(separator: ", ")
            var fields: [String: JSONValue] = ["id": .string(record.id), "status": .string(record.status.rawValue), "ms": .number(record.ms)]
            var decoded = ""
            if let decoder = record.decoder {
                fields["decoder"] = .string(decoder.rawValue)
                decoded = ", \(decoder.rawValue)"
            }
            console.event("item", level: .debug, "\(record.status.rawValue): \(record.id) → \(sizes) (\(record.ms) ms\(decoded))",
                          fields: fields)
        }
    }

    /// Deletes the outputs of sources gone since the last run, never through
    /// a link inside OUT nor outside it (`OutputDirectory.removeOutput`).
    private func prune(_ gone: [String], previous: PreviousRun, keeping items: [ManifestItem], out: OutputDirectory) {
        let kept = Set(items.flatMap { $0.outputs.map(\.path) })
        var refused: [String] = []
        for id in gone {
            for output in previous.items[id]?.outputs ?? [] where !kept.contains(output.path) {
                if let problem = out.removeOutput(output.path) { refused.append(problem) }
            }
        }
        if let first = refused.first {
            console.event("prune-refused", level: .warning,
                          "\(refused.count) output\(refused.count == 1 ? "" : "s") of gone sources not deleted: \(first)",
                          fields: ["count": .number(Double(refused.count)), "first": .string(first)])
        }
    }

    private func dryRun(_ items: [SourceItem], ignored: Int) -> Outcome {
        var lines = ""  // written 64 KB at a time: a million lines are never held at once
        let outRoot = options.outputDirectory
        let previous = PreviousRun.load(
            manifestPath: OutputDirectory.manifestPath(in: outRoot), journalPath: OutputDirectory.journalPath(in: outRoot),
            settings: options.output)
        if !options.force { previous.warnIfUnreadable(console, manifestPath: OutputDirectory.manifestPath(in: outRoot)) }
        var unchanged = 0
        for item in items {
            let targets = options.output.sizes.map { item.outputPath(size: $0, format: options.output.format) }
            var action = "process"
            if !options.force, previous.unchangedSource(item) != nil {
                action = "unchanged"
                unchanged += 1
            }
            lines += "\(action)\t\(VisibleText.forTerminal(item.source))\t→ \(VisibleText.forTerminal(targets.joined(separator: ", ")))\n"
            if lines.utf8.count >= 1 << 16 { FileHandle.standardOutput.write(Data(lines.utf8)); lines = "" }
        }
        FileHandle.standardOutput.write(Data(lines.utf8))
        console.summary(["dry run: \(items.count) images (\(items.count - unchanged) to process, \(unchanged) unchanged, \(ignored) other files ignored); nothing written"])
        return Outcome(status: .success, manifest: nil, statistics: nil)
    }

    /// Where the time went, for the `finish` event.
    struct Phases {
        var discover, load, process, group, write: Double
    }

    private func summarise(_ stats: Statistics, out: OutputDirectory, gone: [String], interrupted: Bool, status: ExitStatus, phases: Phases) {
        func rounded(_ x: Double) -> JSONValue { .number((x * 1000).rounded() / 1000) }
        let c = stats.counts
        let rate = String(format: "%.1f", stats.time.imagesPerSecond)
        let seconds = String(format: "%.1f", stats.time.wallSeconds)
        var lines = [
            "\(interrupted ? "interrupted" : "done"): \(c.ok) ok, \(c.unchanged) unchanged, \(c.duplicate) duplicate, \(c.failed) failed"
                + " of \(c.discovered) images (\(c.ignored) other files ignored) in \(seconds) s, \(rate) images/s",
            "thumbnails in \(out.root)/{\(options.output.sizes.map(\.label).joined(separator: ","))}/",
            "manifest \(out.manifestPath)" + (options.writeReport ? ", report \(out.reportPath)" : ""),
        ]
        if !gone.isEmpty {
            lines.append("\(gone.count) sources gone since the last run" + (options.prune ? " (outputs pruned)" : "; --prune removes their outputs"))
        }
        if status == .failures {
            lines.append("\(c.failed) failed, more than --max-failures \(options.maxFailures): exit 1")
        }
        if interrupted {
            lines.append("run the same command again to finish the remaining images")
        }
        console.summary(lines)
        var fields: [String: JSONValue] = [
            "ok": .number(Double(c.ok)), "unchanged": .number(Double(c.unchanged)),
            "duplicate": .number(Double(c.duplicate)), "failed": .number(Double(c.failed)),
            "discovered": .number(Double(c.discovered)), "ignored": .number(Double(c.ignored)),
            "wallSeconds": .number(stats.time.wallSeconds), "imagesPerSecond": .number(stats.time.imagesPerSecond),
            "discoverSeconds": rounded(phases.discover), "loadSeconds": rounded(phases.load),
            "processSeconds": rounded(phases.process), "groupSeconds": rounded(phases.group), "writeSeconds": rounded(phases.write),
            "exitCode": .number(Double(status.rawValue)), "manifest": .string(out.manifestPath),
        ]
        if interrupted { fields["interrupted"] = .bool(true) }
        if console.format == .json || console.verbosity >= .verbose {
            console.event("finish", level: console.format == .json ? .info : .debug,
                          "time: discover \(String(format: "%.3f", phases.discover)) s, previous run \(String(format: "%.3f", phases.load)) s, images \(String(format: "%.3f", phases.process)) s, look-alikes \(String(format: "%.3f", phases.group)) s, manifest/stats/report \(String(format: "%.3f", phases.write)) s", fields: fields)
        }
    }

    /// Items decoded per path in this run.
    static func decoderCounts(_ items: [ManifestItem]) -> SortedMap<Int> {
        var counts = SortedMap<Int>()
        for item in items {
            if let path = item.decoder { counts[path.rawValue] = (counts[path.rawValue] ?? 0) + 1 }
        }
        return counts
    }

    /// File sizes that occur more than once among the items.
    static func sharedSizes(_ items: [SourceItem]) -> Set<Int64> {
        var seen = Set<Int64>(), shared = Set<Int64>()
        for item in items {
            if case .file(_, let size, _) = item.origin, !seen.insert(size).inserted { shared.insert(size) }
        }
        return shared
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
