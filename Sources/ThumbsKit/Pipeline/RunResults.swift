import Foundation

/// What a run's items become, in source order, without holding them (issue
/// 23): each record is written at once as its manifest line to a spool file
/// under `OUT/.thumbs/tmp/`, added to the statistics (`StatisticsAccumulator`)
/// and to the report's gathering (`ReportGatherer`), and its perceptual hash
/// goes to the look-alike spill (`LookalikeSpill`). At the end, the groups
/// are made (`LookalikeSpill.group`, as a merge makes them) and
/// `manifest.json` is the header followed by the spooled lines, copied as
/// they are; only the lines of look-alikes are decoded again, to be given
/// their `similarTo`. So a run writes the same manifest as before, byte for
/// byte, with a memory that does not grow with its items.
final class RunResults {
    private let out: OutputDirectory
    private let spoolPath: String
    /// The spool's descriptor; -1 once closed (`remove` may be called twice).
    private var spool: Int32
    private var text = JSONText()
    private var spooled = JSONText()
    /// Items added so far.
    private(set) var count = 0
    private var accumulator = StatisticsAccumulator(countLookalikes: false)
    private(set) var report: ReportGatherer
    /// (position, hash) of the items with a perceptual hash, in memory up
    /// to `hashesInMemory` of them, then in `spill`.
    private var hashes: [UInt64] = []
    private var spill: LookalikeSpill?
    private let name: String
    private let hashesInMemory = RunResults.hashesInMemory
    private var decoders: [String: Int] = [:]
    /// Output paths of the items (for `--prune`, which must not delete a
    /// path a remaining item records), when asked for.
    private let outputPaths: OutputPathIndex?
    private var index: MergeIndex?
    /// The groups of a run whose hashes stayed in memory: each member's
    /// (position, representative's position, distance), in position order.
    private var members: [(position: Int, representative: Int, distance: Int)] = []
    private var similar = LookalikeGroups.Summary()
    /// The manifest's `kept` records (`keep`), spooled beside the items'
    /// lines: opened on the first.
    private var keptSpool: Int32 = -1
    private var keptText = JSONText()
    private(set) var keptCount = 0
    /// The ids of the sources gone, for the manifest's `gone` (`addGone`).
    private var goneIDs: ScratchText?
    private(set) var goneCount = 0

    /// Hashes grouped in memory (`LookalikeGroups`; `SpillLimit`: 262,144
    /// of 16 bytes, a position and a hash); a run with more groups them
    /// from files and an SQLite index as a merge does (`LookalikeSpill`).
    /// They are a list in position order, not a map: they spill to the
    /// look-alike files a merge reads, not to a `SpillingStore`.
    static var hashesInMemory: Int { SpillLimit.entries(bytesPerEntry: 16) }
    private var failure: RunError?

    /// Manifest text held before it is written to its spool: 1 MiB, a
    /// thousand lines or so for one `write`, which costs no more than a
    /// line's share of the run's memory.
    static let spoolFlushBytes = 1 << 20

    init(out: OutputDirectory, trackOutputs: Bool) throws(RunError) {
        self.out = out
        let name = "run-items-\(UUID().uuidString)"
        self.name = name
        spoolPath = out.temporaryDirectory + "/" + name + ".ndjson"
        do {
            spool = try FileDescriptor.open(spoolPath, .readWrite, [.create, .truncate, .noFollow], permissions: 0o600)
        } catch {
            throw .fatal("cannot write \(spoolPath): \(error.text)")
        }
        report = ReportGatherer(spool: try ReportSpool(file: out.temporaryDirectory + "/" + name + "-failures.tmp"),
                                warningSpool: try ReportSpool(file: out.temporaryDirectory + "/" + name + "-warnings.tmp"))
        outputPaths = trackOutputs ? OutputPathIndex(path: out.temporaryDirectory + "/" + name + "-outputs.sqlite") : nil
        text.reserve(Self.spoolFlushBytes + 64 * 1024)
    }

    deinit { remove() }

    /// Deletes the spool and the scratch files.
    func remove() {
        if spool >= 0 { try? FileDescriptor.close(spool) }
        spool = -1
        try? PathChanges.remove(spoolPath)
        goneIDs?.remove()
        if keptSpool >= 0 { try? FileDescriptor.close(keptSpool) }
        keptSpool = -1
        try? PathChanges.remove(keptPath)
        index?.remove()
        index = nil
        outputPaths?.remove()
    }

    /// The next item in source order. Its `similarTo` is made anew at the end.
    func add(_ record: ManifestItem) {
        var item = record
        item.similarTo = nil
        if item.status != .failed, let hash = item.phash.flatMap(PerceptualHash.parse) {
            do { try addHash(position: count, hash) } catch { keep(error) }
        }
        if let path = item.decoder { decoders[path.rawValue, default: 0] += 1 }
        accumulator.add(item)
        report.add(item)
        if let outputPaths {
            for output in item.outputs {
                do { try outputPaths.add(output.path) } catch { keep(error) }
            }
        }
        // Each spooled line: where its `similarTo` goes, a space, the
        // item's manifest text.
        var similarAt = 0
        spooled.removeAll()
        ManifestWriter.write(item, into: &spooled, similarAt: &similarAt)
        text.int(similarAt)
        text.raw(" ")
        spooled.withBytes { (raw: UnsafeRawBufferPointer) in text.append(raw) }
        text.raw("\n")
        count += 1
        if text.count >= Self.spoolFlushBytes { flush() }
    }

