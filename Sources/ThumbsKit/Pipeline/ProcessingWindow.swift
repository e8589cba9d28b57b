import Foundation

/// The processing phase of `thumbs run`: every item through a sliding
/// window of tasks, `window` in flight, one added as one ends. Every
/// blocking step runs on a pool of our own: decoding on `--jobs` decode threads, resizing and encoding decoded pixels (every decoder but libvips) on as many finishing threads, file reads (hashed as they arrive) and writes on I/O threads. The processor (and with it
/// the duplicate registry) lives only as long as one `run`.
struct ProcessingWindow {
    let options: RunOptions
    let log: RunLog
    let interrupt: InterruptSignal
    var onItem: (@Sendable (ManifestItem) -> Void)? = nil

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

    /// What processing ended with.
    struct Processed {
        /// Items that got no record of this run (an interruption, or a
        /// journal that failed, stopped them first); each kept its earlier
        /// record, if it had one.
        var unreached = 0
    }

    /// Records finished but not yet handed on, at most: an item that takes
    /// long (a video, a slow download) holds back the ones after it, and
    /// past this many the window waits for it instead of starting more.
    /// 4,096 records of about 1.5 KB each (a `ManifestItem` with its source
    /// path, three outputs, placeholders and hashes): 6 MB at most held
    /// behind one slow item, which at a few hundred items a second is the
    /// ten seconds or more of work a video or a retried download takes.
    static let heldRecords = 4096

