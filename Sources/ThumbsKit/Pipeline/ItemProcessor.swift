import Foundation

/// Does the work of one item: checks whether it is unchanged, sniffs it and
/// reads its header, plans its decode, hashes what it reads, decodes it once
/// (or links the outputs of an identical source), writes its thumbnails, and
/// returns its manifest record.
///
/// What is read is what is hashed (issue 35): a file whose first plan reads
/// only some ranges of it (a camera JPEG's embedded preview, a RAW's, a
/// motion photo's JPEG without its video) is read and hashed only there,
/// when that leaves out more than `wholeReadBelow`; its record has `read`
/// and no `sha256`. `--whole-files` reads and hashes every source whole.
///
/// Every format takes the same loop (`render`): open, plan
/// (`DecoderList`), reserve (`MemoryBudget`), decode, finish, record; a
/// decoder that declines hands the source to the next entry's plan.
///
/// Every blocking step runs on one of the run's `BlockingPool`s; this type
/// only awaits.
struct ItemProcessor: Sendable {
    let settings: OutputSettings
    let limits: DecodeLimits
    let out: OutputDirectory
    /// `--jobs` threads for CPU work: decoding.
    let decoders: BlockingPool
    /// `--jobs` threads that resize and encode what the decode threads
    /// decoded (`Thumbnailer.finish`), so that a decode thread goes on to the
    /// next image instead of waiting for libvips's workers.
    let finishers: BlockingPool
    /// Threads for file work: reading sources (and hashing each chunk as it
    /// arrives), checking earlier outputs, and writing thumbnails. A write ends in an fsync (a run must survive power
    /// loss) and a read can miss the page cache; both wait on the disk for
    /// milliseconds, which on the decode threads left a core idle.
    let io: BlockingPool
    /// Admits decodes by the memory they hold at their peak.
    let memory: MemoryBudget
    /// Source files open at once, from the open to the item's record: the
    /// window's other tasks check earlier outputs, wait for downloads or
    /// write, without a descriptor and a decode each.
    let sources: AsyncSemaphore
    let previous: PreviousRun
    let force: Bool
    /// Identical bytes decode once (`DuplicateRegistry`); its finished
    /// outcomes go to disk under OUT/.thumbs/tmp.
    var registry = DuplicateRegistry()
    /// Sizes shared by more than one file source. Identical bytes need equal
    /// sizes, so a file with a size of its own skips the duplicate registry
    /// (which would otherwise hold a record of every image of the run).
    let sharedSizes: Set<Int64>
    /// Fetches remote items to a local file; nil when there are no lists.
    let fetcher: (any RemoteFetching)?
    /// Ctrl-C and SIGTERM: a long source read stops for them
    /// (`SourceInterruption`).
    var interrupt: InterruptSignal? = nil
    /// `--allow-untrusted`: content the sniffer does not know is handed to
    /// libvips (ImageMagick among its loaders) instead of failing unread.
    var allowUntrusted = false
    /// `--whole-files`: every file source read and hashed whole, whatever
    /// its decode reads (every item gets its sha256).
    var wholeFiles = false
    /// Buffers the range a decoder takes into memory is read into while it
    /// is hashed, reused from item to item (`SourceBufferPool`).
    var buffers = SourceBufferPool(count: 2)

    /// A file is read whole when its plan would leave out no more than this
    /// (one hash chunk): a JPEG with a few bytes after its end keeps its
    /// sha256, for no read worth saving.
    static let wholeReadBelow = SourceBytes.chunk

    /// `position`: the item's place in source order, which a duplicate's
    /// record keeps of its leader (`ManifestItem.leaderPosition`).
    /// `checked`: the item's earlier record was looked up already
    /// (`unchangedRecords`) and did not serve.
    func process(_ item: SourceItem, position: Int = 0, checked: Bool = false) async -> ManifestItem {
        let clock = ContinuousClock.now
        var record = await processTimed(item, position: position, checked: checked)
        record.ms = Elapsed.milliseconds(since: clock)
        return record
    }

