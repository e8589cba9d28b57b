import DequeModule

/// Bounds the memory that decodes in flight hold at once, in bytes.
///
/// Most decodes need little (a 12 MP JPEG at 1/8 holds about 1 MB), but a
/// progressive JPEG decoded at 1/4 or larger needs every coefficient of the
/// image in memory first (72 MB for a 12 MP 4:4:4 photo), whichever library
/// decodes it; two or four of those at once would take the process far past
/// its usual size. A decode reserves its peak (`JPEGFacts.peakBytes`) here
/// before it starts and gives it back when its pixels are finished with.
/// Reservations are granted in arrival order; one larger than the whole
/// budget runs alone, so nothing waits forever. Waiters queue in a `Deque`
/// (O(1) to take the oldest).
actor MemoryBudget {
    let capacity: Int
    private var used = 0
    private var waiters = Deque<(bytes: Int, continuation: CheckedContinuation<Void, Never>)>()

    /// Reservations below this are granted without counting: the window of
    /// tasks already bounds them.
    static let smallReservation = 4 << 20

    /// Decodes that held at least this much hand their freed pages back to
    /// the system right after (`MemoryTrim`).
    static let trimAfter = 24 << 20

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Waits until `bytes` fit, then holds them; returns what to release.
    func reserve(_ bytes: Int) async -> Int {
        guard bytes >= Self.smallReservation else { return 0 }
        if waiters.isEmpty && fits(bytes) {
            used += bytes
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
            first.continuation.resume()
        }
    }

    private func fits(_ bytes: Int) -> Bool {
        used == 0 || used + bytes <= capacity
    }
}
