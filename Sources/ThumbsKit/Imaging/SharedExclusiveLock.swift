import Foundation

/// A readers–writer lock that prefers the writer: once a thread asks for
/// exclusive use, new shared users wait, so that a diagnosis
/// (`VipsErrorBuffer`) waits only for the work already in flight, never for
/// a stream of new work at `--jobs 16`. Not reentrant.
final class SharedExclusiveLock: @unchecked Sendable {
    private let condition = NSCondition()
    // All three guarded by `condition`.
    private var sharers = 0
    private var exclusiveHeld = false
    private var exclusiveWaiting = 0
    /// The thread that holds the lock exclusively, while one does.
    private var owner: ThreadIdentity?

    func shared<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        condition.lock()
        while exclusiveHeld || exclusiveWaiting > 0 { condition.wait() }
        sharers += 1
        condition.unlock()
        defer {
            condition.lock()
            sharers -= 1
            if sharers == 0 { condition.broadcast() }
            condition.unlock()
        }
        return try body()
    }

    func exclusive<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        condition.lock()
        exclusiveWaiting += 1
        while exclusiveHeld || sharers > 0 { condition.wait() }
        exclusiveWaiting -= 1
        exclusiveHeld = true
        owner = ThreadIdentity.current
        condition.unlock()
        defer {
            condition.lock()
            exclusiveHeld = false
            owner = nil
            condition.broadcast()
            condition.unlock()
        }
        return try body()
    }

    /// Whether the calling thread holds the lock exclusively. Not "anyone":
    /// a thread outside the lock that asked while another held it would
    /// take that holder's diagnosis for its own (and leave it none).
    var isExclusive: Bool {
        condition.lock()
        defer { condition.unlock() }
        guard exclusiveHeld, let owner else { return false }
        return owner.isCurrent
    }
}