    /// The records of the file sources among `items` that are unchanged since
    /// the last run with their outputs intact (`PreviousRun.unchangedRecord`),
    /// by their index in `items`, each with the time its check took: the
    /// checks of many items in one hop to the I/O threads. On a re-run of
    /// thousands of unchanged photos a hop per item (a task, two thread
    /// wake-ups) cost more than the check itself. With `--force` or on a
    /// first run, nothing to look up: no hop.
    func unchangedRecords(_ items: [(index: Int, item: SourceItem)]) async -> [Int: ManifestItem] {
        guard !force, !previous.isEmpty else { return [:] }
        let out = self.out, previous = self.previous, settings = self.settings
        return (try? await io.run {
            var found: [Int: ManifestItem] = [:]
            for (index, item) in items {
                guard case .file = item.origin else { continue }
                let clock = ContinuousClock.now
                let record = previous.unchangedRecord(for: item, expectedPaths: { Self.expectedPaths($0, item: item, settings: settings) },
                                                      out: out)
                guard var record else { continue }
                record.status = .unchanged
                record.duplicateOf = nil
                record.source = item.source
                record.ms = Elapsed.milliseconds(since: clock)
                found[index] = record
            }
            return found
        }) ?? [:]
    }

    private func processTimed(_ item: SourceItem, position: Int, checked: Bool) async -> ManifestItem {
        switch item.origin {
        case .unreadable(let path, let reason):
            // Still one of this run's items: its earlier record is not gone.
            let previous = self.previous
            if !previous.isEmpty { _ = try? await io.run { previous.markSeen(item.id) } }
            return failed(item, ItemError.io("\(path): \(reason)"))
        case .file(let path, let size, let modified):
            if !checked, let record = await unchangedRecords([(0, item)])[0] { return record }
            return await sources.withPermit {
                await withSource(item, path: path, reading: wholeFiles ? .whole : .asPlanned) { bytes, format, first in
                    var record = await decodeOnce(item, bytes: bytes, format: format, position: position, first: first)
                    record.bytes = Int64(bytes.count)
                    record.modified = size == Int64(bytes.count) ? modified : fileStatus(path)?.modified
                    return record
                }
            }
        case .remote:
            guard let fetcher else { return failed(item, .download("photo lists are not available")) }
            let previous = self.previous
            let previousFound = force || previous.isEmpty ? nil : (try? await io.run { previous.recordAndSettled(for: item.id) }) ?? nil
            let previousRecord = previousFound?.record
            let fetched = await fetcher.fetch(item, previous: previous.settingsMatch ? previousRecord : nil)
            guard case .notModified(let download) = fetched else { return await finishRemote(item, position: position, fetched) }
            if let previousRecord, previousRecord.status != .failed,
               await outputsIntact(previousRecord, item: item, settled: previousFound?.settled) {
                var record = previousRecord
                record.status = .unchanged
                record.duplicateOf = nil
                record.download = download
                record.meta = Self.meta(of: item)
                return record
            }
            // The server says unchanged but our outputs are gone: fetch again.
            return await finishRemote(item, position: position, await fetcher.fetch(item, previous: nil))
        }
    }

    private func finishRemote(_ item: SourceItem, position: Int, _ fetched: FetchResult) async -> ManifestItem {
        switch fetched {
        case .failed(let error, let download):
            var record = failed(item, error)
            record.download = download
            return record
        case .notModified(let download):
            var record = failed(item, .download("the server answered 304 Not Modified to an unconditional request"))
            record.download = download
            return record
        case .downloaded(let file, let download):
            defer { try? PathChanges.remove(file) }
            // Only the first bytes of a partial download came (issue 24):
            // they are hashed as a partly read file's, with the whole size,
            // so that only a download of the same size and first bytes is
            // its duplicate.
            let reading: SourceReading = download.partial == true ? .prefix(wholeSize: download.size.map(Int.init)) : .whole
            var record = await sources.withPermit {
                await withSource(item, path: file, reading: reading) { bytes, format, first in
                    var record = await decodeOnce(item, bytes: bytes, format: format, position: position, first: first)
                    record.bytes = Int64(bytes.count)
                    return record
                }
            }
            record.download = download
            // A download's record says what was fetched: `download`, not
            // `read`; a partial download keeps the digest of what was
            // received there, for a merge to find its copies by.
            let received = record.read?.digest
            record.read = nil
            if download.partial == true {
                // No sha256 of the source; its size is the whole file's.
                record.sha256 = nil
                record.bytes = download.size
                record.download?.digest = received
            }
            return record
        }
    }

