import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes files so that a final name only ever holds a complete file.
///
/// The bytes go to a temporary file in OUT's state folder (same file system),
/// are flushed to disk, and the file is renamed into place. A crash at any
/// moment leaves either the old file or the new one under the final name,
/// never a part of one; leftover temporary files are swept by the next run.
public struct AtomicFile: Sendable {
    public let temporaryDirectory: String
    /// Flush file data to disk before the rename (survives power loss).
    public var synchronise: Bool

    public init(temporaryDirectory: String, synchronise: Bool = true) {
        self.temporaryDirectory = temporaryDirectory
        self.synchronise = synchronise
    }

    /// Writes `data` to `path`, creating parent folders.
    public func write(_ data: Data, to path: String) throws(ItemError) {
        try write(to: path) { (emit: (UnsafeRawBufferPointer) throws(ItemError) -> Void) throws(ItemError) in
            var failure: ItemError?
            data.withUnsafeBytes { raw in
                do throws(ItemError) { try emit(raw) } catch { failure = error }
            }
            if let failure { throw failure }
        }
    }

    /// Writes what `produce` emits, chunk by chunk, to `path`: large files
    /// (a manifest of 100,000 items) never have to be whole in memory.
    public func write(
        to path: String,
        produce: (_ emit: (UnsafeRawBufferPointer) throws(ItemError) -> Void) throws(ItemError) -> Void
    ) throws(ItemError) {
        let temp = temporaryDirectory + "/" + UUID().uuidString + ".tmp"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ItemError.io("cannot write \(path): \(errnoText())") }
        do throws(ItemError) {
            try produce { (raw: UnsafeRawBufferPointer) throws(ItemError) in
                var offset = 0
                while offset < raw.count {
                    let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                    if n < 0 {
                        if errno == EINTR { continue }
                        throw ItemError.io("cannot write \(path): \(errnoText())")
                    }
                    offset += n
                }
            }
            if synchronise && fsync(fd) != 0 { throw ItemError.io("cannot write \(path): \(errnoText())") }
        } catch {
            close(fd)
            unlink(temp)
            throw error
        }
        close(fd)
        try place(temp, at: path)
    }

    /// Renames a finished temporary file to `path`, creating parent folders
    /// when needed; on failure the temporary file is removed.
    public func place(_ temp: String, at path: String) throws(ItemError) {
        if rename(temp, path) == 0 { return }
        if errno == ENOENT || errno == ENOTDIR {
            _ = makeDirectories((path as NSString).deletingLastPathComponent)
            if rename(temp, path) == 0 { return }
        }
        let code = errno
        unlink(temp)
        throw ItemError.io("cannot write \(path): \(errnoText(code))")
    }
}
