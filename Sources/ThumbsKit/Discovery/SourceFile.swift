import Synchronization

/// A source file held open: its first bytes and any byte range, all through
/// one descriptor; its hash streams through it (`SourceBytes`), and every
/// decoder reads it by ranges (`ImageSource`).
///
/// This is the handle the pipeline looks at a file through before it
/// decides to read it: `ItemProcessor` sniffs `prefix`, reads the header
/// (`SourceHeader`, which follows JPEG segments and TIFF directories with
/// `bytes(at:count:)`), checks the limits (`SourceLimits`), plans the
/// decode, and only then hashes the rest, or only the ranges the plan and
/// the reads before it took (`takeRecordedReads`), and hands it to the
/// decoders (`DecoderList`). A 20 GB file that is not an image costs one
/// 64 KiB read.
///
/// Files are read, never memory-mapped (see `SourceBytes`). Only regular
/// files are opened for good: the open itself does not block (a FIFO with no
/// writer returns at once) and anything but a regular file fails with `io`.
/// Size and modification time are taken at the open; `checkUnchanged`
/// compares them after the last read.
///
/// Immutable after creation (reads use `pread`, which keeps no position), so
/// it may move between the pool and the task that waits for it.
final class SourceFile: @unchecked Sendable {
    let path: String
    /// Bytes, as `fstat` said at the open.
    let size: Int
    /// The first `prefixLength` bytes (fewer in a shorter file).
    let prefix: [UInt8]
    let hook: SourceReadHook?
    private let fd: Int32
    private let before: FileInfo
    /// Bytes of the file that its readers hold in memory now, and the most
    /// they held at once (`hold`, `letGo`): what a motion photo's test
    /// measures, rather than assumes.
    private let held = Mutex<(now: Int, peak: Int)>((0, 0))
    /// The ranges past `prefix` read so far (`bytes(at:count:)`,
    /// `read(into:at:)`), merged, while they are recorded: from the open
    /// until `takeRecordedReads()`. What the header and the planning read
    /// is part of what a partly read item hashes (`ItemProcessor`).
    private let recorded = Mutex<ReadRanges?>(ReadRanges())
    /// The one range of the file its hash read into memory for its decoder
    /// (`keep`), until `releaseKept`: then every reader of that range is
    /// served from memory, the same bytes the hash saw.
    private let kept = Mutex<KeptRange?>(nil)

    /// What is read before anything is decided: enough for every signature
    /// and for most headers (a JPEG's SOF usually follows less than 64 KiB
    /// of Exif and ICC; `SourceHeader` reads further by byte ranges).
    static let prefixLength = 64 << 10

    /// Opens `path` and reads its first bytes. Throws `io` for a file that
    /// cannot be opened or read, or is not a regular file.
    init(path: String, hook: SourceReadHook? = nil) throws(ItemError) {
        self.path = path
        self.hook = hook
        hook?.body(path, .willOpen)
        // O_NONBLOCK: opening a FIFO must not wait for a writer.
        let fd: Int32
        do {
            fd = try FileDescriptor.open(path, .readOnly, .nonBlocking)
        } catch {
            throw ItemError.io("cannot open \(path): \(error.text)")
        }
        let info: FileInfo
        do {
            info = try FileInfo.lookup(descriptor: fd)
        } catch {
            try? FileDescriptor.close(fd)
            throw ItemError.io("cannot read \(path): \(error.text)")
        }
        guard info.kind == .regular else {
            try? FileDescriptor.close(fd)
            throw ItemError.io("cannot read \(path): \(info.kind.inWords), not a regular file")
        }
        self.fd = fd
        before = info
        size = Int(info.size)
        hook?.body(path, .opened)
        let first: [UInt8]
        do {
            first = try Self.bytes(fd, at: 0, count: min(size, Self.prefixLength), path: path)
            hook?.reads?(path, 0..<first.count)
        } catch {
            try? FileDescriptor.close(fd)
            throw error
        }
        if first.count < min(size, Self.prefixLength) {
            try? FileDescriptor.close(fd)
            throw Self.changed(path, detail: "it ended after \(first.count) of \(size) bytes")
        }
        prefix = first
    }

    deinit {
        releaseKept()
        try? FileDescriptor.close(fd)
    }

    /// Up to `count` bytes at `offset`: fewer at the end of the file, none
    /// past it. From `prefix` when it holds them.
    func bytes(at offset: Int, count: Int) throws(ItemError) -> [UInt8] {
        guard offset >= 0, count > 0, offset < size else { return [] }
        let count = min(count, size - offset)
        if offset + count <= prefix.count { return Array(prefix[offset..<offset + count]) }
        record(offset..<offset + count)
        let read = try Self.bytes(fd, at: offset, count: count, path: path)
        hook?.reads?(path, offset..<offset + read.count)
        return read
    }

