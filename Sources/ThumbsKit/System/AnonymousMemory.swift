#if canImport(Glibc)
import Glibc
#endif

/// Memory of its own for a large buffer (`mmap` of anonymous pages):
/// returned to the system whole by `release`, so a rare huge source file
/// does not leave its size behind in malloc's arenas. No file is mapped.
enum AnonymousMemory {
    /// `bytes` of zeroed, writable memory.
    static func map(_ bytes: Int) throws(SystemError) -> UnsafeMutableRawPointer {
        let region = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let region, region != MAP_FAILED else { throw .current() }
        return region
    }

    /// Returns memory from `map` (the same `bytes`) to the system.
    static func release(_ pointer: UnsafeMutableRawPointer, _ bytes: Int) {
        munmap(pointer, bytes)
    }
}
