#if canImport(Glibc)
import Glibc
#endif

extension FileDescriptor {
    /// Reads up to `count` bytes at `offset` (`pread`), without moving the
    /// descriptor's position, going on after an interrupted call (EINTR).
    /// Returns how many arrived; 0 at or past the end of the file.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int) throws(SystemError) -> Int {
        while true {
            let n = pread(fd, buffer, count, off_t(offset))
            if n >= 0 { return n }
            if errno != EINTR { throw .current() }
        }
    }
}
