import NIOCore
import NIOHTTP1

/// Where a response body goes.
enum BodyTarget: Sendable {
    /// Kept in memory (list pages; bounded by `--max-bytes`).
    case memory
    /// Streamed to this new file (images), never held in memory whole.
    case file(String)
    /// Handed to an observer chunk by chunk, which stores it and may end
    /// it early (partial downloads, `PrefixReceiver`).
    case observed(any BodyObserver)
}

extension BodyTarget {
    var isObserved: Bool { if case .observed = self { true } else { false } }
}

/// Takes a body as it arrives and says when no more of it is wanted.
protocol BodyObserver: AnyObject, Sendable {
    /// The answer's status and headers, before its body; a failure refuses
    /// the body (a 206 for bytes that were not asked for).
    func begin(status: Int, headers: HTTPHeaders) -> TransferFailure?
    /// One chunk of the body. Returns true once no more is wanted.
    func take(_ chunk: ByteBuffer) throws(FileSink.Failure) -> Bool
}
