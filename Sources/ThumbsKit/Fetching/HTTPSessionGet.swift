import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

extension HTTPSession {
    /// One GET, following at most 5 redirects and only to http and https,
    /// with `--timeout` over the whole request and `--max-bytes` and `--rate`
    /// applied to every hop.
    ///
    /// `--timeout` bounds the request as a whole, redirects included: every
    /// hop's connecting, response head and entire body must be done within
    /// it (`RequestDeadline`), each hop getting what the hops before it left,
    /// so neither a server that trickles its body nor a chain of slow
    /// redirects can hold a download slot or the list read for longer. The
    /// wait for `--rate` before a hop is thumbs' own pacing, not counted. After Ctrl-C or SIGTERM no hop starts, and a hop in
    /// flight is cancelled at once unless its body is already complete.
    ///
    /// Redirects are followed here rather than by AsyncHTTPClient so that
    /// each hop is checked (AsyncHTTPClient would also follow `http+unix:`),
    /// counted, rate limited, and named in the message when it goes wrong.
    /// `wantsImage` stops a body early, as `unsupported`, when its first
    /// bytes are not an image and its Content-Type does not claim one.
    ///
    /// `originHeaders` (`--header`) go only to hops of the origin `origin`:
    /// never across a redirect to another origin. Failure messages show
    /// API-key query parameters as `client_id=…` (`RemoteURL.redacted`).
    func get(
        _ url: String, headers extra: HTTPHeaders = [:], originHeaders: HTTPHeaders = [:], origin: String? = nil,
        accept: String, into target: BodyTarget, wantsImage: Bool
    ) async -> Result<TransferResponse, TransferFailure> {
        let result = await follow(url, headers: extra, originHeaders: originHeaders, origin: origin, accept: accept,
                                  into: target, wantsImage: wantsImage)
        guard case .failure(var failure) = result else { return result }
        failure.message = RemoteURL.redacted(failure.message)
        return .failure(failure)
    }

    private func follow(
        _ url: String, headers: HTTPHeaders, originHeaders: HTTPHeaders, origin: String?,
        accept: String, into target: BodyTarget, wantsImage: Bool
    ) async -> Result<TransferResponse, TransferFailure> {
        var current = url
        var chain = [url]
        // What is left of `--timeout` for the hops still to come.
        var left = Duration.nanoseconds(Int64((timeout * 1e9).rounded()))
        while true {
            if let problem = RemoteURL.problem(current) {
                return .failure(TransferFailure(code: chain.count > 1 ? .download : .unsupported, message: problem, retryable: false))
            }
            let host = RemoteURL.host(of: current) ?? "", limiter = self.limiter
            _ = await RequestDeadline.run(seconds: nil, interrupt: interrupt) { await limiter.wait(for: host) }
            if interrupt.isRaised { return .failure(.interruptedRequest) }
            await tally.request()
            let hop = current
            var extra = headers
            if !originHeaders.isEmpty, let origin, RemoteURL.origin(of: hop) == origin { extra.add(contentsOf: originHeaders) }
            let hopHeaders = extra
            let started = ContinuousClock.now
            let (outcome, stoppedBy) = await RequestDeadline.run(seconds: Self.seconds(left), interrupt: interrupt) {
                await self.exchange(hop, headers: hopHeaders, accept: accept, into: target, wantsImage: wantsImage)
            }
            left -= ContinuousClock.now - started
            switch (outcome, stoppedBy) {
            case (.done(.success(let response)), _):
                // Complete, even if a stop came as the last bytes arrived.
                return .success(response)
            case (.done(.failure(let failure)), nil):
                return .failure(failure)
            case (.done(.failure(let failure)), let stop?):
                return .failure(stopped(by: stop, url: hop, status: failure.status, received: failure.bytes, redirects: chain.count - 1))
            case (.redirect(let status, _), let stop?):
                return .failure(stopped(by: stop, url: hop, status: status, received: 0, redirects: chain.count - 1))
            case (.redirect(let status, let location), nil):
                guard let next = URL(string: location, relativeTo: URL(string: current))?.absoluteURL.absoluteString else {
                    return .failure(TransferFailure(
                        code: .download, message: "\(current) redirects to \(RemoteURL.quoted(location)), which is not a URL",
                        retryable: false, status: status))
                }
                if chain.contains(next) {
                    return .failure(TransferFailure(
                        code: .download, message: "redirect loop: \((chain + [next]).joined(separator: " → "))",
                        retryable: false, status: status))
                }
                if chain.count > maxRedirects {
                    return .failure(TransferFailure(
                        code: .download, message: "more than \(maxRedirects) redirects: \((chain + [next]).joined(separator: " → "))",
                        retryable: false, status: status))
                }
                if let scheme = URL(string: next)?.scheme?.lowercased(), scheme != "http" && scheme != "https" {
                    return .failure(TransferFailure(
                        code: .download, message: "\(current) redirects to \(next); only http and https redirects are followed",
                        retryable: false, status: status))
                }
                chain.append(next)
                current = next
                if left <= .zero {
                    return .failure(stopped(by: .timeout, url: current, status: nil, received: 0, redirects: chain.count - 1))
                }
            }
        }
    }