    // MARK: - Unchanged

    /// `settled`: the time the record's outputs are judged by
    /// (`PreviousRun.recordAndSettled`).
    private func outputsIntact(_ record: ManifestItem, item: SourceItem, settled: FileInfo.Instant?) async -> Bool {
        guard Self.expectedPaths(record, item: item, settings: settings) != nil else { return false }
        let out = self.out
        return (try? await io.run {
            record.outputs.allSatisfy { RecordedOutput.matches($0, at: out.absolute($0.path), settled: settled) }
        }) ?? false
    }

    /// The recorded output paths, if they are still the ones this run would
    /// write for `item` (names can change when a new source collides).
    private static func expectedPaths(_ record: ManifestItem, item: SourceItem, settings: OutputSettings) -> [String]? {
        let wanted = settings.sizes.map { size in
            record.outputs.first(where: { $0.size == size.label }).map { output in
                item.outputPath(size: size, format: OutputFormat(rawValue: output.format) ?? settings.format)
            } ?? ""
        }
        let recorded = record.outputs.map(\.path)
        return wanted == recorded ? recorded : nil
    }

    // MARK: - Reading

    /// Opens the source at `path`, hashes it and hands it to `body` with the
    /// sniff's format and the first plan, or returns the item's failure. On
    /// the I/O pool: open the file and read its first bytes, sniff them (a
    /// file that is not an image fails here, having cost one small read),
    /// read the header and check the limits (`SourceLimits`). Then, as
    /// `reading` says: plan the decode (on the decode pool) and, when the
    /// plan reads only some ranges (`partialRead`), stream those through the
    /// hash; else every byte; holding none, and stopping for a signal. The
    /// decoders read the file again by ranges (`ImageSource`), from the
    /// page cache as a rule, except the one range the first plan takes into
    /// memory whole (a JPEG's bytes): the hash reads it into a buffer of
    /// `buffers`, and the decoder is served from there (`SourceFile.keep`).
    private func withSource(
        _ item: SourceItem, path: String, reading: SourceReading,
        _ body: (SourceBytes, String, DecodePlan?) async -> ManifestItem
    ) async -> ManifestItem {
        let hook = SourceReadHook.current
        let limits = SourceLimits(maxPixels: self.limits.maxPixels), name = item.source, interrupt = self.interrupt
        let allowUntrusted = self.allowUntrusted
        let file: SourceFile
        let sniffed: String
        do {
            let opened = try await io.run { () throws(ItemError) -> OpenedSource in
                let file = try SourceFile(path: path, hook: hook)
                guard file.size > 0 else { throw ItemError.decode("the file is empty (0 bytes)") }
                guard let header = try SourceHeader.read(file) ?? (allowUntrusted ? SourceHeader(format: "unknown") : nil) else {
                    throw ItemError.unsupported("not an image: \(name) (\(ImageSniffer.describe(file.prefix)))")
                }
                try limits.check(header, size: file.size, name: name)
                return OpenedSource(file: file, format: header.format)
            }
            file = opened.file
            sniffed = opened.format
        } catch {
            return failed(item, (error as? ItemError) ?? .io("\(path): \(error)"))
        }
        var first: DecodePlan?
        var ranges: ReadRanges?
        var wholeSize: Int?
        // A source no entry plans (or whose planning fails) is hashed
        // whole, and the decode plans it again to fail it as before.
        let settings = self.settings, decodeLimits = self.limits
        let format: String? = sniffed == "unknown" ? nil : sniffed
        let decoders = self.decoders
        func planFirst() async -> DecodePlan? {
            try? await decoders.run { () throws(ItemError) -> DecodePlan in
                try DecoderList.standard.plan(.file(file), format: format, settings: settings, limits: decodeLimits)
            }
        }
        switch reading {
        case .whole:
            // Planned too, for the range its decoder reads into memory
            // (`keeping`); the file is read whole all the same.
            first = await planFirst()
            _ = file.takeRecordedReads()
        case .prefix(let size):
            _ = file.takeRecordedReads()
            ranges = ReadRanges([0..<file.size])
            wholeSize = size
        case .asPlanned:
            first = await planFirst()
            let read = file.takeRecordedReads()
            if let first { ranges = Self.partialRead(first, file: file, planning: read) }
        }
        // The one range the first plan takes into memory is read into a
        // buffer as it is hashed, and decoded from there (`SourceBytes`).
        let keeping = first.flatMap(Self.keptRange)
        var record: ManifestItem
        do {
            let buffers = self.buffers
            let bytes = try await io.run { [ranges, wholeSize] () throws(ItemError) -> SourceBytes in
                if let ranges {
                    return try SourceBytes(hashing: file, ranges: ranges, wholeSize: wholeSize, interrupt: interrupt, keeping: keeping, pool: buffers)
                }
                return try SourceBytes(hashing: file, interrupt: interrupt, keeping: keeping, pool: buffers)
            }
            record = await body(bytes, sniffed, first)
        } catch {
            record = failed(item, (error as? ItemError) ?? .io("\(path): \(error)"))
        }
        // A duplicate, or a failure before the decode, never used them.
        file.releaseKept()
        // A file that failed past the sniff still says what it is (a
        // stripped CR2, a truncated MOV): the decoder never named it.
        if record.status == .failed, record.format == nil, sniffed != "unknown" { record.format = sniffed }
        return record
    }

