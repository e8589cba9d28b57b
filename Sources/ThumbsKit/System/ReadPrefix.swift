#if canImport(Glibc)
import Glibc
#endif

/// The first bytes of a file, or nothing if it cannot be read.
func readPrefix(_ path: String, count: Int = ImageSniffer.prefixLength) -> [UInt8] {
    // O_NONBLOCK: a file swapped for a FIFO after the walk looked must not hang it.
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else { return [] }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: count)
    let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, count) }
    return n > 0 ? Array(buffer.prefix(n)) : []
}