    /// Processes every item and hands `emit` each record in `items`' order
    /// as soon as it and all before it are done (`RunResults` writes it
    /// and lets it go). An item not reached before an interruption (or
    /// abandoned by it), or after the journal failed, is handed on as its
    /// earlier record, if it has one. The journal is flushed as it goes
    /// (`Journal.needsSync`) and once more at the end, on the I/O threads.
    func run(
        _ items: SourceItems, sharedSizes: Set<Int64>, previous: PreviousRun, out: OutputDirectory, journal: Journal,
        fetcher: (any RemoteFetching)?, clock: ContinuousClock.Instant, emit: (ManifestItem) -> Void
    ) async -> Processed {
        let jobs = self.jobs
        let console = log.console
        let decoders = BlockingPool(threads: jobs)
        let finishers = BlockingPool(threads: jobs)
        let io = BlockingPool(threads: max(2, jobs))
        let registry = DuplicateRegistry(folder: out.temporaryDirectory)
        let processor = ItemProcessor(
            settings: options.output,
            limits: DecodeLimits(maxPixels: options.maxPixels, failOn: options.failOn),
            out: out, decoders: decoders, finishers: finishers, io: io,
            memory: MemoryBudget(jobs: jobs),
            sources: AsyncSemaphore(permits: Self.sourcesInMemory(jobs: jobs)),
            previous: previous, force: options.force, registry: registry,
            sharedSizes: sharedSizes, fetcher: fetcher, interrupt: interrupt,
            allowUntrusted: options.allowUntrusted,
            wholeFiles: options.wholeFiles,
            buffers: SourceBufferPool(count: Self.sourcesInMemory(jobs: jobs))
        )
        // Tasks in flight: per decoder, one image decoding, one read and
        // waiting, one being written and one more, so a decoder never waits
        // for I/O; plus room for downloads to run ahead of decoding.
        // Downloaded images wait as files on disk, and only
        // `sourcesInMemory` tasks hold a source file's bytes at once.
        let window = jobs * 4 + (fetcher != nil ? 2 * max(1, options.downloadJobs) : 0)
        // Finished records waiting for an earlier one; nil: abandoned.
        var held: [Int: ManifestItem?] = [:]
        // Identical sources: the first in source order leads.
        let leaders = SourceOrderLeaders(folder: out.temporaryDirectory)
        defer { leaders.remove() }
        func emitInOrder(_ record: ManifestItem, position: Int) {
            var record = record
            leaders.relabel(&record, position: position)
            emit(record)
        }
        var nextToEmit = 0
        var processed = Processed()
        var done = 0, failed = 0
        await withTaskGroup(of: (Int, ManifestItem).self) { group in
            var next = 0
            var inFlight = 0
            // Unchanged records found ahead of the window (`unchangedAhead`),
            // by item index, and the first index not yet checked.
            var unchanged: [Int: ManifestItem] = [:]
            var checkedUpTo = 0
            let checksAhead = !options.force && !previous.isEmpty
            func canStart(first: Bool) -> Bool {
                // A journal that cannot be written cannot resume a run
                // killed from now on: no new image starts (exit 3 follows).
                // The first window starts whatever came before it.
                next < items.count && inFlight < window && held.count < Self.heldRecords
                    && (first || (!interrupt.isRaised && journal.failure == nil))
            }
            func startMore(first: Bool = false) async {
                while canStart(first: first) {
                    let index = next
                    if checksAhead, index >= checkedUpTo {
                        let batch = index..<min(index + Self.unchangedAhead, items.count)
                        unchanged = await processor.unchangedRecords(batch.map { ($0, items[$0]) })
                        checkedUpTo = batch.upperBound
                    }
                    next += 1
                    if let record = unchanged.removeValue(forKey: index) {
                        await finished(index, record)
                        continue
                    }
                    let item = items[index]
                    group.addTask { (index, await processor.process(item, position: index, checked: checksAhead)) }
                    inFlight += 1
                }
            }
            func finished(_ index: Int, _ record: ManifestItem) async {
                // Not reached: handed on as its earlier record.
                if RemoteInterruption.isAbandoned(record) || SourceInterruption.isAbandoned(record) {
                    held[index] = .some(nil)
                } else {
                    held[index] = record
                    if record.status != .unchanged {
                        journal.append(record)
                        if journal.needsSync { _ = try? await io.run { journal.synchronise() } }
                    }
                    done += 1
                    if done % 2000 == 0 { MemoryTrim.releaseFreePages() }
                    log.item(record)
                    onItem?(record)
                    if record.status == .failed { failed += 1 }
                    let elapsed = Elapsed.seconds(since: clock)
                    console.progress(done: done, total: items.count, failed: failed, elapsed: elapsed)
                }
                while let ready = held.removeValue(forKey: nextToEmit) {
                    if let ready {
                        emitInOrder(ready, position: nextToEmit)
                    } else {
                        processed.unreached += 1
                        if let earlier = await Self.earlierRecord(items[nextToEmit].id, previous: previous, io: io) { emit(earlier) }
                    }
                    nextToEmit += 1
                }
            }
            await startMore(first: true)
            while let (index, record) = await group.next() {
                inFlight -= 1
                await finished(index, record)
                await startMore()
            }
        }
        // What was never started (or abandoned) keeps its earlier record.
        while nextToEmit < items.count {
            if let ready = held.removeValue(forKey: nextToEmit), let ready {
                emitInOrder(ready, position: nextToEmit)
            } else {
                processed.unreached += 1
                if let earlier = await Self.earlierRecord(items[nextToEmit].id, previous: previous, io: io) { emit(earlier) }
            }
            nextToEmit += 1
        }
        // Every line on the disk before the manifest replaces the journal.
        _ = try? await io.run { journal.synchronise() }
        await decoders.shutdown()
        await finishers.shutdown()
        await io.shutdown()
        await registry.remove()
        return processed
    }

    /// The record an unreached item had before, read on the I/O threads.
    private static func earlierRecord(_ id: String, previous: PreviousRun, io: BlockingPool) async -> ManifestItem? {
        (try? await io.run { previous.record(for: id) }) ?? nil
    }

    /// Items whose earlier records are checked in one hop to the I/O
    /// threads on a re-run (`ItemProcessor.unchangedRecords`): a few
    /// milliseconds of checks at most, while the items in flight go on.
    static let unchangedAhead = 64

    /// Source files held in memory at once: one per decode thread, and one
    /// read ahead. The window's other tasks need no source buffer (re-run
    /// checks, downloads, waits); when each held one, at `--jobs 2` eight
    /// 12 MP files took 21 MB of a 120 MB run. One read ahead instead of one
    /// per thread measured the same speed on the baseline corpus.
    static func sourcesInMemory(jobs: Int) -> Int {
        jobs + 1
    }
}
