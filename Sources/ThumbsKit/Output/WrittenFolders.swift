import Foundation

/// The folders inside OUT that thumbnails were renamed into since they were
/// last flushed: a run flushes each of them once per batch instead of once
/// per thumbnail (`AtomicFile.writtenFolders`).
///
/// Why a batch keeps the promises a flush per rename kept:
/// - A thumbnail's bytes are still flushed before its rename, so a name
///   that survives a power cut always holds a whole file.
/// - Its folder is flushed before anything vouches for the new name: before
///   the journal's next flush (`Journal.synchronise`), and before the
///   manifest is written (`ThumbsRun`). A journal line can still reach the
///   disk on its own before that flush, so a re-run reads and hashes the
///   outputs of the journal's records rather than trusting their times
///   (`PreviousRun.recordAndSettled`).
///
/// A flush per rename cost a second wait on the disk per thumbnail (and on
/// a virtual disk, the CPU of a notification to the host each time), which
/// shows most on small photos. Folders are held open (a descriptor each,
/// opened from the folder the rename went into, so no path is looked up
/// again) until they are flushed.
public final class WrittenFolders: @unchecked Sendable {
    private let lock = NSLock()
    /// Open folders waiting for a flush, by their path inside OUT.
    private var pending: [String: Int32] = [:]

    public init() {}

    deinit {
        for fd in pending.values { try? FileDescriptor.close(fd) }
    }

    /// Folders waiting for a flush.
    var count: Int { lock.withLock { pending.count } }

    /// Folders held open at most. A batch of one photo per folder (an
    /// archive sorted by event) would otherwise hold a descriptor per
    /// thumbnail of up to `Journal.syncLines` items, and a run that runs out
    /// of descriptors fails the reads of its next sources; past this many,
    /// a folder is flushed at once, as before batches.
    static let heldOpen = 64

    /// Notes that a file was just renamed into `folder` (an open folder,
    /// `shown` its path inside OUT). The first note of a folder since the
    /// last flush opens it again for later; a folder that cannot be opened,
    /// or one past `heldOpen`, is flushed at once.
    func note(_ folder: Int32, shown: String) throws(SystemError) {
        let (noted, full) = lock.withLock { (pending[shown] != nil, pending.count >= Self.heldOpen) }
        if noted { return }
        if full { return try FileDescriptor.synchroniseFolder(folder) }
        let fd: Int32
        do {
            fd = try FileDescriptor.open(".", inFolder: folder, .readOnly, .directory)
        } catch {
            return try FileDescriptor.synchroniseFolder(folder)
        }
        let kept = lock.withLock { () -> Bool in
            if pending[shown] != nil { return false }
            pending[shown] = fd
            return true
        }
        if !kept { try? FileDescriptor.close(fd) }
    }

    /// Flushes every folder noted since the last flush, each once. On a
    /// failure the folders not yet flushed stay noted, and the error names
    /// the folder.
    func flush() throws(Failure) {
        let folders = lock.withLock { () -> [(String, Int32)] in
            defer { pending = [:] }
            return pending.sorted { $0.key < $1.key }
        }
        for (index, (shown, fd)) in folders.enumerated() {
            do {
                try FileDescriptor.synchroniseFolder(fd)
            } catch {
                lock.withLock {
                    for (later, laterFD) in folders[index...] {
                        if let already = pending[later] { try? FileDescriptor.close(already) }
                        pending[later] = laterFD
                    }
                }
                throw Failure(folder: shown, error: error)
            }
            try? FileDescriptor.close(fd)
        }
    }

    /// A folder whose flush failed: what thumbnails written into it since the
    /// last flush are is unknown after a power cut.
    struct Failure: Error {
        var folder: String
        var error: SystemError
        var message: String { "cannot flush the folder \(folder.isEmpty ? "." : folder) of the thumbnails just written: \(error.text)" }
    }
}
