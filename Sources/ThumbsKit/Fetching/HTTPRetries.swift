import Foundation

extension HTTPSession {
    /// Runs `attempt` until it succeeds, fails for good, or `--retries` is
    /// spent, sleeping per `RetryPolicy` in between (outside any download
    /// slot, so other downloads go on meanwhile). Returns the last result and
    /// the number of attempts made. After Ctrl-C or SIGTERM no retry starts:
    /// the wait is cut short and `.interruptedRequest` is returned (`get` itself
    /// starts no request after the signal either).
    func withRetries<T: Sendable>(
        _ url: String, _ attempt: @Sendable () async -> Result<T, TransferFailure>
    ) async -> (result: Result<T, TransferFailure>, attempts: Int) {
        var attempts = 0
        while true {
            attempts += 1
            let result = await attempt()
            guard case .failure(var failure) = result, failure.retryable else { return (result, attempts) }
            if attempts > retry.retries {
                if attempts > 1 { failure.message += " (gave up after \(attempts) attempts)" }
                return (.failure(failure), attempts)
            }
            if let asked = failure.retryAfter, asked > retry.maxRetryAfter {
                failure.message += "; the server asks to retry after \(Int(asked)) s, longer than thumbs waits (\(Int(retry.maxRetryAfter)) s)"
                return (.failure(failure), attempts)
            }
            // A retry is a new request: after a signal the item is abandoned.
            if interrupt.isRaised { return (.failure(.interruptedRequest), attempts) }
            let delay = retry.delay(afterAttempt: attempts, retryAfter: failure.retryAfter)
            await tally.retry()
            failure.message = RemoteURL.redacted(failure.message)
            let level: Console.Level = console.format == .json ? .info : .debug
            console.event("retry", level: level,
                          "retrying in \(String(format: "%.1f", delay)) s (attempt \(attempts + 1) of \(retry.retries + 1)): \(failure.message)",
                          fields: ["url": .string(RemoteURL.redacted(url)), "attempt": .number(Double(attempts + 1)),
                                   "delaySeconds": .number((delay * 1000).rounded() / 1000),
                                   "message": .string(failure.message)])
            await RequestDeadline.sleep(seconds: delay, interrupt: interrupt)
        }
    }
}