    /// A record of the last runs that stays in the manifest's `kept`, not
    /// among the items (`OutputPruner.settle`): not counted, reported or
    /// grouped.
    func keep(_ record: ManifestItem) {
        if keptSpool < 0 {
            do {
                keptSpool = try FileDescriptor.open(keptPath, .readWrite, [.create, .truncate, .noFollow], permissions: 0o600)
            } catch {
                return keep(RunError.fatal("cannot write \(keptPath): \(error.text)"))
            }
        }
        var item = record
        item.similarTo = nil
        ManifestWriter.write(item, into: &keptText)
        keptText.raw("\n")
        keptCount += 1
        if keptText.count >= Self.spoolFlushBytes { flushKept() }
    }

    /// A source gone since the last run, in the last run's order: its id
    /// goes to the manifest's `gone` through a scratch file, not a list.
    func addGone(_ id: String) {
        do {
            if goneIDs == nil { goneIDs = try ScratchText(path: out.temporaryDirectory + "/" + name + "-gone.txt") }
            try goneIDs?.add(separator: ", ") { $0.string(id) }
            goneCount += 1
        } catch {
            keep(error)
        }
    }

    private var keptPath: String { out.temporaryDirectory + "/" + name + "-kept.ndjson" }

    private func flushKept() {
        guard failure == nil, keptSpool >= 0 else { return keptText.removeAll() }
        let code = keptText.bytes.withUnsafeBytes { writeAll(keptSpool, $0) }
        if code != 0 { keep(.fatal("cannot write \(keptPath): \(errnoText(code))")) }
        keptText.removeAll()
    }

    private func addHash(position: Int, _ hash: UInt64) throws(RunError) {
        if let spill { return try spill.add(position: position, hash: hash) }
        hashes.append(UInt64(position))
        hashes.append(hash)
        guard hashes.count > 2 * hashesInMemory else { return }
        let spill = try LookalikeSpill(folder: out.temporaryDirectory, name: name + "-lookalikes")
        for k in stride(from: 0, to: hashes.count, by: 2) { try spill.add(position: Int(hashes[k]), hash: hashes[k + 1]) }
        hashes = []
        self.spill = spill
    }

    /// Items decoded per path (the manifest's `run.decoders`).
    var decoderCounts: SortedMap<Int> {
        var counts = SortedMap<Int>()
        for (path, n) in decoders { counts[path] = n }
        return counts
    }

    /// Whether an item added records `path` as an output (with `trackOutputs`).
    func records(outputPath path: String) -> Bool {
        outputPaths?.contains(path) ?? false
    }

    private func flush() {
        guard failure == nil else { return text.removeAll() }
        let code = text.bytes.withUnsafeBytes { writeAll(spool, $0) }
        if code != 0 { keep(.fatal("cannot write \(spoolPath): \(errnoText(code))")) }
        text.removeAll()
    }

    private func keep(_ error: RunError) {
        if failure == nil { failure = error }
    }

    /// Groups the look-alikes among the items added (`distance` 0: none).
    func group(distance: Int) throws(RunError) -> LookalikeGroups.Summary {
        flush()
        if let failure { throw failure }
        guard let spill else {
            // In memory: the same rule (`LookalikeGroups.assign`) over the
            // items that have a hash, in position order.
            let values = stride(from: 1, to: hashes.count, by: 2).map { Optional(hashes[$0]) }
            let matches = LookalikeGroups.assign(values, maxDistance: distance)
            members = matches.enumerated().compactMap { k, match in
                match.map { (Int(hashes[2 * k]), Int(hashes[2 * $0.representative]), $0.distance) }
            }
            hashes = []
            similar = LookalikeGroups.summary(matches)
            return similar
        }
        // A smaller page cache than a merge's: a run shares its memory
        // with libvips and its decode threads.
        let index = try MergeIndex(stateDirectory: out.temporaryDirectory, name: name + "-groups", cacheMiB: 8)
        self.index = index
        do { try index.dropChecks() } catch { throw .fatal("look-alike grouping: \(error.message)") }
        similar = try spill.group(distance: distance, index: index)
        return similar
    }

    /// The statistics of the items, with the run's counters (after `group`).
    func statistics(run: RunCounters?) -> Statistics {
        accumulator.finish(run: run, similar: similar)
    }

