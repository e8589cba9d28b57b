import Dispatch
import Foundation

/// Turns Ctrl-C and SIGTERM into a flag the pipeline checks before starting
/// new work: images in flight finish, the manifest is written, exit 130.
/// A second signal ends the process at once (finished items are journaled).
///
/// Downloads do not wait for the flag to be checked: `wait()` returns the
/// moment the signal arrives, and `HTTPSession` races every request against
/// it, so a transfer in flight is cancelled at once and no request or retry
/// starts afterwards.
public final class InterruptSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var raised = false
    private var sources: [DispatchSourceSignal] = []
    private var onFirst: (@Sendable () -> Void)?
    /// Tasks in `wait()`, resumed by the first signal.
    private var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiter: UInt64 = 0

    public init() {}

    public var isRaised: Bool {
        lock.lock()
        defer { lock.unlock() }
        return raised
    }

    /// Starts listening; `onFirst` runs once, on the first signal.
    public func install(onFirst: @escaping @Sendable () -> Void) {
        self.onFirst = onFirst
        for sig in InterruptSignals.numbers {
            InterruptSignals.ignore(sig)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { [weak self] in self?.receive() }
            source.resume()
            sources.append(source)
        }
    }

    /// Raises the flag as a signal would (tests use this).
    public func raise() { receive() }

    /// Returns when the flag is raised (at once if it already is), or when
    /// the calling task is cancelled.
    func wait() async {
        let key = lock.withLock {
            nextWaiter += 1
            return nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                lock.lock()
                if raised || Task.isCancelled {
                    lock.unlock()
                    continuation.resume()
                } else {
                    waiters[key] = continuation
                    lock.unlock()
                }
            }
        } onCancel: {
            lock.lock()
            let waiter = waiters.removeValue(forKey: key)
            lock.unlock()
            waiter?.resume()
        }
    }

    private func receive() {
        lock.lock()
        let first = !raised
        raised = true
        let handler = onFirst
        let woken = waiters.values
        waiters = [:]
        lock.unlock()
        if first {
            for waiter in woken { waiter.resume() }
            handler?()
        } else {
            Processes.exit(ExitStatus.interrupted.rawValue)
        }
    }

    /// Restores default signal handling.
    public func uninstall() {
        for source in sources { source.cancel() }
        sources.removeAll()
        for sig in InterruptSignals.numbers { InterruptSignals.restoreDefault(sig) }
    }
}
