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
/// Immutable after creation, so it may move between the pool and the task
/// that waits for it.
public final class SourceBytes: @unchecked Sendable {
    /// The file's size.
    public let count: Int
    /// The SHA-256 of all `count` bytes.
    let digest: SHA256Hex.Digest
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
        count = size
        digest = hash.finish()
        self.file = file
    }

    /// Hex SHA-256 of the bytes.
    public func sha256() -> String {
        digest.hex
    }
}
