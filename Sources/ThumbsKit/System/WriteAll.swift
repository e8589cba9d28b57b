#if canImport(Glibc)
import Glibc
#endif

/// Writes all of `bytes` to `fd`, going on after a short write or an
/// interrupted one (EINTR). False on failure, with `errno` telling why.
func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
    var offset = 0
    while offset < bytes.count {
        let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
        if n < 0 {
            if errno == EINTR { continue }
            return false
        }
        offset += n
    }
    return true
}