    /// The bytes a file read in part reads, when `plan` reads only ranges
    /// of it and they, with the first bytes every source has read and the
    /// header's and the planning's reads (`planning`), leave out more than
    /// `wholeReadBelow`; nil when it is read whole.
    static func partialRead(_ plan: DecodePlan, file: SourceFile, planning: ReadRanges) -> ReadRanges? {
        guard case .ranges(let planned) = plan.reads else { return nil }
        var read = planning
        read.insert(0..<file.prefix.count)
        for range in planned { read.insert(max(0, range.lowerBound)..<min(file.size, max(range.upperBound, 0))) }
        return file.size - read.count > wholeReadBelow ? read : nil
    }

    /// The range `plan` reads into memory, when it reads one (`ByteRanges`).
    static func keptRange(_ plan: DecodePlan) -> Range<Int>? {
        guard case .ranges(let planned) = plan.reads, planned.count == 1 else { return nil }
        return planned[0]
    }

    /// Whether `plan` reads only bytes inside `read`.
    static func reads(_ plan: DecodePlan, within read: ReadRanges) -> Bool {
        guard case .ranges(let planned) = plan.reads else { return false }
        return planned.allSatisfy { range in
            range.isEmpty || read.covers(range)
        }
    }

    // MARK: - Decoding once

    /// Decodes the item, or links the outputs of the first source with the
    /// same bytes (`DuplicateRegistry`, by `bytes.key`: a partly read
    /// source's duplicates have its size and every byte it read).
    ///
    /// A partly read source whose first plan declines, and whose decode
    /// then read more than was hashed (a damaged preview; the photo's own
    /// entry decoded it), is read and hashed whole after its decode and gets
    /// its sha256 (`renderOnce`): its record never claims less than was
    /// read. A follower that found such a leader under the partial key
    /// hashes itself whole too, and is its duplicate only when the two
    /// sha256s are equal; else it decodes on its own.
    private func decodeOnce(
        _ item: SourceItem, bytes: SourceBytes, format: String, position: Int, first: DecodePlan?
    ) async -> ManifestItem {
        // The digest made by the read itself: no hash, no bytes, no item (a
        // failed read failed the item before this).
        let key = bytes.key
        if case .file(_, let size, _) = item.origin, !sharedSizes.contains(size) {
            let outcome = await renderOnce(item, bytes: bytes, format: format, first: first)
            return record(item, bytes: bytes, outcome: outcome, status: .ok)
        }
        switch await registry.claim(key) {
        case .leader:
            var outcome = await renderOnce(item, bytes: bytes, format: format, first: first)
            outcome.leaderPosition = position
            await registry.finish(key, outcome)
            return record(item, bytes: bytes, outcome: outcome, status: .ok)
        case .follower(let leader) where leader.readPastKey:
            let file = bytes.file, interrupt = self.interrupt
            let whole = try? await io.run { () throws(ItemError) -> SourceBytes in try SourceBytes(hashing: file, interrupt: interrupt) }
            if let whole, let sha = leader.wholeSHA256, whole.digest.hex == sha {
                return await duplicate(item, bytes: whole, of: leader)
            }
            let outcome = await renderOnce(item, bytes: bytes, format: format, first: first)
            return record(item, bytes: bytes, outcome: outcome, status: .ok)
        case .follower(let leader):
            return await duplicate(item, bytes: bytes, of: leader)
        }
    }

