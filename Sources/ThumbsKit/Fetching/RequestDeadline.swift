/// What ended a request before it ended by itself.
enum RequestStop: Sendable {
    /// `--timeout` ran out.
    case timeout
    /// Ctrl-C or SIGTERM.
    case interrupt
}

/// Bounds an operation in time and ends it on Ctrl-C, by cancelling its task.
///
/// `--timeout` is a deadline for a whole request: connecting, the response
/// head and the whole body. AsyncHTTPClient's own `deadline` ends when the
/// head arrives and its read timeout restarts with every byte, so a server
/// that trickles one byte a second would hold a download slot (or the list
/// read) for as long as it likes. Here the request runs in a task group
/// beside a timer and a waiter for the interrupt signal; the first to end
/// cancels the others. Cancelling the request's task makes AsyncHTTPClient
/// drop the connection (its body stream throws `CancellationError`), so the
/// operation returns within moments and cleans up after itself (a partial
/// download file is removed).
enum RequestDeadline {
    /// Runs `operation` until it ends, `seconds` pass (nil: no time limit),
    /// or the run is interrupted. Returns what the operation returned (once
    /// cancelled, whatever it returns then) and what stopped it first, if
    /// anything did.
    static func run<T: Sendable>(
        seconds: Double?, interrupt: InterruptSignal, _ operation: @escaping @Sendable () async -> T
    ) async -> (value: T, stoppedBy: RequestStop?) {
        await withTaskGroup(of: Event<T>.self) { group in
            group.addTask { .finished(await operation()) }
            if let seconds {
                group.addTask {
                    try? await Task.sleep(for: .nanoseconds(Int64((seconds * 1e9).rounded())))
                    return Task.isCancelled ? .ignored : .stopped(.timeout)
                }
            }
            group.addTask {
                await interrupt.wait()
                return Task.isCancelled ? .ignored : .stopped(.interrupt)
            }
            var value: T?
            var stoppedBy: RequestStop?
            for await event in group {
                switch event {
                case .finished(let result):
                    value = result
                    group.cancelAll()
                case .stopped(let reason) where value == nil && stoppedBy == nil:
                    stoppedBy = reason
                    group.cancelAll()
                case .stopped, .ignored:
                    break
                }
            }
            return (value!, stoppedBy)
        }
    }

    /// Sleeps `seconds`, or less when the run is interrupted.
    static func sleep(seconds: Double, interrupt: InterruptSignal) async {
        _ = await run(seconds: nil, interrupt: interrupt) {
            try? await Task.sleep(for: .nanoseconds(Int64((seconds * 1e9).rounded())))
        }
    }

    private enum Event<T: Sendable>: Sendable {
        case finished(T)
        case stopped(RequestStop)
        /// A timer or waiter that ended because it was cancelled.
        case ignored
    }
}
