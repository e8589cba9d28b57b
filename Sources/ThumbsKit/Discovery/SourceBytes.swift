import Foundation

/// The bytes of one source file, read into memory, with their SHA-256.
///
/// Files are read, never memory-mapped: a mapped file that is truncated
/// while it is read (`cp` over it, a sync tool rewriting it in place) kills
/// the whole process with SIGBUS, inside the hash or inside a decoder. A read
/// sees the change instead, and the item fails alone: size and modification
/// time are taken before and after the read (`SourceFile`), and when they
/// differ, or the file ends early, the item fails with `io` ("changed while
/// being read").
///
/// The file is read in chunks of `chunk` bytes and each chunk is hashed as it
/// arrives, while it is still in the cache: `digest` exists only when every
/// byte was read and hashed (`SHA256Hex.Digest`). Between chunks the read
/// asks whether the run was interrupted, so a signal never waits for a large
/// file to be read.
///
/// Files up to `largeFile` use recycled buffers (`BufferRecycler`); larger
/// ones get a buffer of their own, given back to the system when done, so a
/// rare huge file does not stay resident in the recycler.
///
/// Immutable after creation, so it may move between the pool and the task
/// that waits for it.
public final class SourceBytes: @unchecked Sendable {
    private let base: UnsafeMutableRawPointer?
    private let storage: Storage
    public let count: Int
    /// The SHA-256 of all `count` bytes.
    let digest: SHA256Hex.Digest
    /// For a video or a camera RAW: the file itself, hashed by streaming and kept open for
    /// its decoder, which reads it by ranges (`init(hashing:interrupt:)`);
    /// `withBytes` then sees no bytes.
    let streamed: SourceFile?

    private enum Storage { case none, recycled, own(capacity: Int) }

    /// Files larger than this are read into a buffer of their own (anonymous
    /// memory from `mmap`, returned when done) instead of a recycled one; the
    /// file itself is never mapped.
    static let largeFile = 16 << 20

    /// Bytes read (and hashed) at a time.
    static let chunk = 256 << 10

    /// When the run is interrupted, a read with more than this left is
    /// abandoned (`SourceInterruption`); a shorter rest is read in well
    /// under a second on any disk, and the image finishes.
    static let abandonAbove = 8 << 20

    /// Reads `path` whole. Throws `io` for a file that cannot be opened, is
    /// not a regular file, or changes while it is read.
    public convenience init(path: String) throws(ItemError) {
        try self.init(reading: SourceFile(path: path), interrupt: nil)
    }

    /// Reads the rest of `file` (its prefix is already in memory), hashing it
    /// as it goes. Throws `io` when the file changes during the read, and
    /// `SourceInterruption.error` when `interrupt` is raised while more
    /// than `abandonAbove` bytes remain.
    init(reading file: SourceFile, interrupt: InterruptSignal?) throws(ItemError) {
        let size = file.size
        var hash = SHA256Hex.Stream()
        guard size > 0 else {
            try file.checkUnchanged()
            base = nil
            storage = .none
            count = 0
            digest = hash.finish()
            streamed = nil
            return
        }
        let buffer: UnsafeMutableRawPointer
        let owner: Storage
        if size > Self.largeFile {
            do {
                buffer = try AnonymousMemory.map(size)
            } catch {
                throw ItemError.io("cannot read \(file.path): no memory for \(size) bytes (\(error.text))")
            }
            owner = .own(capacity: size)
        } else {
            buffer = BufferRecycler.shared.take(size)
            owner = .recycled
        }
        func release() {
            if case .own(let capacity) = owner { AnonymousMemory.release(buffer, capacity) } else { BufferRecycler.shared.give(buffer) }
        }
        let prefix = file.prefix
        prefix.withUnsafeBytes { raw in
            buffer.copyMemory(from: raw.baseAddress!, byteCount: raw.count)
            hash.update(raw)
        }
        var offset = prefix.count
        while offset < size {
            if let interrupt, size - offset > Self.abandonAbove, interrupt.isRaised {
                release()
                throw SourceInterruption.error
            }
            let piece = UnsafeMutableRawBufferPointer(start: buffer + offset, count: min(Self.chunk, size - offset))
            let n: Int
            do {
                n = try file.read(into: piece, at: offset)
            } catch {
                release()
                throw error
            }
            hash.update(UnsafeRawBufferPointer(rebasing: piece[0..<n]))
            offset += n
            if n < piece.count {
                release()
                throw SourceFile.changed(file.path, detail: "it ended after \(offset) of \(size) bytes")
            }
            file.hook?.body(file.path, .chunk)
        }
        file.hook?.body(file.path, .read)
        do {
            try file.checkUnchanged()
        } catch {
            release()
            throw error
        }
        base = buffer
        storage = owner
        count = size
        digest = hash.finish()
        streamed = nil
    }

    /// Hashes all of `file` by streaming it through one chunk of memory and
    /// keeps none of it: a video, which its decoder reads by ranges, so that
    /// a 4 GB file needs no 4 GB buffer. `count` is the file's size. Throws
    /// as `init(reading:interrupt:)` does.
    init(hashing file: SourceFile, interrupt: InterruptSignal?) throws(ItemError) {
        let size = file.size
        var hash = SHA256Hex.Stream()
        file.prefix.withUnsafeBytes { hash.update($0) }
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunk, alignment: 64)
        defer { chunk.deallocate() }
        var offset = file.prefix.count
        while offset < size {
            if let interrupt, size - offset > Self.abandonAbove, interrupt.isRaised { throw SourceInterruption.error }
            let piece = UnsafeMutableRawBufferPointer(rebasing: chunk[0..<min(Self.chunk, size - offset)])
            let n = try file.read(into: piece, at: offset)
            hash.update(UnsafeRawBufferPointer(rebasing: piece[0..<n]))
            offset += n
            if n < piece.count { throw SourceFile.changed(file.path, detail: "it ended after \(offset) of \(size) bytes") }
            file.hook?.body(file.path, .chunk)
        }
        file.hook?.body(file.path, .read)
        try file.checkUnchanged()
        base = nil
        storage = .none
        count = size
        digest = hash.finish()
        streamed = file
    }

    deinit {
        guard let base else { return }
        switch storage {
        case .none: break
        case .recycled: BufferRecycler.shared.give(base)
        case .own(let capacity): AnonymousMemory.release(base, capacity)
        }
    }

    public func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: base, count: base == nil ? 0 : count))
    }

    /// Hex SHA-256 of the bytes.
    public func sha256() -> String {
        digest.hex
    }
}