    /// Writes `manifest.json`: `header`, then every spooled line, the
    /// look-alikes' lines with their `similarTo` (after `group`). Called
    /// again after a late signal, it writes the same lines under the new
    /// header (the report's groups are gathered only once).
    func writeManifest(_ header: Manifest, shardOrder: ScratchText? = nil) throws(RunError) {
        flush()
        flushKept()
        do { try goneIDs?.finishWriting() } catch { keep(error) }
        if let failure { throw failure }
        var inserts: [ManifestLines.HeaderInsert] = []
        if let goneIDs, header.gone != nil { inserts.append(.init(after: Array("\n  \"gone\": [".utf8), text: goneIDs)) }
        if let shardOrder, header.run?.shardOrder != nil { inserts.append(.init(after: Array("\"shardOrder\":\"".utf8), text: shardOrder)) }
        let gatherGroups = !groupsGathered
        groupsGathered = true
        let reader = FileLines(fd: spool, from: 0)
        var spliced = JSONText()
        try ManifestLines.write(header, in: out, failing: "cannot write the manifest", what: "manifest", inserts: inserts) { lines, emit in
            let groups = try LookalikeGroupCursor(index: index, members: members)
            var position = 0
            while position < count, let spooledLine = try reader.next() {
                defer { position += 1 }
                guard let (similarAt, line) = Self.split(spooledLine) else {
                    throw RunError.fatal("the run's item spool \(spoolPath) is damaged at item \(position + 1)")
                }
                if position == groups.nextLeader {
                    guard let (id, _, _) = ManifestItemDecoder.itemObject(in: line) else {
                        throw RunError.fatal("the run's item spool \(spoolPath) is damaged at item \(position + 1)")
                    }
                    try groups.leaderMet(id: id)
                }
                guard position == groups.nextMember, let similar = try groups.memberMet() else {
                    try lines.add(encoded: line, emit)
                    continue
                }
                spliced.removeAll()
                spliced.append(UnsafeRawBufferPointer(rebasing: line[..<similarAt]))
                ManifestWriter.write(similar, into: &spliced)
                spliced.append(UnsafeRawBufferPointer(rebasing: line[similarAt...]))
                try spliced.withBytes { (raw: UnsafeRawBufferPointer) throws(ItemError) in try lines.add(encoded: raw, emit) }
                if gatherGroups {
                    // The report's groups show their first members'
                    // tiles: a line is decoded only for a tile.
                    let wantsTile = report.wantsTile(inGroupOf: similar.id)
                    guard var item = ManifestItemDecoder.decode(line, fields: wantsTile ? .all : .outputs) else {
                        throw RunError.fatal("the run's item spool \(spoolPath) is damaged at item \(position + 1)")
                    }
                    if wantsTile {
                        item.similarTo = similar
                        report.addToGroup(item)
                    } else {
                        report.countInGroup(of: similar.id, hasOutputs: !item.outputs.isEmpty)
                    }
                }
            }
            guard position == count else {
                throw RunError.fatal("the run's item spool \(spoolPath) ends after \(position) of \(count) items")
            }
            guard keptCount > 0 else { return }
            lines.startKept()
            let kept = FileLines(fd: keptSpool, from: 0)
            var written = 0
            while written < keptCount, let line = try kept.next() {
                try lines.add(encoded: line, emit)
                written += 1
            }
            guard written == keptCount else {
                throw RunError.fatal("the run's spool of kept records \(keptPath) ends after \(written) of \(keptCount)")
            }
        }
        // A second write (a late signal) starts the representatives anew.
        try? index?.database.execute("DELETE FROM repids")
    }

    private var groupsGathered = false

    /// A spooled line's `similarTo` offset and its manifest text.
    private static func split(_ line: UnsafeRawBufferPointer) -> (Int, UnsafeRawBufferPointer)? {
        var value = 0, i = 0
        while i < line.count, i < 9, line[i] >= 0x30, line[i] <= 0x39 {
            value = value * 10 + Int(line[i] - 0x30)
            i += 1
        }
        guard i > 0, i < line.count, line[i] == 0x20 else { return nil }
        let text = UnsafeRawBufferPointer(rebasing: line[(i + 1)...])
        guard value <= text.count else { return nil }
        return (value, text)
    }

    /// Ends the report's gathering (after the first `writeManifest`).
    func finishReport() {
        report.finish()
    }
}

/// The output paths a run's items record (`--prune` asks it of every gone
/// source's outputs): a `SpillingStore` used as a set, in memory up to
/// `pathsInMemory`, then an SQLite file under `OUT/.thumbs/tmp/`.
final class OutputPathIndex {
    private let paths: SpillingStore<KeyOnly>

    /// What a path costs in memory: about 200 bytes (a path of 60 to 100
    /// characters in its heap block, and the table's slot).
    static let pathBytes = 200

    /// Paths kept in memory before they go to the file (`SpillLimit`: 20,971).
    static var pathsInMemory: Int { SpillLimit.entries(bytesPerEntry: pathBytes) }

    init(path: String) {
        paths = SpillingStore(path: path, limit: Self.pathsInMemory, cacheMiB: 8)
    }

    func add(_ output: String) throws(RunError) {
        do {
            try paths.set(KeyOnly(), for: output)
        } catch {
            throw .fatal("cannot index the run's output paths: \(error.message)")
        }
    }

    func contains(_ output: String) -> Bool {
        paths.contains(output)
    }

    func remove() {
        paths.remove()
    }
}
