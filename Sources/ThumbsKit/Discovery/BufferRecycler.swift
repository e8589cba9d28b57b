import Foundation

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
        guard let pointer = HeapMemory.allocate(capacity) else { fatalError("out of memory allocating \(capacity) bytes") }
        lock.lock()
        capacities[pointer] = capacity
        lock.unlock()
        return pointer
    }

    func give(_ pointer: UnsafeMutableRawPointer) {
        lock.lock()
        guard let capacity = capacities[pointer] else {
            lock.unlock()
            return HeapMemory.free(pointer)
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
        HeapMemory.free(released)
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
