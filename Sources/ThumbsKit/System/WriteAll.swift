#if canImport(Glibc)
import Glibc
#endif

/// Writes every byte of `bytes` to `fd`, going on after short writes and
/// interrupted calls (EINTR). Returns 0, or the errno of the write that
/// failed. The one write loop of thumbs: downloads (`FileSink`) and atomic
/// files (`AtomicFile`) both go through it.
func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
    guard let base = bytes.baseAddress else { return 0 }
    var offset = 0
    while offset < bytes.count {
        let n = Glibc.write(fd, base + offset, bytes.count - offset)
        if n < 0 {
            if errno == EINTR { continue }
            return errno
        }
        offset += n
    }
    return 0
}
