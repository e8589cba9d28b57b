#if canImport(Glibc)
import Glibc
#endif

/// Advisory whole-file locks (`flock`), as OUT's `.thumbs/lock` uses them: a
/// run holds its OUT exclusively, a merge holds each shard's shared.
enum FileLock {
    /// Locks the file open as `fd` without waiting. Returns 0, or the error
    /// number (`EWOULDBLOCK`: another process holds a lock that excludes it).
    static func tryLock(_ fd: Int32, exclusive: Bool) -> Int32 {
        flock(fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0 ? 0 : errno
    }

    static func release(_ fd: Int32) {
        flock(fd, LOCK_UN)
    }
}