    /// Fills `buffer` from `offset`, in as many reads as it takes; returns
    /// the bytes read, fewer only at the end of the file.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(ItemError) -> Int {
        record(offset..<offset + buffer.count)
        let n = try Self.fill(fd, buffer, at: offset, path: path)
        hook?.reads?(path, offset..<offset + n)
        return n
    }

    /// The ranges read past the prefix since the open (clipped to the
    /// file), and no more recording from here on.
    func takeRecordedReads() -> ReadRanges {
        recorded.withLock { recorded in
            defer { recorded = nil }
            return recorded ?? ReadRanges()
        }
    }

    private func record(_ range: Range<Int>) {
        let clipped = max(range.lowerBound, prefix.count)..<min(max(range.upperBound, prefix.count), size)
        guard !clipped.isEmpty else { return }
        recorded.withLock { $0?.insert(clipped) }
    }

    /// Counts `count` more bytes of the file as held in memory by a reader
    /// (the prefix is not counted: every source has it).
    func hold(_ count: Int) {
        held.withLock { held in
            held.now += count
            held.peak = max(held.peak, held.now)
        }
    }

    /// Counts `count` bytes held by `hold` as given back.
    func letGo(_ count: Int) {
        held.withLock { $0.now -= count }
    }

    /// The most bytes of this file its readers held in memory at once.
    var peakBytesHeld: Int { held.withLock { $0.peak } }

    /// Keeps `buffer`, which holds the file's bytes of `range` as its hash
    /// read them (`SourceBytes`), for the decoders (`keptBytes`); counted as
    /// held until `releaseKept` gives it back to `pool`.
    func keep(_ buffer: UnsafeMutableRawBufferPointer, range: Range<Int>, pool: SourceBufferPool) {
        precondition(buffer.count >= range.count)
        hold(range.count)
        let previous = kept.withLock { kept -> KeptRange? in
            defer { kept = KeptRange(buffer: buffer, range: range, pool: pool) }
            return kept
        }
        previous.map(give)
    }

    /// The kept bytes of `range`, when it lies inside the kept range.
    func keptBytes(_ range: Range<Int>) -> UnsafeRawBufferPointer? {
        kept.withLock { kept -> UnsafeRawBufferPointer? in
            guard let kept, kept.range.lowerBound <= range.lowerBound, range.upperBound <= kept.range.upperBound else { return nil }
            let start = range.lowerBound - kept.range.lowerBound
            return UnsafeRawBufferPointer(rebasing: kept.buffer[start..<start + range.count])
        }
    }

    /// Gives the kept bytes back to their pool. The decode that used them
    /// has ended: a later reader of the range reads the file again.
    func releaseKept() {
        let taken = kept.withLock { kept -> KeptRange? in
            defer { kept = nil }
            return kept
        }
        taken.map(give)
    }

    private func give(_ kept: KeptRange) {
        letGo(kept.range.count)
        kept.pool.give(kept.buffer)
    }

    /// A range of the file in a pool's buffer, owned by the file while kept.
    private struct KeptRange: @unchecked Sendable {
        let buffer: UnsafeMutableRawBufferPointer
        let range: Range<Int>
        let pool: SourceBufferPool
    }

    /// The descriptor, for a decoder that reads by ranges itself (a video's,
    /// through FFmpeg): `body` must neither close it nor keep it.
    func withDescriptor<R>(_ body: (Int32) throws -> R) rethrows -> R { try body(fd) }

    /// Throws `io` ("changed while being read") when the file's size or
    /// modification time is no longer what it was at the open.
    func checkUnchanged() throws(ItemError) {
        let after = FileInfo.of(descriptor: fd)
        if after?.size != before.size || after?.modifiedSeconds != before.modifiedSeconds
            || after?.modifiedNanoseconds != before.modifiedNanoseconds {
            throw Self.changed(path, detail: after?.size != before.size
                ? "its size went from \(before.size) to \(after?.size ?? 0) bytes" : "it was modified")
        }
    }

    static func changed(_ path: String, detail: String) -> ItemError {
        ItemError.io("\(path) changed while being read (\(detail)); it is read again on the next run")
    }

    /// Up to `count` bytes at `offset`, fewer only at the end of the file.
    private static func bytes(_ fd: Int32, at offset: Int, count: Int, path: String) throws(ItemError) -> [UInt8] {
        var failure: ItemError?
        let out = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do throws(ItemError) {
                initialized = try fill(fd, UnsafeMutableRawBufferPointer(buffer), at: offset, path: path)
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return out
    }

    private static func fill(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer, at offset: Int, path: String) throws(ItemError) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var done = 0
        while done < buffer.count {
            let n: Int
            do {
                n = try FileDescriptor.read(fd, into: base + done, count: buffer.count - done, at: offset + done)
            } catch {
                throw ItemError.io("cannot read \(path): \(error.text)")
            }
            if n == 0 { break }
            done += n
        }
        return done
    }
}
