/// Why a request failed, and whether trying again may help.
struct TransferFailure: Error, Sendable {
    var code: ItemError.Code
    var message: String
    /// 5xx, 429, 408, timeouts and network errors are worth another try.
    var retryable: Bool
    /// Seconds the server asked to wait (`Retry-After`).
    var retryAfter: Double? = nil
    var status: Int? = nil
    var bytes: Int64 = 0
    /// Ended by Ctrl-C or SIGTERM: the item is abandoned, not failed.
    var interrupted = false

    /// A request that Ctrl-C or SIGTERM stopped, or kept from starting.
    static let interruptedRequest = TransferFailure(
        code: .download, message: RemoteInterruption.message, retryable: false, interrupted: true)
}
