import NIOPosix

/// A fixed pool of threads of our own for blocking work: libvips and libjpeg
/// calls, hashing, file reads and writes.
///
/// libvips calls block for milliseconds and an fsync waits on the disk;
/// running them on Swift's cooperative pool would starve every other task.
/// Each task of the pipeline hands its blocking work to one of the run's
/// pools (decoders, finishers, I/O) and awaits the result.
public final class BlockingPool: Sendable {
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