    /// What one hop gave: a final answer, or a redirect to follow.
    private enum Hop: Sendable {
        case done(Result<TransferResponse, TransferFailure>)
        case redirect(status: Int, location: String)
    }

    /// One request and its whole response (run under `RequestDeadline`).
    private func exchange(
        _ url: String, headers extra: HTTPHeaders, accept: String, into target: BodyTarget, wantsImage: Bool
    ) async -> Hop {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "User-Agent", value: userAgent)
        request.headers.add(name: "Accept", value: accept)
        request.headers.add(contentsOf: extra)
        let response: HTTPClientResponse
        do {
            // Only a backstop: `RequestDeadline` ends the request first.
            response = try await client.execute(request, deadline: .now() + timeAmount + .seconds(1))
        } catch {
            return .done(.failure(networkFailure(error, url: url, received: 0, expected: nil)))
        }
        let status = Int(response.status.code)
        await tally.response(status: status)

        if [301, 302, 303, 307, 308].contains(status), let location = response.headers.first(name: "location") {
            await discard(response.body)
            return .redirect(status: status, location: location)
        }
        if status == 304 {
            await discard(response.body)
            return .done(.success(TransferResponse(status: status, headers: response.headers, url: url, bytes: 0)))
        }
        guard (200..<300).contains(status) else {
            await discard(response.body)
            let retryAfter = response.headers.first(name: "retry-after").flatMap { RetryPolicy.retryAfter($0) }
            return .done(.failure(TransferFailure(
                code: .download, message: "\(url) answered HTTP \(status) \(response.status.reasonPhrase)",
                retryable: status >= 500 || status == 429 || status == 408,
                retryAfter: retryAfter, status: status)))
        }
        return .done(await receive(response, url: url, into: target, wantsImage: wantsImage))
    }

    /// The failure of a hop that `--timeout` or a signal ended, after
    /// `redirects` hops before it.
    private func stopped(by stop: RequestStop, url: String, status: Int?, received: Int64, redirects: Int) -> TransferFailure {
        switch stop {
        case .interrupt:
            return .interruptedRequest
        case .timeout:
            let within = redirects == 0 ? timeoutText
                : "\(timeoutText), the \(redirects == 1 ? "redirect" : "\(redirects) redirects") before it included"
            let what = status == nil
                ? "no answer within \(within)"
                : "the response did not arrive whole within \(within) (\(received) bytes of the body received)"
            return TransferFailure(
                code: .download, message: "\(url): \(what)",
                retryable: true, status: status, bytes: received)
        }
    }

    private var timeAmount: TimeAmount { .nanoseconds(Int64((timeout * 1e9).rounded())) }

    /// A duration in seconds, for `RequestDeadline`.
    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return max(0, Double(seconds) + Double(attoseconds) / 1e18)
    }

    private var timeoutText: String {
        let seconds = timeout.rounded() == timeout ? String(Int(timeout)) : String(timeout)
        return "\(seconds) s (--timeout)"
    }

    /// Streams a 2xx body to its target, enforcing `--max-bytes` on the
    /// Content-Length and on the bytes that arrive.
    private func receive(
        _ response: HTTPClientResponse, url: String, into target: BodyTarget, wantsImage: Bool
    ) async -> Result<TransferResponse, TransferFailure> {
        let status = Int(response.status.code)
        let contentType = response.headers.first(name: "content-type") ?? ""
        let declaresImage = contentType.lowercased().hasPrefix("image/")
        let expected = response.headers.first(name: "content-length").flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
        if let expected, expected > maxBytes {
            return .failure(TransferFailure(
                code: .download, message: "\(url) is \(expected) bytes (Content-Length), more than --max-bytes \(maxBytes)",
                retryable: false, status: status))
        }
        // A list page (kept whole, in memory or a file) that is an image.
        if declaresImage, !wantsImage, !target.isObserved {
            return .success(TransferResponse(status: status, headers: response.headers, url: url, bytes: 0, declaredImage: true))
        }

        var observer: (any BodyObserver)?
        if case .observed(let watcher) = target {
            if var refusal = watcher.begin(status: status, headers: response.headers) {
                await discard(response.body)
                refusal.status = status
                refusal.message = "\(url) \(refusal.message)"
                return .failure(refusal)
            }
            observer = watcher
        }
        var stoppedEarly = false
        var sink: FileSink?
        if case .file(let path) = target {
            do {
                sink = try FileSink(path: path)
            } catch {
                return .failure(TransferFailure(code: .io, message: error.message, retryable: false, status: status))
            }
        }
        var memory = Data()
        var received: Int64 = 0
        var prefix: [UInt8] = []
        var sniffed = !wantsImage || declaresImage
        func fail(_ failure: TransferFailure) async -> Result<TransferResponse, TransferFailure> {
            sink?.abandon()
            await tally.received(received)
            var failure = failure
            failure.bytes = received
            failure.status = status
            return .failure(failure)
        }
        func notAnImage() -> TransferFailure {
            let what = contentType.isEmpty ? "no Content-Type" : "Content-Type \(contentType)"
            let start = String(decoding: prefix.prefix(40), as: UTF8.self)
                .map { $0.isLetter || $0.isNumber || $0.isPunctuation || $0 == " " ? String($0) : "." }.joined()
            return TransferFailure(
                code: .unsupported,
                message: "\(url) is not an image (\(what), starting \(RemoteURL.quoted(start)))",
                retryable: false)
        }

        do {
            for try await chunk in response.body {
                received += Int64(chunk.readableBytes)
                if stoppedEarly { continue }  // the short rest of a 206, read so the connection stays open
                if received > maxBytes {
                    return await fail(TransferFailure(
                        code: .download, message: "\(url) sent more than --max-bytes \(maxBytes) bytes; stopped",
                        retryable: false))
                }
                if !sniffed {
                    prefix.append(contentsOf: chunk.readableBytesView.prefix(ImageSniffer.prefixLength - prefix.count))
                    if prefix.count >= ImageSniffer.prefixLength {
                        sniffed = true
                        if ImageSniffer.format(of: prefix) == nil { return await fail(notAnImage()) }
                    }
                }
                if let observer {
                    let enough: Bool
                    do { enough = try observer.take(chunk) } catch {
                        return await fail(TransferFailure(code: .io, message: error.message, retryable: false))
                    }
                    if enough {
                        stoppedEarly = true
                        // A 206's rest is what was asked for: read a short one
                        // to keep the connection; otherwise end the body here
                        // (AsyncHTTPClient cancels the request).
                        guard status == 206, let expected, expected - received <= Self.drainLimit else { break }
                    }
                } else if let sink {
                    do { try sink.write(chunk) } catch { return await fail(TransferFailure(code: .io, message: error.message, retryable: false)) }
                } else {
                    memory.append(contentsOf: chunk.readableBytesView)
                }
            }
        } catch {
            return await fail(networkFailure(error, url: url, received: received, expected: expected))
        }
        if !sniffed, ImageSniffer.format(of: prefix) == nil {
            return await fail(notAnImage())
        }
        if let expected, received != expected, !(stoppedEarly && received < expected) {
            return await fail(TransferFailure(
                code: .download,
                message: "\(url) sent \(received) bytes of the \(expected) its Content-Length announced: the body was cut short",
                retryable: received < expected))
        }
        do {
            try sink?.close()
        } catch {
            return await fail(TransferFailure(code: .io, message: error.message, retryable: false))
        }
        await tally.received(received)
        return .success(TransferResponse(
            status: status, headers: response.headers, url: url, bytes: received,
            body: sink == nil && observer == nil ? memory : nil, file: sink?.path, stoppedEarly: stoppedEarly))
    }

    /// The most of a 206 body read past the point where enough arrived, to
    /// keep its connection for the next request: 256 KiB take 20 ms at
    /// 100 Mbit/s, less than a new connection's handshakes on most lines.
    static let drainLimit: Int64 = 256 << 10

    /// Reads and drops a small body (a redirect, an error page) so the
    /// connection can be reused; a large one is abandoned instead.
    private func discard(_ body: HTTPClientResponse.Body) async {
        var dropped = 0
        do {
            for try await chunk in body {
                dropped += chunk.readableBytes
                if dropped > 64 << 10 { break }
            }
        } catch {}
        await tally.received(Int64(dropped))
    }

    /// A message a person understands for an error from the client.
    func networkFailure(_ error: Error, url: String, received: Int64, expected: Int64?) -> TransferFailure {
        let progress = received > 0 || expected != nil
            ? " after \(received)\(expected.map { " of \($0)" } ?? "") bytes" : ""
        let what: String
        let client = error as? HTTPClientError
        if client == .deadlineExceeded || client == .readTimeout {
            what = received > 0 ? "no data for \(timeoutText)\(progress)" : "no answer within \(timeoutText)"
        } else if client == .connectTimeout {
            what = "could not connect within \(timeoutText)"
        } else if client == .remoteConnectionClosed {
            what = "the server closed the connection\(progress)"
        } else if client == .bodyLengthMismatch {
            what = "the body did not match its Content-Length\(progress)"
        } else if client == .cancelled {
            what = "the request was cancelled"
        } else {
            what = Self.describe(error) + progress
        }
        return TransferFailure(code: .download, message: "\(url): \(what)", retryable: true, bytes: received)
    }

    /// Short text for NIO and POSIX errors ("connection refused").
    static func describe(_ error: Error) -> String {
        let text = String(describing: error)
        let lower = text.lowercased()
        if lower.contains("connection refused") || lower.contains("econnrefused") { return "connection refused" }
        if lower.contains("connection reset") { return "connection reset by the server" }
        if lower.contains("invalideofstate") { return "the connection closed in the middle of the response" }
        if lower.contains("no such host") || lower.contains("name or service not known") || lower.contains("nodename nor servname") {
            return "unknown host"
        }
        return text.count > 300 ? String(text.prefix(300)) + "…" : text
    }
}
