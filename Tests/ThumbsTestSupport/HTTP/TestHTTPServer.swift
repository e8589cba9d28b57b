import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// One request as the test server saw it.
public struct TestRequest: Sendable {
    public var method: String
    /// The path without the query.
    public var path: String
    public var query: [String: String]
    public var headers: HTTPHeaders
    /// When it arrived (for rate and concurrency checks).
    public var arrived: ContinuousClock.Instant

    init(_ head: HTTPRequestHead) {
        method = head.method.rawValue
        let parts = head.uri.split(separator: "?", maxSplits: 1)
        path = parts.first.map(String.init) ?? "/"
        var query: [String: String] = [:]
        if parts.count > 1 {
            for pair in parts[1].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1)
                query[String(kv[0])] = kv.count > 1 ? String(kv[1]) : ""
            }
        }
        self.query = query
        headers = head.headers
        arrived = .now
    }
}

/// What the server answers, including the faults tests need.
public struct TestResponse: Sendable {
    public var status: HTTPResponseStatus
    public var headers: [(String, String)]
    public var body: [UInt8]
    /// Wait this long before sending anything (a server slower than --timeout).
    public var delay: TimeAmount?
    /// Send the body in pieces with chunked framing (no Content-Length).
    public var chunked: Bool
    /// Announce this Content-Length whatever the body's real size.
    public var announcedLength: Int?
    /// Send this many body bytes, then wait `stall` before the rest.
    public var stallAfter: Int?
    public var stall: TimeAmount
    /// Close the connection once the response is written.
    public var close: Bool
    /// Send the body one byte per interval after the head (a server that
    /// keeps a connection alive without ever finishing).
    public var trickle: TimeAmount?

    public init(
        status: HTTPResponseStatus = .ok, headers: [(String, String)] = [], body: [UInt8] = [],
        delay: TimeAmount? = nil, chunked: Bool = false, announcedLength: Int? = nil,
        stallAfter: Int? = nil, stall: TimeAmount = .seconds(5), close: Bool = false, trickle: TimeAmount? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
        self.chunked = chunked
        self.announcedLength = announcedLength
        self.stallAfter = stallAfter
        self.stall = stall
        self.close = close
        self.trickle = trickle
    }

    public static func json(_ text: String, headers: [(String, String)] = []) -> TestResponse {
        TestResponse(headers: [("Content-Type", "application/json")] + headers, body: Array(text.utf8))
    }

    public static func text(_ text: String, type: String = "text/plain", status: HTTPResponseStatus = .ok) -> TestResponse {
        TestResponse(status: status, headers: [("Content-Type", type)], body: Array(text.utf8))
    }

    public static func image(_ bytes: [UInt8], type: String = "image/jpeg", headers: [(String, String)] = []) -> TestResponse {
        TestResponse(headers: [("Content-Type", type)] + headers, body: bytes)
    }

    public static func redirect(_ location: String, status: HTTPResponseStatus = .found) -> TestResponse {
        TestResponse(status: status, headers: [("Location", location)])
    }

    public static let notFound = TestResponse.text("not found", status: .notFound)
}

/// A real HTTP/1.1 server on 127.0.0.1 and an ephemeral port, on SwiftNIO,
/// answering through the test's router. It records every request.
public final class TestHTTPServer: Sendable {
    public let port: Int
    private let channel: any Channel
    private let log: RequestLog

    public var base: String { "http://127.0.0.1:\(port)" }

    private init(channel: any Channel, port: Int, log: RequestLog) {
        self.channel = channel
        self.port = port
        self.log = log
    }

    public static func start(router: @escaping @Sendable (TestRequest) -> TestResponse) async throws -> TestHTTPServer {
        let log = RequestLog()
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(TestHTTPHandler(router: router, log: log))
                }
            }
        let channel = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        guard let port = channel.localAddress?.port else { throw ChannelError.unknownLocalAddress }
        return TestHTTPServer(channel: channel, port: port, log: log)
    }

    public func stop() async {
        try? await channel.close()
    }

    /// Every request so far, in arrival order.
    public var requests: [TestRequest] { log.all }

    public func requests(to path: String) -> [TestRequest] { log.all.filter { $0.path == path } }

    /// The most requests that were being answered at the same moment.
    public var maxInFlight: Int { log.maxInFlight }

    public func resetLog() { log.reset() }
}

