#if canImport(Glibc)
import Glibc
#endif

/// The first bytes of a file; throws why it could not be opened or read
/// (a walk tells an unreadable file from an empty one).
func readPrefixOrError(_ path: String, count: Int = ImageSniffer.prefixLength) throws(SystemError) -> [UInt8] {
    // O_NONBLOCK: a file swapped for a FIFO after the walk looked must not hang it.
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else { throw .current() }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: count)
    let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, count) }
    guard n >= 0 else { throw .current() }
    return Array(buffer.prefix(n))
}
