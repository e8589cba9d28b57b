import NIOPosix

/// A fixed pool of threads of our own for blocking libvips and file work.
///
/// libvips calls block for tens of milliseconds; running them on Swift's
/// cooperative pool would starve every other task. Each task of the pipeline
/// hands its blocking work here and awaits the result.
public final class DecodePool: Sendable {
    private let pool: NIOThreadPool
    public let threads: Int

    public init(threads: Int) {
        self.threads = max(1, threads)
        pool = NIOThreadPool(numberOfThreads: self.threads)
        pool.start()
    }

    /// Runs `body` on a pool thread and returns its result.
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await pool.runIfActive(body)
    }

    /// Stops the threads once queued work is done.
    public func shutdown() async {
        try? await pool.shutdownGracefully()
    }
}
