import DequeModule

/// Bounds the memory that decodes in flight hold at once, in bytes.
///
/// Most decodes need little (a 12 MP JPEG at 1/8 holds about 1 MB), but a
/// progressive JPEG decoded at 1/4 or larger needs every coefficient of the
/// image in memory first (72 MB for a 12 MP 4:4:4 photo), whichever library
/// decodes it; so do a RAW's development, a video's frames, and libvips
/// with several sizes (a copy of the image); two or four of those at once
/// would take the process far past its usual size. Every plan of
/// `DecoderList` reserves its peak (`DecodePlan.peakBytes`) here before it
/// decodes and gives it back when its pixels are finished with; a fallback
/// reserves its own after the declined plan's is given back.
/// Reservations are granted in arrival order; one larger than the whole
/// budget runs alone, so nothing waits forever. Waiters queue in a `Deque`
/// (O(1) to take the oldest).
actor MemoryBudget {
    let capacity: Int
    private var used = 0
    private var waiters = Deque<(bytes: Int, continuation: CheckedContinuation<Void, Never>)>()

    /// The most held at once so far (tests read it).
    private(set) var mostUsed = 0

    /// Reservations below this are granted without counting: the window of
    /// tasks already bounds them (`--jobs` decodes, each of at most this
    /// plus its share of `DirectJPEG.memoryBudget`). 4 MB is a 12 MP JPEG's
    /// 1/8 decode (1.2 MB) with room; counting such decodes would only make
    /// them queue behind a large one for nothing.
    static let smallReservation = 4 << 20

    /// Decodes that held at least this much hand their freed pages back to
    /// the system right after (`MemoryTrim`). Below it, the freed blocks are
    /// reused by the next decode on that thread's arena (glibc returns only
    /// what lies above the 4 MB each heap keeps at its top,
    /// `shim_malloc_keep_top`), and a trim (a few hundred microseconds)
    /// would cost more than it returns.
    static let trimAfter = 24 << 20

    /// The run's budget for each of its `--jobs` decode threads: as much
    /// as one direct JPEG decode may hold (`DirectJPEG.memoryBudget`, 32 MB:
    /// a 10 MP photo at 1/1), so that `--jobs` of the largest decodes the
    /// JPEG paths take run side by side, and a larger plan (a progressive
    /// file's coefficients, a RAW's development, libvips with several sizes)
    /// waits for room, or runs alone.
    static let perJob = DirectJPEG.memoryBudget

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The budget of a run of `jobs` decode threads (`perJob` each).
    init(jobs: Int) {
        self.init(capacity: Self.perJob * max(1, jobs))
    }

    /// Waits until `bytes` fit, then holds them; returns what to release.
    func reserve(_ bytes: Int) async -> Int {
        guard bytes >= Self.smallReservation else { return 0 }
        if waiters.isEmpty && fits(bytes) {
            used += bytes
            mostUsed = max(mostUsed, used)
            return bytes
        }
        await withCheckedContinuation { waiters.append((bytes, $0)) }
        return bytes
    }

    /// Reservations waiting for memory (the window's tests watch it).
    var queued: Int { waiters.count }

    func release(_ bytes: Int) {
        guard bytes > 0 else { return }
        used -= bytes
        while let first = waiters.first, fits(first.bytes) {
            waiters.removeFirst()
            used += first.bytes
            mostUsed = max(mostUsed, used)
            first.continuation.resume()
        }
    }

    private func fits(_ bytes: Int) -> Bool {
        used == 0 || used + bytes <= capacity
    }
}
