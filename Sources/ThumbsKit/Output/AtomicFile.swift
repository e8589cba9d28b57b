import Foundation

/// Writes files so that a final name only ever holds a complete file.
///
/// The bytes go to a temporary file in OUT's state folder (same file system),
/// are flushed to disk, the file is renamed into place, and the folder that
/// holds the final name is flushed (SQLite's and PostgreSQL's order: until
/// its folder is flushed, a power cut can undo a rename). When `write`
/// returns, the new file is under its final name for good; so whatever
/// relies on it (the journal's removal relies on the manifest) comes after.
/// With `writtenFolders` (thumbnails), the folder's flush is batched and the
/// name is for good once `WrittenFolders.flush` returns.
/// A crash at any moment leaves either the old file or the new one under the
/// final name, never a part of one; leftover temporary files are swept by
/// the next run.
///
/// Below `root` (OUT), the final name is reached without following links
/// (`ContainedPath`): a folder inside OUT that is a symbolic link fails the
/// write instead of sending it elsewhere. A link at the final name itself is
/// replaced by the rename, never written through.
public struct AtomicFile: Sendable {
    public let temporaryDirectory: String
    /// OUT, or nil to place files anywhere by path.
    public let root: String?
    /// Flush file data to disk before the rename, and the folder after it
    /// (survives power loss). Off only in tests that need no disk.
    public var synchronise: Bool
    /// Below `root`, folders renamed into are noted here and flushed in a
    /// batch (`WrittenFolders`: before the journal's flush and the
    /// manifest) instead of after each rename; nil: after each rename.
    /// Thumbnails take the batch; the manifest, stats and report do not.
    public var writtenFolders: WrittenFolders?

    public init(temporaryDirectory: String, root: String? = nil, synchronise: Bool = true, writtenFolders: WrittenFolders? = nil) {
        self.temporaryDirectory = temporaryDirectory
        self.root = root
        self.synchronise = synchronise
        self.writtenFolders = writtenFolders
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
        let fd: Int32
        do {
            fd = try FileDescriptor.open(temp, .writeOnly, [.create, .exclusive], permissions: 0o644)
        } catch {
            throw ItemError.io("cannot write \(path): \(error.text)")
        }
        do throws(ItemError) {
            try produce { (raw: UnsafeRawBufferPointer) throws(ItemError) in
                let failure = writeAll(fd, raw)
                if failure != 0 { throw ItemError.io("cannot write \(path): \(errnoText(failure))") }
            }
            if synchronise {
                do {
                    try FileDescriptor.synchronise(fd)
                } catch {
                    throw ItemError.io("cannot write \(path): \(error.text)")
                }
            }
        } catch {
            try? FileDescriptor.close(fd)
            try? PathChanges.remove(temp)
            throw error
        }
        try? FileDescriptor.close(fd)
        try place(temp, at: path)
    }

    /// Renames a finished temporary file to `path`, creating parent folders
    /// when needed, then flushes the folder that holds it (`synchronise`);
    /// on failure the temporary file is removed.
    public func place(_ temp: String, at path: String) throws(ItemError) {
        if let root, path.hasPrefix(root + "/") {
            return try placeInside(root, temp, at: path, relative: String(path.dropFirst(root.count + 1)))
        }
        let folder = (path as NSString).deletingLastPathComponent
        var failure: SystemError?
        do { try PathChanges.rename(temp, to: path) } catch { failure = error }
        if let first = failure, first == .noEntry || first == .notDirectory {
            _ = makeDirectories(folder)
            failure = nil
            do { try PathChanges.rename(temp, to: path) } catch { failure = error }
        }
        if let failure {
            try? PathChanges.remove(temp)
            throw ItemError.io("cannot write \(path): \(failure.text)")
        }
        try flushFolder(at: folder, of: path)
    }

    /// Flushes the folder a file was just renamed into. A failure here is
    /// the write's: the name may not survive a power cut.
    private func flushFolder(at folder: String, of path: String) throws(ItemError) {
        guard synchronise else { return }
        do {
            try FileDescriptor.synchroniseFolder(folder.isEmpty ? "." : folder)
        } catch {
            throw ItemError.io("cannot write \(path): flushing its folder: \(error.text)")
        }
    }

    /// `place` below OUT: folders opened one by one without following links.
    private func placeInside(_ root: String, _ temp: String, at path: String, relative: String) throws(ItemError) {
        let target: ContainedPath
        do {
            target = try ContainedPath(relative, under: root, create: true)
        } catch {
            try? PathChanges.remove(temp)
            throw ItemError.io("cannot write \(path): \(error.message)")
        }
        do {
            try PathChanges.rename(temp, toName: target.name, inFolder: target.folder)
        } catch {
            try? PathChanges.remove(temp)
            throw ItemError.io("cannot write \(path): \(error.text)")
        }
        guard synchronise else { return }
        do {
            if let writtenFolders {
                try writtenFolders.note(target.folder, shown: (relative as NSString).deletingLastPathComponent)
            } else {
                try FileDescriptor.synchroniseFolder(target.folder)
            }
        } catch {
            throw ItemError.io("cannot write \(path): flushing its folder: \(error.text)")
        }
    }
}
