import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Turns Ctrl-C and SIGTERM into a flag the pipeline checks before starting
/// new work: images in flight finish, the manifest is written, exit 130.
/// A second signal ends the process at once (finished items are journaled).
public final class InterruptSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var raised = false
    private var sources: [DispatchSourceSignal] = []
    private var onFirst: (@Sendable () -> Void)?

    public init() {}

    public var isRaised: Bool {
        lock.lock()
        defer { lock.unlock() }
        return raised
    }

    /// Starts listening; `onFirst` runs once, on the first signal.
    public func install(onFirst: @escaping @Sendable () -> Void) {
        self.onFirst = onFirst
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { [weak self] in self?.receive() }
            source.resume()
            sources.append(source)
        }
    }

    /// Raises the flag as a signal would (tests use this).
    public func raise() { receive() }

    private func receive() {
        lock.lock()
        let first = !raised
        raised = true
        let handler = onFirst
        lock.unlock()
        if first {
            handler?()
        } else {
            exit(ExitStatus.interrupted.rawValue)
        }
    }

    /// Restores default signal handling.
    public func uninstall() {
        for source in sources { source.cancel() }
        sources.removeAll()
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
