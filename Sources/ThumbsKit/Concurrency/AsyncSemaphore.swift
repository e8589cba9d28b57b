import DequeModule

/// Bounds how many tasks do one thing at once: downloads
/// (`--download-jobs`), source files held in memory (`ItemProcessor`).
///
/// The processing window holds more tasks than either limit (so decoding
/// always has work queued); the tasks beyond it wait here, in arrival order,
/// suspended rather than blocking a thread. The queue is a `Deque`: taking
/// the oldest waiter is O(1) however many wait.
actor AsyncSemaphore {
    private var available: Int
    private var waiters = Deque<CheckedContinuation<Void, Never>>()

    init(permits: Int) {
        available = max(1, permits)
    }

    func acquire() async {
        if available > 0 {
            available -= 1
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    func release() {
        if waiters.isEmpty {
            available += 1
        } else {
            // The permit passes straight to the oldest waiter.
            waiters.removeFirst().resume()
        }
    }

    /// Runs `body` holding one permit.
    nonisolated func withPermit<T: Sendable>(_ body: @Sendable () async -> T) async -> T {
        await acquire()
        let result = await body()
        await release()
        return result
    }
}
