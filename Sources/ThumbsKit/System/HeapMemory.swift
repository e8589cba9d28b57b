#if canImport(Glibc)
import Glibc
#endif

/// Plain C heap blocks (`malloc`, `free`). `BufferRecycler` hands these out
/// as source buffers and must free with the same allocator any pointer it
/// did not make (tests give it one from `malloc`).
enum HeapMemory {
    /// `bytes` of uninitialised memory, or nil when there is none.
    static func allocate(_ bytes: Int) -> UnsafeMutableRawPointer? {
        malloc(bytes)
    }

    static func free(_ pointer: UnsafeMutableRawPointer) {
        Glibc.free(pointer)
    }
}
