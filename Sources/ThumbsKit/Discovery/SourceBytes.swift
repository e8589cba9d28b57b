/// One source file, hashed: every byte streamed through SHA-256 through one
/// chunk of memory, none of it held. The decoders read the file again by
/// ranges (`ImageSource`), from the page cache as a rule: a 2 GB TIFF needs
/// no 2 GB buffer, and a motion photo's video is hashed but never held.
/// The one exception is the range a decoder takes into memory whole (a
/// JPEG's bytes, a preview's): the hash reads it into the buffer the
/// decoder will use (`keeping`), so those bytes are read once, and the
/// decoder decodes exactly the bytes that were hashed.
///
/// Files are read, never memory-mapped: a mapped file that is truncated
/// while it is read (`cp` over it, a sync tool rewriting it in place) kills
/// the whole process with SIGBUS, inside the hash or inside a decoder. A read
/// sees the change instead, and the item fails alone: size and modification
/// time are taken before and after the read (`SourceFile`), and when they
/// differ, or the file ends early, the item fails with `io` ("changed while
/// being read").
///
/// Each chunk is hashed as it arrives, while it is still in the cache:
/// `digest` exists only when every byte was read and hashed
/// (`SHA256Hex.Digest`). Between chunks the read asks whether the run was
/// interrupted, so a signal never waits for a large file to be read.
///
/// A source whose thumbnail is served by a part of it (a camera JPEG's
/// embedded preview, a motion photo's JPEG without its video) is read and
/// hashed in part instead (`init(hashing:ranges:interrupt:)`, issue 35):
/// its `digest` is then not the file's SHA-256 but a digest of the ranges read, which
/// only equal sizes and equal bytes in equal places can share.
///
/// Immutable after creation, so it may move between the pool and the task
/// that waits for it.
public final class SourceBytes: @unchecked Sendable {
    /// The file's size.
    public let count: Int
    /// The SHA-256 of all `count` bytes; of a partly read file, the digest
    /// of `partial` (`init(hashing:ranges:interrupt:)`).
    let digest: SHA256Hex.Digest
    /// The ranges read and hashed, when not all the file was; nil when it
    /// was read whole and `digest` is its SHA-256.
    let partial: ReadRanges?
    /// The file itself, kept open for its decoders.
    let file: SourceFile

    /// Bytes read (and hashed) at a time.
    static let chunk = 256 << 10

    /// When the run is interrupted, a read with more than this left is
    /// abandoned (`SourceInterruption`); a shorter rest is read in well
    /// under a second on any disk, and the image finishes.
    static let abandonAbove = 8 << 20

    /// Hashes the file at `path`. Throws `io` for a file that cannot be
    /// opened, is not a regular file, or changes while it is read.
    public convenience init(path: String) throws(ItemError) {
        try self.init(hashing: SourceFile(path: path), interrupt: nil)
    }

