/// One source file, hashed: every byte streamed through SHA-256 through one
/// chunk of memory, none of it held. The decoders read the file again by
/// ranges (`ImageSource`), from the page cache as a rule: a 2 GB TIFF needs
/// no 2 GB buffer, and a motion photo's video is hashed but never held.
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
    init(hashing file: SourceFile, interrupt: InterruptSignal?) throws(ItemError) {
        let size = file.size
        var hash = SHA256Hex.Stream()
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunk, alignment: 64)
        defer { chunk.deallocate() }
        try Self.stream(file, 0..<size, into: &hash, through: chunk, interrupt: interrupt)
        file.hook?.body(file.path, .read)
        try file.checkUnchanged()
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
    init(hashing file: SourceFile, ranges: ReadRanges, wholeSize: Int? = nil, interrupt: InterruptSignal?) throws(ItemError) {
        let size = file.size
        var hash = SHA256Hex.Stream()
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
            try Self.stream(file, range, into: &hash, through: chunk, interrupt: interrupt)
        }
        file.hook?.body(file.path, .read)
        try file.checkUnchanged()
        count = size
        digest = hash.finish()
        partial = ranges
        self.file = file
    }

    /// Hashes `range` of `file` into `hash`: what the prefix holds from
    /// memory, the rest read through `chunk`, each piece hashed as it
    /// arrives. Throws `io` when the file ends early, and
    /// `SourceInterruption.error` when `interrupt` is raised while more than
    /// `abandonAbove` bytes of the range remain.
    private static func stream(
        _ file: SourceFile, _ range: Range<Int>, into hash: inout SHA256Hex.Stream,
        through chunk: UnsafeMutableRawBufferPointer, interrupt: InterruptSignal?
    ) throws(ItemError) {
        var offset = range.lowerBound
        // The prefix is in memory already.
        if offset < file.prefix.count {
            let end = min(range.upperBound, file.prefix.count)
            file.prefix.withUnsafeBytes { hash.update(UnsafeRawBufferPointer(rebasing: $0[offset..<end])) }
            offset = end
        }
        while offset < range.upperBound {
            if let interrupt, range.upperBound - offset > abandonAbove, interrupt.isRaised { throw SourceInterruption.error }
            let piece = UnsafeMutableRawBufferPointer(rebasing: chunk[0..<min(Self.chunk, range.upperBound - offset)])
            let n = try file.read(into: piece, at: offset)
            hash.update(UnsafeRawBufferPointer(rebasing: piece[0..<n]))
            offset += n
            if n < piece.count { throw SourceFile.changed(file.path, detail: "it ended after \(offset) of \(file.size) bytes") }
            file.hook?.body(file.path, .chunk)
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
