#if canImport(Glibc)
import Glibc
#endif

/// Advisory whole-file locks (`flock`), as OUT's `.thumbs/lock` uses them: a
/// run holds its OUT exclusively, a merge holds each shard's shared.
enum FileLock {
    /// Locks the file open as `fd` without waiting. Throws the error
    /// (`.wouldBlock`: another process holds a lock that excludes it).
    static func tryLock(_ fd: Int32, exclusive: Bool) throws(SystemError) {
        guard flock(fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0 else { throw .current() }
    }

    static func release(_ fd: Int32) {
        flock(fd, LOCK_UN)
    }
}
