import Foundation

/// OUT: thumbnails, manifest, stats, report, and the state folder `.thumbs`
/// (lock, journal, temporary files) that makes re-runs and interruptions safe.
public final class OutputDirectory: Sendable {
    public let root: String
    public let stateDirectory: String
    public let temporaryDirectory: String
    public let writer: AtomicFile
    /// The writer of thumbnails: as `writer`, but the folders it renames
    /// into are flushed in a batch (`thumbnailFolders`).
    public let thumbnailWriter: AtomicFile
    /// Folders thumbnails were renamed into since the last flush: flushed
    /// before the journal's lines (`Journal`) and before the manifest
    /// (`ThumbsRun`).
    let thumbnailFolders = WrittenFolders()
    private let lockDescriptor: Int32

    public var manifestPath: String { Self.manifestPath(in: root) }
    public var statsPath: String { root + "/stats.json" }
    public var reportPath: String { root + "/report.html" }
    public var journalPath: String { Self.journalPath(in: root) }

    /// Where an OUT keeps its manifest and journal, for code that must look
    /// without creating or locking OUT (dry runs, list prefetching).
    public static func manifestPath(in root: String) -> String { root + "/manifest.json" }
    public static func journalPath(in root: String) -> String { root + "/.thumbs/journal.ndjson" }

    /// Creates OUT if needed, takes its lock and sweeps temporary files left by
    /// a run that was killed. Exit 3 when OUT cannot be written or another run
    /// holds it.
    ///
    /// OUT itself may be a symbolic link; `.thumbs` and `.thumbs/tmp` inside
    /// it must be real folders (`ContainedPath`), so that the lock, the
    /// temporary files and their sweep stay inside OUT.
    public init(path: String, synchronise: Bool = true) throws(RunError) {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        root = absolute
        stateDirectory = absolute + "/.thumbs"
        temporaryDirectory = stateDirectory + "/tmp"
        writer = AtomicFile(temporaryDirectory: temporaryDirectory, root: absolute, synchronise: synchronise)
        thumbnailWriter = AtomicFile(temporaryDirectory: temporaryDirectory, root: absolute, synchronise: synchronise,
                                     writtenFolders: thumbnailFolders)
        if let failure = makeDirectories(absolute) {
            throw .fatal("cannot write to output folder \(path): \(failure); choose another --out or fix its permissions")
        }
        let stateFolder: Int32, temporaryFolder: Int32
        do {
            stateFolder = try ContainedPath.openDirectory(".thumbs", under: absolute, create: true)
        } catch {
            throw .fatal("cannot write to output folder \(path): \(error.message)")
        }
        defer { try? FileDescriptor.close(stateFolder) }
        do {
            temporaryFolder = try ContainedPath.openDirectory(".thumbs/tmp", under: absolute, create: true)
        } catch {
            throw .fatal("cannot write to output folder \(path): \(error.message)")
        }
        defer { try? FileDescriptor.close(temporaryFolder) }
        let fd: Int32
        do {
            fd = try FileDescriptor.open("lock", inFolder: stateFolder, .readWrite, [.create, .noFollow], permissions: 0o644)
        } catch {
            throw .fatal("cannot write to output folder \(path): \(stateDirectory)/lock: \(error.text); choose another --out or fix its permissions")
        }
        do {
            try FileLock.tryLock(fd, exclusive: true)
        } catch {
            try? FileDescriptor.close(fd)
            if error == .wouldBlock {
                throw .fatal("another thumbs run is using \(path) (locked); wait for it to finish or choose another --out")
            }
            throw .fatal("cannot lock output folder \(path): \(error.text); choose an --out on a local file system")
        }
        lockDescriptor = fd
        if let problem = Self.ownFileProblem(in: absolute) {
            throw .fatal("output folder \(path): \(problem)")
        }
        // Only the lock holder reaches here, so every temporary file is stale.
        if let leftovers = try? FileManager.default.contentsOfDirectory(atPath: temporaryDirectory) {
            for name in leftovers { try? PathChanges.remove(name, inFolder: temporaryFolder) }
        }
        let probe = ".probe-\(Processes.currentID)"
        guard let probeFD = try? FileDescriptor.open(probe, inFolder: stateFolder, .writeOnly, [.create, .truncate, .noFollow],
                                                     permissions: 0o644) else {
            throw .fatal("cannot write to output folder \(path); choose another --out or fix its permissions")
        }
        try? FileDescriptor.close(probeFD)
        try? PathChanges.remove(probe, inFolder: stateFolder)
    }

