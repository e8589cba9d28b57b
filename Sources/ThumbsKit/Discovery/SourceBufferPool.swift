import Synchronization

/// The buffers a source's decoded bytes are read into while they are hashed
/// (`SourceBytes`, `SourceFile.keep`), handed from item to item.
///
/// A JPEG's decode needs its bytes in memory, and the hash reads the same
/// bytes: read into one buffer, they are read once. Reused, the buffer's
/// pages are faulted in once for the run instead of once per item: a block
/// of 4 MB or more is a mapping of its own (`MemoryTrim.mapLargeBlocks`),
/// so a fresh buffer for each 12 MP photo cost a thousand page faults.
///
/// At most `count` buffers wait here (the run's `sourcesInMemory`: as many
/// as its items may hold at once), none larger than `largest`; a buffer
/// given back beyond that is freed.
final class SourceBufferPool: Sendable {
    /// The largest range read into a buffer; a larger one is read by its
    /// decoder as before (a buffer of its own, a second read).
    static let largest = 16 << 20

    /// Buffers are allocated in whole steps of this, so that one serves
    /// the next photo of about the same size.
    static let step = 1 << 20

    private let count: Int
    private let free = Mutex<FreeBuffers>(FreeBuffers())

    init(count: Int) {
        self.count = max(1, count)
    }

    deinit {
        free.withLock { free in
            for buffer in free.buffers { buffer.deallocate() }
            free.buffers = []
        }
    }

    /// A buffer of at least `bytes` (at most `largest`): the smallest free
    /// one that holds them, else a new one.
    func take(_ bytes: Int) -> UnsafeMutableRawBufferPointer {
        precondition(bytes > 0 && bytes <= Self.largest)
        let found = free.withLock { free -> UnsafeMutableRawBufferPointer? in
            let fitting = free.buffers.indices.filter { free.buffers[$0].count >= bytes }
            guard let best = fitting.min(by: { free.buffers[$0].count < free.buffers[$1].count }) else { return nil }
            return free.buffers.remove(at: best)
        }
        if let found { return found }
        let size = (bytes + Self.step - 1) / Self.step * Self.step
        return UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 64)
    }

    /// Takes `buffer` back for a later item, or frees it: when `count` wait
    /// already, the smallest of them all is freed.
    func give(_ buffer: UnsafeMutableRawBufferPointer) {
        let dropped = free.withLock { free -> UnsafeMutableRawBufferPointer? in
            free.buffers.append(buffer)
            guard free.buffers.count > count,
                  let smallest = free.buffers.indices.min(by: { free.buffers[$0].count < free.buffers[$1].count })
            else { return nil }
            return free.buffers.remove(at: smallest)
        }
        dropped?.deallocate()
    }

    /// The buffers waiting (a test's view).
    var waiting: Int { free.withLock { $0.buffers.count } }

    /// Raw buffers, each owned by the pool while it waits here.
    private struct FreeBuffers: @unchecked Sendable {
        var buffers: [UnsafeMutableRawBufferPointer] = []
    }
}
