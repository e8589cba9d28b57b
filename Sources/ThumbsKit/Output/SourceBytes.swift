import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The bytes of one source file. Ordinary files are read into memory; files
/// over `mapThreshold` are memory-mapped, so that a huge file costs address
/// space, not memory. (Mapping small files is slower: every munmap in a
/// multi-threaded process interrupts the other cores to flush their TLBs.)
///
/// Immutable after creation, so it may move between the pool and the task
/// that waits for it.
public final class SourceBytes: @unchecked Sendable {
    private let base: UnsafeMutableRawPointer?
    private let mapped: Bool
    public let count: Int

    /// Files larger than this are mapped rather than read.
    static let mapThreshold = 16 << 20

    /// Maps `path` read-only. Throws `io` for a file that cannot be opened.
    public init(path: String) throws(ItemError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ItemError.io("cannot open \(path): \(errnoText())") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw ItemError.io("cannot read \(path): \(errnoText())") }
        let size = Int(info.st_size)
        guard size > 0 else {
            base = nil
            mapped = false
            count = 0
            return
        }
        if size > Self.mapThreshold {
            let region = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0)
            guard let region, region != MAP_FAILED else { throw ItemError.io("cannot read \(path): \(errnoText())") }
            base = region
            mapped = true
            count = size
            return
        }
        guard let buffer = malloc(size) else { throw ItemError.io("cannot read \(path): out of memory") }
        var offset = 0
        while offset < size {
            let n = read(fd, buffer + offset, size - offset)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                let code = errno
                free(buffer)
                throw ItemError.io("cannot read \(path): \(n == 0 ? "the file shrank while reading" : errnoText(code))")
            }
            offset += n
        }
        base = buffer
        mapped = false
        count = size
    }

    deinit {
        guard let base else { return }
        if mapped { munmap(base, count) } else { free(base) }
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
