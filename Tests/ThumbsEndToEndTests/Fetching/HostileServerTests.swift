import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Issue 14, the network half, in-process: `--timeout` bounds a whole
/// request even when the server trickles its body, and a `next` link that
/// is not http(s) stops the run with a message naming the page.
final class HostileServerTests: XCTestCase {
    private static let images = ImageStore()

    private func startServer(_ route: @escaping @Sendable (TestRequest, String) -> TestResponse) async throws -> TestHTTPServer {
        let base = BaseBox()
        let server = try await TestHTTPServer.start { route($0, base.value) }
        base.value = server.base
        addTeardownBlock { await server.stop() }
        return server
    }

    /// An image sent one byte every 200 ms: minutes for the whole body.
    private static func trickling(_ bytes: [UInt8]) -> TestResponse {
        var response = TestResponse.image(bytes)
        response.trickle = .milliseconds(200)
        return response
    }

    func testATricklingImageFailsWithinTheTimeoutAndTheRunGoesOn() async throws {
        let image = Self.images.jpeg(width: 64, height: 48)
        let other = Self.images.jpeg(width: 48, height: 64)
        let server = try await startServer { request, base in
            switch request.path {
            case "/list.json":
                return .json("""
                    [{"id":"trickle","download_url":"\(base)/trickle.jpg"},{"id":"fine","download_url":"\(base)/fine.jpg"}]
                    """)
            case "/trickle.jpg": return Self.trickling(image)
            case "/fine.jpg": return .image(other)
            default: return .notFound
            }
        }
        let out = TestImages.temporaryDirectory()
        let clock = ContinuousClock.now
        let outcome = try await runThumbs(["\(server.base)/list.json"], out: out) {
            $0.size([32])
            $0.timeout = 2
            $0.retries = 0
        }
        let elapsed = ContinuousClock.now - clock
        XCTAssertEqual(outcome.status, .failures)
        let manifest = try readManifest(out)
        XCTAssertEqual(manifest.item("fine")?.status, .ok)
        let trickle = try XCTUnwrap(manifest.item("trickle"))
        XCTAssertEqual(trickle.status, .failed)
        XCTAssertEqual(trickle.error?.code, "download")
        let message = trickle.error?.message ?? ""
        XCTAssertTrue(message.contains("\(server.base)/trickle.jpg"), message)
        XCTAssertTrue(message.contains("within 2 s (--timeout)"), message)
        XCTAssertTrue(message.contains("bytes of the body received"), message)
        XCTAssertEqual(trickle.download?.status, 200)
        XCTAssertLessThan(trickle.download?.bytes ?? .max, Int64(image.count), "the body was not waited for")
        // A behavioural bound, not a performance figure: the body alone
        // would take minutes.
        XCTAssertLessThan(elapsed, .seconds(2 + 5))
    }

    func testATricklingListPageStopsTheRunWithinTheTimeout() async throws {
        let server = try await startServer { request, base in
            switch request.path {
            case "/list.json":
                var response = TestResponse.json(String(repeating: " ", count: 2000) + "[\"\(base)/a.jpg\"]")
                response.trickle = .milliseconds(200)
                return response
            default: return .notFound
            }
        }
        let out = TestImages.temporaryDirectory()
        let clock = ContinuousClock.now
        do {
            _ = try await runThumbs(["\(server.base)/list.json"], out: out) {
                $0.timeout = 2
                $0.retries = 0
            }
            XCTFail("a list that never arrives whole cannot be read")
        } catch let error as RunError {
            XCTAssertEqual(error.exitCode, .fatal)
            XCTAssertTrue(error.message.contains("cannot read the photo list"), error.message)
            XCTAssertTrue(error.message.contains("within 2 s (--timeout)"), error.message)
        }
        XCTAssertLessThan(ContinuousClock.now - clock, .seconds(2 + 5))
        XCTAssertEqual(server.requests(to: "/a.jpg").count, 0)
    }

    func testANextLinkThatIsNotHTTPStopsTheRunNamingThePage() async throws {
        let image = Self.images.jpeg(width: 40, height: 30)
        for bad in ["ftp://127.0.0.1/list?page=3", "file:///etc/passwd"] {
            let server = try await startServer { request, base in
                switch (request.path, request.query["page"]) {
                case ("/list", nil):
                    return .json("[\"\(base)/1.jpg\",\"\(base)/2.jpg\"]", headers: [("Link", "<\(base)/list?page=2>; rel=\"next\"")])
                case ("/list", "2"):
                    return .json("[\"\(base)/3.jpg\",\"\(base)/4.jpg\"]", headers: [("Link", "<\(bad)>; rel=\"next\"")])
                default:
                    return .image(image)
                }
            }
            let out = TestImages.temporaryDirectory()
            do {
                _ = try await runThumbs(["\(server.base)/list"], out: out)
                XCTFail("\(bad): the run went on")
            } catch let error as RunError {
                XCTAssertEqual(error.exitCode, .fatal, bad)
                for part in ["page 2 of the photo list \(server.base)/list", "\(server.base)/list?page=2", bad, "only http and https"] {
                    XCTAssertTrue(error.message.contains(part), "\(error.message) lacks \(part)")
                }
            }
            XCTAssertEqual(server.requests(to: "/list").count, 2, bad)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/manifest.json"), bad)
        }
    }
}