/// Requests seen, and how many were in flight at once.
final class RequestLog: @unchecked Sendable {
    private let lock = NSLock()
    private var requests: [TestRequest] = []
    private var inFlight = 0
    private var peak = 0

    var all: [TestRequest] { lock.withLock { requests } }
    var maxInFlight: Int { lock.withLock { peak } }

    func began(_ request: TestRequest) {
        lock.withLock {
            requests.append(request)
            inFlight += 1
            peak = max(peak, inFlight)
        }
    }

    func ended() { lock.withLock { inFlight -= 1 } }

    func reset() {
        lock.withLock {
            requests = []
            peak = inFlight
        }
    }
}

private final class TestHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let router: @Sendable (TestRequest) -> TestResponse
    let log: RequestLog
    private var head: HTTPRequestHead?

    init(router: @escaping @Sendable (TestRequest) -> TestResponse, log: RequestLog) {
        self.router = router
        self.log = log
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body:
            break
        case .end:
            guard let head else { return }
            self.head = nil
            let request = TestRequest(head)
            log.began(request)
            let response = router(request)
            if let delay = response.delay {
                context.eventLoop.assumeIsolated().scheduleTask(in: delay) {
                    self.send(response, context: context)
                }
            } else {
                send(response, context: context)
            }
        }
    }

    private func send(_ response: TestResponse, context: ChannelHandlerContext) {
        guard context.channel.isActive else {
            log.ended()
            return
        }
        var headers = HTTPHeaders(response.headers)
        if response.chunked {
            headers.replaceOrAdd(name: "Transfer-Encoding", value: "chunked")
        } else {
            headers.replaceOrAdd(name: "Content-Length", value: String(response.announcedLength ?? response.body.count))
        }
        if response.close { headers.replaceOrAdd(name: "Connection", value: "close") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: response.status, headers: headers))), promise: nil)

        let body = response.body
        if let interval = response.trickle {
            context.flush()
            trickle(body[...], every: interval, response: response, context: context)
            return
        }
        let cut = min(response.stallAfter ?? body.count, body.count)
        writeBody(Array(body[..<cut]), chunked: response.chunked, context: context)
        if cut < body.count {
            context.flush()
            context.eventLoop.assumeIsolated().scheduleTask(in: response.stall) {
                guard context.channel.isActive else { return self.log.ended() }
                self.writeBody(Array(body[cut...]), chunked: response.chunked, context: context)
                self.finish(response, context: context)
            }
        } else {
            finish(response, context: context)
        }
    }

    /// Writes one byte, then the rest `interval` later, until the client goes.
    private func trickle(_ rest: ArraySlice<UInt8>, every interval: TimeAmount, response: TestResponse, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return log.ended() }
        guard let byte = rest.first else { return finish(response, context: context) }
        writeBody([byte], chunked: response.chunked, context: context)
        context.flush()
        context.eventLoop.assumeIsolated().scheduleTask(in: interval) {
            self.trickle(rest.dropFirst(), every: interval, response: response, context: context)
        }
    }

    private func writeBody(_ bytes: [UInt8], chunked: Bool, context: ChannelHandlerContext) {
        guard !bytes.isEmpty else { return }
        // Chunked bodies go out in several pieces, as a streaming server would.
        let piece = chunked ? max(1, bytes.count / 4) : bytes.count
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + piece)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: bytes[start..<end])))), promise: nil)
            start = end
        }
    }

    private func finish(_ response: TestResponse, context: ChannelHandlerContext) {
        log.ended()
        if response.close {
            // Bytes on the wire as they are, then the connection ends: with a
            // Content-Length larger than the body, the body is cut short.
            context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        } else {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
