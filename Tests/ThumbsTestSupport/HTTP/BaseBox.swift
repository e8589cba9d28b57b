import Foundation

/// The server's base URL, known only once it listens: routers are made
/// before the server starts and read it when a request comes.
public final class BaseBox: @unchecked Sendable {
    private let lock = NSLock()
    private var text = ""

    public init() {}

    public var value: String {
        get { lock.withLock { text } }
        set { lock.withLock { text = newValue } }
    }
}
