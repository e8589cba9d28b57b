import Foundation

/// The processing phase of `thumbs run`: every item through a sliding
/// window of tasks, `window` in flight, one added as one ends. Every
/// blocking step runs on a pool of our own: hashing and decoding on `--jobs`
/// decode threads, resizing and encoding decoded JPEGs on as many finishing
/// threads, file reads and writes on I/O threads. The processor (and with it
/// the duplicate registry) lives only as long as one `run`.
struct ProcessingWindow {
    let options: RunOptions
    let log: RunLog
    let interrupt: InterruptSignal

    var jobs: Int { max(1, options.jobs) }

    /// Sets libvips up for this run: its threads per image share the cores
    /// among `--jobs` images; untrusted loaders as `--allow-untrusted` says.
    static func startLibvips(_ options: RunOptions) throws(RunError) {
        try VipsRuntime.start()
        MemoryTrim.mapLargeBlocks()
        let cores = ProcessInfo.processInfo.activeProcessorCount
        VipsRuntime.setThreadsPerImage(max(1, cores / max(1, options.jobs)))
        VipsRuntime.setUntrustedLoaders(allowed: options.allowUntrusted)
    }

    /// Each item's record, in `items`' order; nil for an item not reached
    /// before an interruption (or abandoned by it), or after the journal
    /// failed. The journal is flushed as it goes (`Journal.needsSync`) and
    /// once more at the end, on the I/O threads.
    func run(
        _ items: SourceItems, previous: PreviousRun, out: OutputDirectory, journal: Journal,
        fetcher: (any RemoteFetching)?, clock: ContinuousClock.Instant
    ) async -> [ManifestItem?] {
        let jobs = self.jobs
        let console = log.console
        let decoders = BlockingPool(threads: jobs)
        let finishers = BlockingPool(threads: jobs)
        let io = BlockingPool(threads: max(2, jobs))
        let processor = ItemProcessor(
            settings: options.output,
            limits: DecodeLimits(maxPixels: options.maxPixels, failOn: options.failOn),
            out: out, decoders: decoders, finishers: finishers, io: io,
            memory: MemoryBudget(capacity: DirectJPEG.memoryBudget * jobs),
            sources: AsyncSemaphore(permits: Self.sourcesInMemory(jobs: jobs)),
            previous: previous, force: options.force,
            sharedSizes: Self.sharedSizes(items), fetcher: fetcher, interrupt: interrupt,
            allowUntrusted: options.allowUntrusted
        )
        // Tasks in flight: per decoder, one image decoding, one read and
        // waiting, one being written and one more, so a decoder never waits
        // for I/O; plus room for downloads to run ahead of decoding.
        // Downloaded images wait as files on disk, and only
        // `sourcesInMemory` tasks hold a source file's bytes at once.
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
                // Not reached: left off the record.
                if RemoteInterruption.isAbandoned(record) || SourceInterruption.isAbandoned(record) { continue }
                records[index] = record
                if record.status != .unchanged {
                    journal.append(record)
                    if journal.needsSync { _ = try? await io.run { journal.synchronise() } }
                }
                done += 1
                if done % 2000 == 0 { MemoryTrim.releaseFreePages() }
                log.item(record)
                if record.status == .failed { failed += 1 }
                let elapsed = Elapsed.seconds(since: clock)
                console.progress(done: done, total: items.count, failed: failed, elapsed: elapsed)
                // A journal that cannot be written cannot resume a run
                // killed from now on: no new image starts (exit 3 follows).
                if next < items.count && !interrupt.isRaised && journal.failure == nil {
                    let index = next, item = items[index]
                    group.addTask { (index, await processor.process(item)) }
                    next += 1
                }
            }
        }
        // Every line on the disk before the manifest replaces the journal.
        _ = try? await io.run { journal.synchronise() }
        await decoders.shutdown()
        await finishers.shutdown()
        await io.shutdown()
        return records
    }

    /// Source files held in memory at once: one per decode thread, and one
    /// read ahead. The window's other tasks need no source buffer (re-run
    /// checks, downloads, waits); when each held one, at `--jobs 2` eight
    /// 12 MP files took 21 MB of a 120 MB run. One read ahead instead of one
    /// per thread measured the same speed on the baseline corpus.
    static func sourcesInMemory(jobs: Int) -> Int {
        jobs + 1
    }

    /// File sizes that occur more than once among the items.
    static func sharedSizes(_ items: some Sequence<SourceItem>) -> Set<Int64> {
        var seen = Set<Int64>(), shared = Set<Int64>()
        for item in items {
            if case .file(_, let size, _) = item.origin, !seen.insert(size).inserted { shared.insert(size) }
        }
        return shared
    }
}