    /// The record of a source with the same bytes as `leader`: its failure,
    /// or its outputs linked under this item's names.
    private func duplicate(_ item: SourceItem, bytes: SourceBytes, of leader: DuplicateRegistry.Outcome) async -> ManifestItem {
        if let error = leader.error {
            var record = record(item, bytes: bytes, outcome: leader, status: .failed)
            record.error = ErrorRecord(ItemError(error.code, "same bytes as \(leader.leaderID): \(error.message)"))
            return record
        }
        let out = self.out
        let targets = leader.outputs.map { output in
            (output, item.outputPath(size: output.size, fileExtension: OutputNamer.fileExtension(of: output.path)))
        }
        do {
            let outputs = try await io.run { () throws(ItemError) -> [ManifestOutput] in
                try targets.map { (output, path) throws(ItemError) -> ManifestOutput in
                    try OutputLinker.link(out.absolute(output.path), to: out.absolute(path), writer: out.thumbnailWriter)
                    var copy = output
                    copy.path = path
                    return copy
                }
            }
            var record = record(item, bytes: bytes, outcome: leader, status: .duplicate)
            record.outputs = outputs
            record.duplicateOf = leader.leaderID
            record.leaderPosition = leader.leaderPosition
            return record
        } catch {
            return failed(item, (error as? ItemError) ?? .io("\(error)"))
        }
    }

    /// `render`, then, when the decode read past the bytes a partly read
    /// source hashed (`readPastKey`), the whole file hashed
    /// (`wholeSHA256`); a file that cannot be read whole now fails the item.
    private func renderOnce(_ item: SourceItem, bytes: SourceBytes, format: String, first: DecodePlan?) async -> DuplicateRegistry.Outcome {
        var outcome = await render(item, bytes: bytes, format: format, first: first)
        guard outcome.readPastKey else { return outcome }
        let file = bytes.file, interrupt = self.interrupt
        do {
            let whole = try await io.run { () throws(ItemError) -> SourceBytes in try SourceBytes(hashing: file, interrupt: interrupt) }
            outcome.wholeSHA256 = whole.digest.hex
        } catch {
            outcome.error = (error as? ItemError) ?? .io("\(file.path): \(error)")
            outcome.outputs = []
            outcome.signature = nil
        }
        return outcome
    }

    /// The one loop every format takes (`DecoderList.decode`): plan (the
    /// first entry that takes the source), reserve the plan's peak in the
    /// run's `MemoryBudget`, decode; a decoder that declines gives its
    /// reservation back, and the next entry is planned and reserved in turn.
    /// Then finish (resize, encode), give the reservation back, and write.
    ///
    /// `first`: the plan made before the read (`withSource`), decoded first.
    private func render(_ item: SourceItem, bytes: SourceBytes, format: String, first: DecodePlan?) async -> DuplicateRegistry.Outcome {
        let settings = self.settings, limits = self.limits, out = self.out
        let sniffed: String? = format == "unknown" ? nil : format
        let file = bytes.file
        var reserved = 0
        do {
            let result: (image: DecodedImage, reserved: Int, served: DecodePlan)
            do {
                defer { file.releaseKept() }
                result = try await DecoderList.standard.decode(
                    file, format: sniffed, settings: settings, limits: limits, memory: memory, pool: decoders, first: first
                )
            }
            let decoded = result.image
            reserved = result.reserved
            let readPastKey = bytes.partial.map { first != nil && !Self.reads(result.served, within: $0) } ?? false
            let rendered = decoded.needsFinishing
                ? try await finishers.run { () throws(ItemError) -> RenderedImage in
                    try Thumbnailer.finish(decoded, settings: settings)
                }
                : try Thumbnailer.finish(decoded, settings: settings)
            let thumbnails = rendered.thumbnails
            await memory.release(reserved)
            reserved = 0
            let outputs = try await io.run { () throws(ItemError) -> [ManifestOutput] in
                try thumbnails.map { thumbnail throws(ItemError) -> ManifestOutput in
                    let path = item.outputPath(size: thumbnail.size, format: thumbnail.format)
                    try out.thumbnailWriter.write(thumbnail.data, to: out.absolute(path))
                    return ManifestOutput(
                        size: thumbnail.size.label, path: path, width: thumbnail.width, height: thumbnail.height,
                        bytes: Int64(thumbnail.data.count), format: thumbnail.format.rawValue,
                        sha256: SHA256Hex.of(thumbnail.data)
                    )
                }
            }
            var outcome = DuplicateRegistry.Outcome(
                leaderID: item.id, info: decoded.info, decoder: decoded.decoder, signature: rendered.signature, outputs: outputs, error: nil,
                video: decoded.video, warnings: rendered.warnings
            )
            outcome.readPastKey = readPastKey
            return outcome
        } catch {
            await memory.release(reserved)
            let itemError = (error as? ItemError) ?? .decode("\(error)")
            var outcome = DuplicateRegistry.Outcome(leaderID: item.id, info: nil, decoder: nil, signature: nil, outputs: [], error: itemError)
            // Which plan failed is not known here: a partly read source may
            // have been read past its hashed bytes by a fallback.
            outcome.readPastKey = bytes.partial != nil && first != nil
            return outcome
        }
    }

