#if canImport(Glibc)
import Glibc
#endif

/// Finding a byte in memory with libc's `memchr`, which compares a word or a
/// vector at a time: the manifest and journal readers split a whole file
/// into lines with it.
enum ByteSearch {
    /// The offset of the first `byte` in `count` bytes from `start`, or nil.
    static func firstIndex(of byte: UInt8, in start: UnsafeRawPointer, count: Int) -> Int? {
        guard count > 0, let hit = memchr(start, Int32(byte), count) else { return nil }
        return start.distance(to: UnsafeRawPointer(hit))
    }
}
