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
///
/// A signal is never lost: one that arrives at any moment until the run
/// `seal()`s it, after its final manifest is in place, makes the run end
/// with exit 130 and `interrupted: true` (`ThumbsRun`). Every field below is
/// read and written under `lock` only: the signal handler runs on a
/// Dispatch thread, the run on its own.
public final class InterruptSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var raised = false
    /// Set once the run's result is final: later signals change nothing.
    private var sealed = false
    private var sources: [DispatchSourceSignal] = []
    private var onFirst: (@Sendable () -> Void)?
    /// Tasks in `wait()`, resumed by the first signal.
    private var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiter: UInt64 = 0

    public init() {}

    public var isRaised: Bool {
        lock.withLock { raised }
    }

    /// Starts listening; `onFirst` runs once, on the first signal (at once
    /// when the flag was raised before). Returns once the signal sources are
    /// registered (at most a second), so that a signal right after this call
    /// reaches the run instead of being dropped while they are set up.
    public func install(onFirst: @escaping @Sendable () -> Void) {
        let registered = DispatchGroup()
        var created: [DispatchSourceSignal] = []
        for sig in InterruptSignals.numbers {
            InterruptSignals.ignore(sig)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { [weak self] in self?.receive() }
            registered.enter()
            source.setRegistrationHandler { registered.leave() }
            created.append(source)
        }
        let runNow = lock.withLock { () -> Bool in
            self.onFirst = onFirst
            sources.append(contentsOf: created)
            return raised && !sealed
        }
        for source in created { source.resume() }
        _ = registered.wait(timeout: .now() + 1)
        if runNow { onFirst() }
    }

    /// Raises the flag as a signal would (tests use this).
    public func raise() { receive() }

    /// Ends listening for this run: returns whether a signal arrived before,
    /// and makes every later one change nothing (the run's result is final).
    /// `ThumbsRun` calls it once its manifest is in place; a signal that came
    /// while the manifest was being written is seen here.
    public func seal() -> Bool {
        lock.withLock {
            sealed = true
            return raised
        }
    }

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
        enum Effect { case ignored, first((@Sendable () -> Void)?, [CheckedContinuation<Void, Never>]), exit }
        let effect = lock.withLock { () -> Effect in
            if sealed { return .ignored }
            if raised { return .exit }
            raised = true
            let woken = Array(waiters.values)
            waiters = [:]
            return .first(onFirst, woken)
        }
        switch effect {
        case .ignored:
            break
        case .first(let handler, let woken):
            for waiter in woken { waiter.resume() }
            handler?()
        case .exit:
            Processes.exit(ExitStatus.interrupted.rawValue)
        }
    }

    /// Restores default signal handling.
    public func uninstall() {
        let installed = lock.withLock { () -> [DispatchSourceSignal] in
            defer { sources.removeAll() }
            return sources
        }
        for source in installed { source.cancel() }
        for sig in InterruptSignals.numbers { InterruptSignals.restoreDefault(sig) }
    }
}
