import NIOCore
import NIOHTTP1

/// `Content-Range: bytes FIRST-LAST/TOTAL` of a 206 (TOTAL may be `*`).
struct ContentRange: Equatable {
    var first: Int64
    var last: Int64
    var total: Int64?

    init(first: Int64, last: Int64, total: Int64?) {
        self.first = first
        self.last = last
        self.total = total
    }

    init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let parts = spec.split(separator: "/", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let bounds = parts[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first >= 0, last >= first else { return nil }
        self.first = first
        self.last = last
        if parts[1] == "*" {
            total = nil
        } else {
            guard let total = Int64(parts[1]), total > last else { return nil }
            self.total = total
        }
    }
}

/// Receives one image for a partial download (`HTTPSession.fetchPrefix`):
/// the body of each request, appended to one file in order; the scans read
/// as they arrive (`ProgressiveScanWatch`), and the body ended once the
/// thumbnails have every scan they need.
///
/// One request at a time uses it (the requests of one download follow each
/// other), so its state needs no lock.
final class PrefixReceiver: BodyObserver, @unchecked Sendable {
    private(set) var path: String
    private var sink: FileSink
    private let makePath: @Sendable () -> String
    private let acceptsHeader: @Sendable ([UInt8]) -> Bool
    private var watch: ProgressiveScanWatch?
    /// The scans' verdict: `enough` once the cut is known.
    private(set) var verdict: ProgressiveScanWatch.Verdict = .needMore
    /// Bytes of the file written so far, from its first byte on.
    private(set) var written: Int64 = 0
    /// The whole file's size (Content-Range, else Content-Length).
    private(set) var total: Int64?
    /// The first byte the current request asked for with `Range`, or nil
    /// when it sent none.
    var asked: Int64?
    /// Why the last answer was refused (a 206 for other bytes than asked).
    private(set) var refusal: String?
    /// Validators of the first answer, for `If-Range` and the next run.
    private(set) var etag: String?
    private(set) var lastModified: String?
    private(set) var status: Int?

    /// `--max-bytes`, for the whole file's size a 206 announces.
    private let maxBytes: Int64

    init(
        maxBytes: Int64, makePath: @escaping @Sendable () -> String, acceptsHeader: @escaping @Sendable ([UInt8]) -> Bool
    ) throws(FileSink.Failure) {
        self.maxBytes = maxBytes
        self.makePath = makePath
        self.acceptsHeader = acceptsHeader
        path = makePath()
        sink = try FileSink(path: path)
        watch = ProgressiveScanWatch(acceptsHeader: acceptsHeader)
    }

    /// `If-Range` for a request that continues the file: a strong ETag, else
    /// Last-Modified; nil when the server gave neither (the request then
    /// goes without `If-Range`, and a 206 is taken at its word).
    var ifRange: String? {
        if let etag, !etag.hasPrefix("W/") { return etag }
        return lastModified
    }

    func begin(status: Int, headers: HTTPHeaders) -> TransferFailure? {
        self.status = status
        refusal = nil
        let length = headers.first(name: "content-length").flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
        if status == 206 {
            let text = headers.first(name: "content-range") ?? ""
            guard let asked, let range = ContentRange(text), range.first == asked, let size = range.total,
                  length == nil || length == range.last - range.first + 1, total == nil || total == size else {
                refusal = "answered 206 with Content-Range \(RemoteURL.quoted(text)) to a request for the bytes from \(asked ?? 0) on"
                return TransferFailure(code: .download, message: refusal!, retryable: false)
            }
            total = size
            if size > maxBytes {
                // As for a whole download's Content-Length: refused, not retried.
                return TransferFailure(code: .download, message: "is \(size) bytes (Content-Range), more than --max-bytes \(maxBytes)",
                                       retryable: false)
            }
        } else {
            // The whole file (a server that ignores Range, or a file that
            // changed since the last request): taken from its first byte.
            if written > 0 { restart() }
            total = length
            if length == nil, watch != nil {
                // A partial download records the whole file's size.
                watch = nil
                verdict = .whole(reason: "no Content-Length")
            }
        }
        if written == 0 {
            etag = headers.first(name: "etag")
            lastModified = headers.first(name: "last-modified")
        }
        return nil
    }

    func take(_ chunk: ByteBuffer) throws(FileSink.Failure) -> Bool {
        if case .enough = verdict { return true }
        return try chunk.withUnsafeReadableBytes { raw throws(FileSink.Failure) -> Bool in
            if watch != nil {
                let now = watch!.feed(raw)
                switch now {
                case .needMore:
                    break
                case .enough(let cut, _):
                    let keep = max(0, min(raw.count, cut - Int(written)))
                    try sink.write(UnsafeRawBufferPointer(rebasing: raw.prefix(keep)))
                    written += Int64(keep)
                    verdict = now
                    watch = nil
                    return true
                case .whole, .complete:
                    verdict = now
                    watch = nil
                }
            }
            try sink.write(raw)
            written += Int64(raw.count)
            return false
        }
    }

    /// Starts the file again, empty, with a new watch (a 200 after some
    /// bytes came: the whole file, from its first byte).
    func restart() {
        sink.abandon()
        path = makePath()
        // A failure to create the new file shows on the next write.
        sink = (try? FileSink(path: path)) ?? sink
        written = 0
        total = nil
        watch = ProgressiveScanWatch(acceptsHeader: acceptsHeader)
        verdict = .needMore
    }

    /// Appends `tail` (a partial file's completion) and closes the file.
    func finish(appending tail: [UInt8] = []) throws(FileSink.Failure) {
        var failure: FileSink.Failure?
        tail.withUnsafeBytes { raw in
            do throws(FileSink.Failure) { try sink.write(raw) } catch { failure = error }
        }
        if let failure { throw failure }
        try sink.close()
    }

    /// Removes the file.
    func abandon() {
        sink.abandon()
    }
}
