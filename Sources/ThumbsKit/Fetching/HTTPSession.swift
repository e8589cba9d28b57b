import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// What every request of one run shares: the HTTP client (one connection
/// pool, so connections are reused), the limits from the command line, the
/// download slots, the per-host rate limiter, the counters, and the folder
/// that holds downloads until they are decoded.
///
/// The client is shut down by `finish()`, which the run calls once at the
/// end (through `ListSources.Resolved.counters`). A session dropped without
/// `finish()` (a dry run, a run that stopped early) shuts its client down
/// from `deinit`, so no path leaves a running client behind.
final class HTTPSession: Sendable {
    let client: HTTPClient
    /// `--timeout`: seconds one request may take as a whole, from connecting
    /// to the last byte of the body, its redirects included.
    /// Enforced by `RequestDeadline`; the client's own timeouts are set a
    /// second longer, as a backstop.
    let timeout: Double
    /// Ctrl-C and SIGTERM: no request starts after it, and requests in
    /// flight are cancelled (`RequestDeadline`).
    let interrupt: InterruptSignal
    /// `--max-bytes`, for the Content-Length and for what actually arrives.
    let maxBytes: Int64
    let retry: RetryPolicy
    let limiter: HostRateLimiter
    /// `--download-jobs` image downloads at once.
    let slots: AsyncSemaphore
    let tally = DownloadTally()
    let console: Console
    /// Holds image bodies until ItemProcessor has decoded (and removed) them.
    let temporaryDirectory: String
    /// Whether a JPEG with this header (its bytes up to the first scan's
    /// header) makes every thumbnail from its DC scans alone: then only its
    /// first bytes are downloaded (`fetchPrefix`). Nil with `--whole-files`.
    let partialDownloads: (@Sendable ([UInt8]) -> Bool)?
    let maxRedirects = 5
    let userAgent = "thumbs/\(ThumbsVersion.current)"
    private let closed = Latch()

    init(options: RunOptions, console: Console, interrupt: InterruptSignal = InterruptSignal()) throws(RunError) {
        timeout = options.timeout
        self.interrupt = interrupt
        maxBytes = Int64(options.maxBytes)
        retry = RetryPolicy(retries: max(0, options.retries))
        limiter = HostRateLimiter(requestsPerSecond: options.rate)
        slots = AsyncSemaphore(permits: options.downloadJobs)
        self.console = console
        let settings = options.output, limits = DecodeLimits(maxPixels: options.maxPixels, failOn: options.failOn)
        if options.wholeFiles {
            partialDownloads = nil
        } else {
            partialDownloads = { @Sendable (header: [UInt8]) -> Bool in Self.decodesFromDC(header, settings: settings, limits: limits) }
        }

        let parent = NSTemporaryDirectory().trimmingSuffix("/")
        Self.sweepAbandoned(in: parent)
        let folder = parent + "/\(Self.folderPrefix)\(Processes.currentID)-\(UUID().uuidString.prefix(8).lowercased())"
        do {
            try PathChanges.makeFolder(folder, permissions: 0o700)
        } catch {
            throw .fatal("cannot create a folder for downloads at \(folder): \(error.text); set TMPDIR to a writable folder")
        }
        temporaryDirectory = folder

        let limit = TimeAmount.nanoseconds(Int64((options.timeout * 1e9).rounded())) + .seconds(1)
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,  // followed by hand: see `HTTPSession.get`
            timeout: .init(connect: limit, read: limit),
            connectionPool: .init(
                idleTimeout: .seconds(60),
                concurrentHTTP1ConnectionsPerHostSoftLimit: max(8, options.downloadJobs + 1)
            ),
            decompression: .disabled
        )
        configuration.httpVersion = .automatic
        // A refused connection fails at once and goes through `--retries`
        // with backoff, instead of being retried silently until the connect
        // timeout (30 s by default) runs out.
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    /// Shuts the client down (once), removes the download folder, and
    /// returns the counters.
    func finish() async -> DownloadCounters {
        if closed.claim() {
            try? await client.shutdown()
            removeTemporaryDirectory()
        }
        return await tally.counters
    }

    deinit {
        if closed.claim() {
            client.shutdown { _ in }
            removeTemporaryDirectory()
        }
    }

    /// A new, unused path in the download folder.
    func temporaryFile() -> String {
        temporaryDirectory + "/" + UUID().uuidString.lowercased() + ".download"
    }

    /// The decode `Thumbnailer.plan` chooses for this header is the 1/8 DC
    /// decode of a progressive file. (A libjpeg header read: microseconds.)
    static func decodesFromDC(_ header: [UInt8], settings: OutputSettings, limits: DecodeLimits) -> Bool {
        let plan = try? header.withUnsafeBytes { raw throws(ItemError) in try Thumbnailer.plan(raw, settings: settings, limits: limits) }
        return plan?.path == .jpegDCProgressive
    }

    static let folderPrefix = "thumbs-downloads-"

    /// Removes the download folders of runs that were killed (their
    /// process is gone), so that `kill -9` leaves nothing behind for long.
    static func sweepAbandoned(in parent: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: parent) else { return }
        for name in names where name.hasPrefix(folderPrefix) {
            guard let pid = Int32(name.dropFirst(folderPrefix.count).prefix(while: { $0 != "-" })), pid > 0,
                  pid != Processes.currentID, Processes.isGone(pid) else { continue }
            try? FileManager.default.removeItem(atPath: parent + "/" + name)
        }
    }

    private func removeTemporaryDirectory() {
        try? FileManager.default.removeItem(atPath: temporaryDirectory)
    }
}

/// Becomes claimed exactly once.
final class Latch: @unchecked Sendable {
    private let lock = NSLock()
    private var claimed = false

    func claim() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if claimed { return false }
        claimed = true
        return true
    }
}

private extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        var text = self
        while text.count > 1 && text.hasSuffix(suffix) { text.removeLast(suffix.count) }
        return text
    }
}
