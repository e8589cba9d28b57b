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
///
/// Below `root` (OUT), the final name is reached without following links
/// (`ContainedPath`): a folder inside OUT that is a symbolic link fails the
/// write instead of sending it elsewhere. A link at the final name itself is
/// replaced by the rename, never written through.
public struct AtomicFile: Sendable {
    public let temporaryDirectory: String
    /// OUT, or nil to place files anywhere by path.
    public let root: String?
    /// Flush file data to disk before the rename (survives power loss).
    public var synchronise: Bool

    public init(temporaryDirectory: String, root: String? = nil, synchronise: Bool = true) {
        self.temporaryDirectory = temporaryDirectory
        self.root = root
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
                let failure = writeAll(fd, raw)
                if failure != 0 { throw ItemError.io("cannot write \(path): \(errnoText(failure))") }
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
        if let root, path.hasPrefix(root + "/") {
            return try placeInside(root, temp, at: path, relative: String(path.dropFirst(root.count + 1)))
        }
        if rename(temp, path) == 0 { return }
        if errno == ENOENT || errno == ENOTDIR {
            _ = makeDirectories((path as NSString).deletingLastPathComponent)
            if rename(temp, path) == 0 { return }
        }
        let code = errno
        unlink(temp)
        throw ItemError.io("cannot write \(path): \(errnoText(code))")
    }

    /// `place` below OUT: folders opened one by one without following links.
    private func placeInside(_ root: String, _ temp: String, at path: String, relative: String) throws(ItemError) {
        let target: ContainedPath
        do {
            target = try ContainedPath(relative, under: root, create: true)
        } catch {
            unlink(temp)
            throw ItemError.io("cannot write \(path): \(error.message)")
        }
        if renameat(AT_FDCWD, temp, target.folder, target.name) == 0 { return }
        let code = errno
        unlink(temp)
        throw ItemError.io("cannot write \(path): \(errnoText(code))")
    }
}