    /// The files of OUT that thumbs replaces whole (a temporary file renamed
    /// over them), and the journal, which it appends to. Each must be absent
    /// or a regular file; a symbolic link is allowed where the file is
    /// replaced (the rename replaces the link, never its target, and
    /// `PreviousRun` does not read a manifest through one), not for the
    /// journal.
    static let replacedFiles = ["manifest.json", "stats.json", "report.html"]
    static let journalName = ".thumbs/journal.ndjson"

    /// Why OUT cannot be used as it is, checked when it is opened so that a
    /// `manifest.json` that is a folder (or a FIFO…) stops the run before
    /// the first image rather than after the last one. `.thumbs` and
    /// `.thumbs/tmp` are checked as they are opened (`ContainedPath`).
    private static func ownFileProblem(in root: String) -> String? {
        for name in replacedFiles + [journalName] {
            let info: FileInfo
            do {
                info = try FileInfo.lookup(pathBytes: Array((root + "/" + name).utf8), followLinks: false)
            } catch {
                if error == .noEntry { continue }
                return "\(name): \(error.text); fix it or choose another --out"
            }
            switch info.kind {
            case .regular:
                continue
            case .symbolicLink where name != journalName:
                continue
            case .symbolicLink:
                return "\(name) is a symbolic link; thumbs never writes through links in OUT: remove it or choose another --out"
            default:
                return "\(name) is \(info.kind.inWords), not a file thumbs can read and replace: move it away or choose another --out"
            }
        }
        return nil
    }

    deinit {
        FileLock.release(lockDescriptor)
        try? FileDescriptor.close(lockDescriptor)
    }

    /// Deletes the output at `relative` (a path from a manifest) without
    /// following links: a folder on the way that is a link, or a path that
    /// leaves OUT, is refused. Returns nil when the file is gone (or was
    /// never there), else why it was not deleted.
    public func removeOutput(_ relative: String) -> String? {
        let target: ContainedPath
        do {
            target = try ContainedPath(relative, under: root, create: false)
        } catch {
            return error.cause == .noEntry ? nil : error.message
        }
        do {
            try PathChanges.remove(target.name, inFolder: target.folder)
            return nil
        } catch {
            return error == .noEntry ? nil : "cannot delete \(absolute(relative)): \(error.text)"
        }
    }

    /// Absolute path of a path relative to OUT.
    public func absolute(_ relative: String) -> String { root + "/" + relative }

    /// Writes a whole file atomically; failures here end the run (exit 3).
    public func writeFinal(_ data: Data, to path: String) throws(RunError) {
        do {
            try writer.write(data, to: path)
        } catch {
            throw .fatal(error.message)
        }
    }

    /// Writes the report atomically, piece by piece as `ReportWriter`
    /// renders it (`write(pieces:)`), never holding the whole page.
    public func writeReport(_ report: ReportWriter) throws(RunError) {
        do {
            try writer.write(to: reportPath) { (emit: (UnsafeRawBufferPointer) throws(ItemError) -> Void) throws(ItemError) in
                try report.write { (piece: String) throws(ItemError) in
                    var piece = piece
                    var failure: ItemError?
                    piece.withUTF8 { utf8 in
                        do throws(ItemError) { try emit(UnsafeRawBufferPointer(utf8)) } catch { failure = error }
                    }
                    if let failure { throw failure }
                }
            }
        } catch {
            throw .fatal(error.message)
        }
    }
}

/// `mkdir -p`, returning what went wrong in words (nil on success). Each
/// folder it creates has its parent flushed, so that a power cut does not
/// lose it with what is written into it afterwards.
func makeDirectories(_ path: String) -> String? {
    var prefix = path.hasPrefix("/") ? "" : "."
    for part in path.split(separator: "/") {
        let parent = prefix.isEmpty ? "/" : prefix
        prefix += "/" + part
        do {
            try PathChanges.makeFolder(prefix, permissions: 0o755)
            do {
                try FileDescriptor.synchroniseFolder(parent)
            } catch {
                return "\(parent): cannot flush the new folder \(part): \(error.text)"
            }
        } catch {
            if error != .exists { return "\(prefix): \(error.text)" }
        }
        let info: FileInfo
        do {
            info = try FileInfo.lookup(prefix)
        } catch {
            return "\(prefix): \(error.text)"
        }
        if info.kind != .directory { return "\(prefix) is not a folder" }
    }
    return nil
}
