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
        let buffer = BufferRecycler.shared.take(size)
        var offset = 0
        while offset < size {
            let n = read(fd, buffer + offset, size - offset)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                let code = errno
                BufferRecycler.shared.give(buffer)
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
        if mapped { munmap(base, count) } else { BufferRecycler.shared.give(base) }
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

/// Keeps a few source-sized buffers for reuse. A fresh multi-megabyte buffer
/// per image costs hundreds of page faults and zero-filling in the kernel,
/// and freed ones linger in malloc's arenas (resident memory grew with the
/// number of images); a handful of recycled buffers costs neither.
final class BufferRecycler: @unchecked Sendable {
    static let shared = BufferRecycler()

    private struct Buffer {
        var pointer: UnsafeMutableRawPointer
        var capacity: Int
    }

    private let lock = NSLock()
    private var spare: [Buffer] = []
    private var capacities: [UnsafeMutableRawPointer: Int] = [:]
    /// Buffers kept when nobody uses them.
    private let keep = 8

    /// A buffer of at least `size` bytes (contents undefined).
    func take(_ size: Int) -> UnsafeMutableRawPointer {
        lock.lock()
        if let index = spare.firstIndex(where: { $0.capacity >= size }) {
            let buffer = spare.remove(at: index)
            lock.unlock()
            return buffer.pointer
        }
        lock.unlock()
        // Round up so that similar sizes can share buffers.
        let capacity = max(size, 1 << 20).roundedUpToPowerOfTwoQuarter()
        guard let pointer = malloc(capacity) else { fatalError("out of memory allocating \(capacity) bytes") }
        lock.lock()
        capacities[pointer] = capacity
        lock.unlock()
        return pointer
    }

    func give(_ pointer: UnsafeMutableRawPointer) {
        lock.lock()
        guard let capacity = capacities[pointer] else {
            lock.unlock()
            return Glibc.free(pointer)
        }
        if spare.count < keep {
            spare.append(Buffer(pointer: pointer, capacity: capacity))
            lock.unlock()
            return
        }
        // Keep the largest buffers; release the smallest.
        spare.sort { $0.capacity > $1.capacity }
        var released = pointer
        if let last = spare.last, last.capacity < capacity {
            released = last.pointer
            spare[spare.count - 1] = Buffer(pointer: pointer, capacity: capacity)
        }
        capacities[released] = nil
        lock.unlock()
        Glibc.free(released)
    }
}

extension Int {
    /// Rounds up to the next multiple of a quarter of a power of two
    /// (1.0, 1.25, 1.5, 1.75 × 2^k): at most 25% waste.
    func roundedUpToPowerOfTwoQuarter() -> Int {
        var power = 1
        while power * 2 <= self { power *= 2 }
        let step = Swift.max(1, power / 4)
        return (self + step - 1) / step * step
    }
}
