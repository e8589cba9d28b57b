import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The bytes of one source file, memory-mapped rather than read, so that a
/// huge file costs address space, not memory, and the decoder reads straight
/// from the page cache.
///
/// Immutable after creation, so it may move between the pool and the task
/// that waits for it.
public final class SourceBytes: @unchecked Sendable {
    private let base: UnsafeMutableRawPointer?
    public let count: Int

    /// Maps `path` read-only. Throws `io` for a file that cannot be opened.
    public init(path: String) throws(ItemError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ItemError.io("cannot open \(path): \(errnoText())") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw ItemError.io("cannot read \(path): \(errnoText())") }
        count = Int(info.st_size)
        guard count > 0 else {
            base = nil
            return
        }
        let mapped = mmap(nil, count, PROT_READ, MAP_PRIVATE, fd, 0)
        guard let mapped, mapped != MAP_FAILED else { throw ItemError.io("cannot read \(path): \(errnoText())") }
        base = mapped
    }

    deinit {
        if let base { munmap(base, count) }
    }

    public func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Hex SHA-256 of the bytes.
    public func sha256() -> String {
        withBytes { SHA256Hex.of($0) }
    }
}

enum SHA256Hex {
    static func of(_ bytes: UnsafeRawBufferPointer) -> String {
        var hasher = SHA256()
        hasher.update(bufferPointer: bytes)
        return hex(hasher.finalize())
    }

    static func of(_ data: Data) -> String {
        hex(SHA256.hash(data: data))
    }

    private static func hex(_ digest: SHA256.Digest) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(64)
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
