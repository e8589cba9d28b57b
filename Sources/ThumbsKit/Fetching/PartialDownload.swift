import Foundation
import NIOHTTP1

/// What a partial download gave.
enum PrefixOutcome: Sendable {
    /// A 304 to the conditional first request.
    case notModified(etag: String?, lastModified: String?)
    /// The file: its first bytes completed into a valid JPEG (`partial`), or
    /// the whole file.
    case file(path: String, status: Int, received: Int64, size: Int64?, partial: Bool, etag: String?, lastModified: String?)
}

extension HTTPSession {
    /// The first request asks for this many bytes: the header and, for a
    /// small photo, every DC scan; a larger one needs a second request,
    /// sized by the whole file's size that the first answer tells.
    static let firstRange: Int64 = 128 << 10

    /// Downloads an image, stopping once a 1/8 thumbnail has every scan it
    /// needs (`ProgressiveScanWatch`; only when `acceptsHeader` says the
    /// thumbnails come from the DC decode, so baseline JPEGs and every other
    /// format arrive whole, as before).
    ///
    /// - A server that honours `Range` is asked for a prefix, then for more
    ///   only while it is short: each answer is read to its end, so the
    ///   connection stays open for the next image. Requests that continue a
    ///   file send `If-Range`, so a file that changed meanwhile comes whole.
    /// - A server that ignores `Range` (200) sends the whole file: its body
    ///   is ended as soon as enough arrived.
    /// - A 206 for other bytes than asked, or a 416, is not trusted: the file
    ///   is asked for again without `Range`.
    /// - A body that ends before the needed scans is asked for again whole,
    ///   once; if it ends there again, the download fails (`download`).
    ///
    /// `conditional` (the last run's validators) goes with the first request:
    /// a 304 is `notModified`.
    func fetchPrefix(
        _ url: String, conditional: HTTPHeaders, accept: String, acceptsHeader: @escaping @Sendable ([UInt8]) -> Bool
    ) async -> Result<PrefixOutcome, TransferFailure> {
        let receiver: PrefixReceiver
        do {
            receiver = try PrefixReceiver(maxBytes: maxBytes, makePath: { [self] in temporaryFile() }, acceptsHeader: acceptsHeader)
        } catch {
            return .failure(TransferFailure(code: .io, message: error.message, retryable: false))
        }
        var useRange = true
        var askedWhole = false
        var received: Int64 = 0
        var end: Int64? = Self.firstRange - 1
        while true {
            var headers = HTTPHeaders()
            let start = receiver.written
            if start == 0 {
                headers.add(contentsOf: conditional)
            } else if let validator = receiver.ifRange {
                headers.add(name: "If-Range", value: validator)
            }
            receiver.asked = useRange ? start : nil
            if useRange { headers.add(name: "Range", value: "bytes=\(start)-\(end.map(String.init) ?? "")") }
            let result = await get(url, headers: headers, accept: accept, into: .observed(receiver), wantsImage: start == 0)
            let response: TransferResponse
            switch result {
            case .failure(let failure) where !askedWhole && (failure.status == 416 || receiver.refusal != nil):
                // A server that cannot be trusted with ranges: the whole file.
                received += failure.bytes
                console.event("range-refused", level: .debug,
                              "\(RemoteURL.redacted(url)) \(failure.status == 416 ? "answered 416 to a Range request" : receiver.refusal ?? ""); asking for the whole file",
                              fields: ["url": .string(RemoteURL.redacted(url))])
                askedWhole = true
                useRange = false
                receiver.restart()
                continue
            case .failure(var failure):
                receiver.abandon()
                failure.bytes += received
                return .failure(failure)
            case .success(let ok):
                response = ok
            }
            received += response.bytes
            if response.status == 304 {
                receiver.abandon()
                return .success(.notModified(etag: response.etag, lastModified: response.lastModified))
            }
            let status = response.status
            if case .enough(let cut, let completion) = receiver.verdict {
                do {
                    try receiver.finish(appending: completion.tail(cut: cut, size: receiver.total))
                } catch {
                    receiver.abandon()
                    return .failure(TransferFailure(code: .io, message: error.message, retryable: false))
                }
                let partial = receiver.total.map { Int64(cut) < $0 } ?? true
                return .success(.file(path: receiver.path, status: status, received: received, size: receiver.total,
                                      partial: partial, etag: receiver.etag, lastModified: receiver.lastModified))
            }
            // The file is all here when the body reached its size (or, for
            // a body of unknown size, simply ended).
            let arrived = receiver.total.map { receiver.written >= $0 } ?? true
            if arrived {
                if receiver.verdict == .needMore {
                    if !askedWhole {
                        askedWhole = true
                        useRange = false
                        receiver.restart()
                        continue
                    }
                    receiver.abandon()
                    return .failure(TransferFailure(
                        code: .download,
                        message: "\(url) ended after \(receiver.written) bytes, before the scans a thumbnail needs (the file is cut short; asked for twice)",
                        retryable: false, status: status, bytes: received))
                }
                do {
                    try receiver.finish()
                } catch {
                    receiver.abandon()
                    return .failure(TransferFailure(code: .io, message: error.message, retryable: false))
                }
                return .success(.file(path: receiver.path, status: status, received: received, size: receiver.total,
                                      partial: false, etag: receiver.etag, lastModified: receiver.lastModified))
            }
            // Short: ask for more. The rest of a file that must come whole;
            // else the next stretch of the scans.
            if let total = receiver.total, receiver.verdict == .needMore {
                let written = receiver.written
                var want = written + max(64 << 10, total / 10)
                // libjpeg's standard script ends its DC scan near a sixth of the file.
                if written < total / 5 { want = max(want, total / 5 + 1) }
                end = min(total, want) - 1
            } else {
                end = nil
            }
            if !useRange {
                // Without Range the body was the whole file: it cannot be short.
                receiver.abandon()
                return .failure(TransferFailure(code: .download, message: "\(url): the body ended early", retryable: true,
                                                status: status, bytes: received))
            }
        }
    }
}