    // MARK: - Records

    /// What the record says of the source's bytes: its sha256 when it was
    /// read whole (by the read, or after a decode that read past the
    /// hashed bytes: `wholeSHA256`), else `read` (the bytes read,
    /// `partial`); and the key `SourceOrderLeaders` relabels by.
    private func identity(_ bytes: SourceBytes, outcome: DuplicateRegistry.Outcome) -> (sha: String?, read: ReadRecord?, key: String) {
        if bytes.partial == nil { return (bytes.digest.hex, nil, bytes.key.key) }
        if let sha = outcome.wholeSHA256 { return (sha, nil, sha) }
        return (nil, ReadRecord(bytes: Int64(bytes.bytesRead), digest: bytes.digest.hex), bytes.key.key)
    }

    private func record(_ item: SourceItem, bytes: SourceBytes, outcome: DuplicateRegistry.Outcome, status: ItemStatus) -> ManifestItem {
        let identity = self.identity(bytes, outcome: outcome)
        var record = ManifestItem(id: item.id, source: item.source, status: outcome.error == nil ? status : .failed)
        record.sha256 = identity.sha
        record.read = identity.read
        record.duplicateKey = identity.key
        record.format = outcome.info?.format
        record.width = outcome.info?.width
        record.height = outcome.info?.height
        record.orientation = outcome.info?.orientation
        if status == .ok { record.decoder = outcome.decoder }
        if outcome.error == nil, let signature = outcome.signature {
            // Duplicates have the same pixels, so the leader's signature.
            record.placeholder = signature.placeholder
            record.color = signature.color
            record.phash = signature.phash
            record.video = outcome.video
            record.warnings = outcome.warnings.isEmpty ? nil : outcome.warnings
        }
        record.outputs = outcome.outputs
        record.error = outcome.error.map(ErrorRecord.init)
        record.meta = Self.meta(of: item)
        return record
    }

    private func failed(_ item: SourceItem, _ error: ItemError) -> ManifestItem {
        var record = ManifestItem(id: item.id, source: item.source, status: .failed, error: ErrorRecord(error))
        record.meta = Self.meta(of: item)
        return record
    }

    static func meta(of item: SourceItem) -> [String: JSONValue]? {
        if case .remote(_, let meta) = item.origin, !meta.isEmpty { return meta.fields }
        return nil
    }
}

/// How `ItemProcessor.withSource` reads and hashes a source.
enum SourceReading: Sendable {
    /// Every byte (`--whole-files`, a whole download).
    case whole
    /// Plan first; read and hash only what the plan reads, when that
    /// leaves out enough of the file (`ItemProcessor.partialRead`).
    case asPlanned
    /// All of the file, the first bytes of a whole of `wholeSize` bytes (a
    /// partial download), hashed as a partly read file's.
    case prefix(wholeSize: Int?)
}

/// A source file opened and sniffed, with the format its content says
/// (`SourceHeader`): what a failed item reports as its `format`.
private struct OpenedSource: Sendable {
    var file: SourceFile
    var format: String
}