    /// Hashes all of `file` by streaming it through one chunk of memory
    /// (its prefix is in memory already), and keeps none of it. Throws `io`
    /// when the file changes during the read, and `SourceInterruption.error`
    /// when `interrupt` is raised while more than `abandonAbove` bytes remain.
    ///
    /// `keeping`: a range the file's decoder will take into memory (its
    /// plan's one range, `ByteRanges.ranges`), read into a buffer from
    /// `pool` as it is hashed and kept on the file (`SourceFile.keep`), so
    /// that the decoder neither reads it again nor faults in a fresh buffer.
    init(hashing file: SourceFile, interrupt: InterruptSignal?, keeping: Range<Int>? = nil, pool: SourceBufferPool? = nil) throws(ItemError) {
        let size = file.size
        var hash = SHA256Hex.Stream()
        var keeper = Keeper(keeping, pool: pool, size: size)
        defer { keeper.discard() }
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunk, alignment: 64)
        defer { chunk.deallocate() }
        try Self.stream(file, 0..<size, into: &hash, through: chunk, keeping: keeper, interrupt: interrupt)
        file.hook?.body(file.path, .read)
        try file.checkUnchanged()
        keeper.hand(to: file)
        count = size
        digest = hash.finish()
        partial = nil
        self.file = file
    }

    /// What begins every partial digest, so that none is the SHA-256 of a
    /// file's bytes as they are: a whole file's hash starts with the file's
    /// first byte, this one with a tag no image starts with, then lengths.
    static let partialTag = Array("thumbs partial read 1\u{0}".utf8)

    /// Reads and hashes only `ranges` of `file` (the prefix among them, as
    /// the caller passes it), each chunk as it arrives: the digest covers
    /// `partialTag`, the whole size, and for each range in order its offset,
    /// its length and its bytes (lengths as 8 bytes big-endian). Two files
    /// share it when their sizes and every byte read, in its place, are
    /// equal. `wholeSize`: the size to hash when the file is itself the
    /// first bytes of a larger one (a partial download); else the file's.
    /// Throws as `init(hashing:interrupt:)`.
    /// `keeping` and `pool`: as `init(hashing:interrupt:keeping:pool:)`,
    /// for a range inside one of `ranges`.
    init(
        hashing file: SourceFile, ranges: ReadRanges, wholeSize: Int? = nil, interrupt: InterruptSignal?,
        keeping: Range<Int>? = nil, pool: SourceBufferPool? = nil
    ) throws(ItemError) {
        let size = file.size
        var hash = SHA256Hex.Stream()
        var keeper = Keeper(keeping.flatMap { ranges.covers($0) ? $0 : nil }, pool: pool, size: size)
        defer { keeper.discard() }
        func number(_ value: Int) {
            withUnsafeBytes(of: UInt64(value).bigEndian) { hash.update($0) }
        }
        Self.partialTag.withUnsafeBytes { hash.update($0) }
        number(wholeSize ?? size)
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunk, alignment: 64)
        defer { chunk.deallocate() }
        for range in ranges.ranges {
            precondition(range.lowerBound >= 0 && range.upperBound <= size)
            number(range.lowerBound)
            number(range.count)
            try Self.stream(file, range, into: &hash, through: chunk, keeping: keeper, interrupt: interrupt)
        }
        file.hook?.body(file.path, .read)
        try file.checkUnchanged()
        keeper.hand(to: file)
        count = size
        digest = hash.finish()
        partial = ranges
        self.file = file
    }

    /// Hashes `range` of `file` into `hash`: what the prefix holds from
    /// memory, the rest read through `chunk`, each piece hashed as it
    /// arrives; the pieces inside `keeper`'s range are read into its buffer
    /// instead (and the prefix's copied there). Throws `io` when the file
    /// ends early, and `SourceInterruption.error` when `interrupt` is raised
    /// while more than `abandonAbove` bytes of the range remain.
    private static func stream(
        _ file: SourceFile, _ range: Range<Int>, into hash: inout SHA256Hex.Stream,
        through chunk: UnsafeMutableRawBufferPointer, keeping keeper: Keeper, interrupt: InterruptSignal?
    ) throws(ItemError) {
        var offset = range.lowerBound
        // The prefix is in memory already.
        if offset < file.prefix.count {
            let end = min(range.upperBound, file.prefix.count)
            file.prefix.withUnsafeBytes { prefix in
                let piece = UnsafeRawBufferPointer(rebasing: prefix[offset..<end])
                hash.update(piece)
                keeper.copy(piece, at: offset)
            }
            offset = end
        }
        while offset < range.upperBound {
            if let interrupt, range.upperBound - offset > abandonAbove, interrupt.isRaised { throw SourceInterruption.error }
            // A piece lies wholly inside the kept range or wholly outside it.
            let end = keeper.pieceEnd(from: offset, limit: min(offset + Self.chunk, range.upperBound))
            let piece = keeper.buffer(for: offset..<end)
                ?? UnsafeMutableRawBufferPointer(rebasing: chunk[0..<end - offset])
            let n = try file.read(into: piece, at: offset)
            hash.update(UnsafeRawBufferPointer(rebasing: piece[0..<n]))
            offset += n
            if n < piece.count { throw SourceFile.changed(file.path, detail: "it ended after \(offset) of \(file.size) bytes") }
            file.hook?.body(file.path, .chunk)
        }
    }

    /// The range a hash reads into a buffer of its own for the decoder
    /// (`keeping`), and that buffer; empty when nothing is kept (no range,
    /// no pool, or a range larger than `SourceBufferPool.largest`).
    private struct Keeper {
        private var range: Range<Int>?
        private var buffer: UnsafeMutableRawBufferPointer?
        private let pool: SourceBufferPool?

        init(_ range: Range<Int>?, pool: SourceBufferPool?, size: Int) {
            self.pool = pool
            guard let range, let pool, !range.isEmpty, range.lowerBound >= 0, range.upperBound <= size,
                  range.count <= SourceBufferPool.largest
            else { return }
            self.range = range
            buffer = pool.take(range.count)
        }

        /// Where a piece from `offset` ends: at `limit`, or sooner at the
        /// kept range's start or end.
        func pieceEnd(from offset: Int, limit: Int) -> Int {
            guard let range else { return limit }
            if offset < range.lowerBound { return min(limit, range.lowerBound) }
            if offset < range.upperBound { return min(limit, range.upperBound) }
            return limit
        }

        /// The buffer's place for `piece` of the file, when it lies inside
        /// the kept range.
        func buffer(for piece: Range<Int>) -> UnsafeMutableRawBufferPointer? {
            guard let range, let buffer, range.lowerBound <= piece.lowerBound, piece.upperBound <= range.upperBound else { return nil }
            let start = piece.lowerBound - range.lowerBound
            return UnsafeMutableRawBufferPointer(rebasing: buffer[start..<start + piece.count])
        }

        /// Copies what of `bytes` (the file's from `offset`) lies inside the
        /// kept range into the buffer.
        func copy(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
            guard let range, let buffer else { return }
            let lower = max(offset, range.lowerBound), upper = min(offset + bytes.count, range.upperBound)
            guard lower < upper else { return }
            UnsafeMutableRawBufferPointer(rebasing: buffer[(lower - range.lowerBound)..<(upper - range.lowerBound)])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[(lower - offset)..<(upper - offset)]))
        }

        /// Hands the buffer, now full, to `file`: every piece of the range
        /// was read, or the hash threw before this.
        mutating func hand(to file: SourceFile) {
            guard let range, let buffer, let pool else { return }
            file.keep(buffer, range: range, pool: pool)
            self.buffer = nil
        }

        /// Gives back a buffer not handed on (the read failed).
        mutating func discard() {
            if let buffer { pool?.give(buffer) }
            buffer = nil
        }
    }

    /// The bytes read and hashed: all of them, or those of `partial`.
    var bytesRead: Int { partial?.count ?? count }

    /// The registry's key for these bytes (`DuplicateRegistry`).
    var key: SourceDigest { partial == nil ? .whole(digest) : .partial(digest) }

    /// Hex SHA-256 of the bytes.
    public func sha256() -> String {
        digest.hex
    }
}
