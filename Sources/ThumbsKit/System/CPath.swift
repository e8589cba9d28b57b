#if canImport(Glibc)
import Glibc
#endif

/// Calls `body` with a NUL-terminated copy of raw path bytes (names that are
/// not UTF-8 still reach the system unchanged).
func withCPath<R>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> R) -> R {
    (bytes + [0]).withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
    }
}
