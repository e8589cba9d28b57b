#if canImport(Glibc)
import Glibc
#endif

/// Plain C heap blocks: frees what a C library allocated with `malloc` and
/// hands over to its caller (the ICC profile `shim_heif_nclx_icc` makes).
enum HeapMemory {
    static func free(_ pointer: UnsafeMutableRawPointer) {
        Glibc.free(pointer)
    }
}
