import Foundation
import NIOHTTP1
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Every download fault as one list, run once through the real pipeline:
/// each fault is one item with the right status, code, message and
/// download record; the run goes on.
final class DownloadFaultTests: XCTestCase {
    private static let images = ImageStore()
    private static let maxBytes = 60_000

    /// Counts answers per path, for "fail N times, then succeed".
    private final class Attempts: @unchecked Sendable {
        private let lock = NSLock()
        private var counts: [String: Int] = [:]
        func next(_ path: String) -> Int {
            lock.withLock {
                counts[path, default: 0] += 1
                return counts[path]!
            }
        }
    }

    private static func route(_ request: TestRequest, base: String, attempts: Attempts) -> TestResponse {
        // Each path its own picture, so that no two items share their bytes.
        let width = 40 + request.path.unicodeScalars.reduce(0) { ($0 &* 31 &+ Int($1.value)) % 199 }
        let image = images.jpeg(width: width, height: 48)
        let big = images.png(width: 200, height: 200)  // incompressible gradient PNG, well over maxBytes
        precondition(big.count > maxBytes)
        switch request.path {
        case "/flaky.jpg":
            return attempts.next(request.path) <= 2 ? .text("busy", status: .serviceUnavailable) : .image(image)
        case "/throttled.jpg":
            if attempts.next(request.path) == 1 {
                return TestResponse(status: .tooManyRequests, headers: [("Retry-After", "1")])
            }
            return .image(image)
        case "/throttled-date.jpg":
            if attempts.next(request.path) == 1 {
                let date = Date().addingTimeInterval(2)
                let formatter = DateFormatter()
                formatter.locale = Locale(identifier: "en_US_POSIX")
                formatter.timeZone = TimeZone(identifier: "GMT")
                formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
                return TestResponse(status: .tooManyRequests, headers: [("Retry-After", formatter.string(from: date))])
            }
            return .image(image)
        case "/always-500.jpg":
            return .text("oops", status: .internalServerError)
        case "/missing.jpg":
            return .notFound
        case "/cut.jpg":
            // Announces the whole image, sends a third, hangs up.
            return TestResponse(headers: [("Content-Type", "image/jpeg")], body: Array(image.prefix(image.count / 3)),
                                announcedLength: image.count, close: true)
        case "/longer.jpg":
            // Announces half the image and sends all of it.
            return TestResponse(headers: [("Content-Type", "image/jpeg")], body: image,
                                announcedLength: image.count / 2, close: true)
        case "/page.jpg":
            return .text("<!doctype html><html><head><title>Photo</title></head><body>a page about a photo</body></html>", type: "text/html")
        case "/loop/a": return .redirect(base + "/loop/b")
        case "/loop/b": return .redirect("/loop/a")
        case "/to-ftp": return .redirect("ftp://127.0.0.1/photo.jpg", status: .movedPermanently)
        case "/to-unix": return .redirect("http+unix://%2Ftmp%2Fsock/photo.jpg")
        case "/hops/1", "/hops/2", "/hops/3", "/hops/4", "/hops/5", "/hops/6":
            let n = Int(request.path.split(separator: "/").last!)!
            return .redirect("/hops/\(n + 1)", status: .temporaryRedirect)
        case "/hops/7", "/two/final.jpg":
            return .image(image)
        case "/two/1": return .redirect(base + "/two/2", status: .seeOther)
        case "/two/2": return .redirect("final.jpg", status: .permanentRedirect)
        case "/big-length.png":
            return .image(big, type: "image/png")
        case "/big-chunked.png":
            var response = TestResponse.image(big, type: "image/png")
            response.chunked = true
            return response
        case "/slow.jpg":
            var response = TestResponse.image(image)
            response.delay = .seconds(3)
            return response
        case "/stall.jpg":
            var response = TestResponse.image(image)
            response.stallAfter = image.count / 2
            response.stall = .seconds(3)
            return response
        case "/fine.jpg":
            return .image(image)
        default:
            return .notFound
        }
    }

    func testEveryFaultIsOneFailedItemAndTheRunGoesOn() async throws {
        let attempts = Attempts()
        let base = BaseBox()
        let server = try await TestHTTPServer.start { request in Self.route(request, base: base.value, attempts: attempts) }
        base.value = server.base
        addTeardownBlock { await server.stop() }

        let entries: [(id: String, url: String)] = [
            ("flaky", "/flaky.jpg"), ("throttled", "/throttled.jpg"), ("throttled-date", "/throttled-date.jpg"),
            ("always-500", "/always-500.jpg"), ("missing", "/missing.jpg"), ("cut", "/cut.jpg"), ("longer", "/longer.jpg"), ("page", "/page.jpg"),
            ("loop", "/loop/a"), ("to-ftp", "/to-ftp"), ("to-unix", "/to-unix"), ("hops", "/hops/1"),
            ("two-redirects", "/two/1"), ("big-length", "/big-length.png"), ("big-chunked", "/big-chunked.png"),
            ("slow", "/slow.jpg"), ("stall", "/stall.jpg"), ("fine", "/fine.jpg"),
        ]
        var json = entries.map { "{\"id\":\"\($0.id)\",\"download_url\":\"\(server.base)\($0.url)\"}" }
        json.append("{\"id\":\"local-file\",\"download_url\":\"file:///etc/passwd\"}")
        json.append("{\"id\":\"no-url\",\"title\":\"an entry without an image\"}")
        let list = TestImages.temporaryDirectory() + "/faults.json"
        try ("[" + json.joined(separator: ",\n") + "]").write(toFile: list, atomically: true, encoding: .utf8)

        let out = TestImages.temporaryDirectory()
        let clock = ContinuousClock.now
        let outcome = try await runThumbs([list], out: out) {
            $0.size([32])
            $0.retries = 2
            // A whole request (the big PNG bodies included) gets 1.5 s, a
            // margin on a busy machine; the slow and stalled ones need 3 s.
            $0.timeout = 1.5
            $0.maxBytes = Self.maxBytes
            $0.downloadJobs = 8
        }
        let elapsed = ContinuousClock.now - clock
        XCTAssertEqual(outcome.status, .failures)
        let manifest = try readManifest(out)
        XCTAssertEqual(manifest.items.count, entries.count + 2)

        func check(_ id: String, _ status: ItemStatus, code: String? = nil, message: [String] = [], attempts: Int? = nil,
                   httpStatus: Int?? = nil, line: UInt = #line) {
            guard let item = manifest.item(id, line: line) else { return }
            XCTAssertEqual(item.status, status, "\(id): \(item.error?.message ?? "")", line: line)
            XCTAssertEqual(item.error?.code, code, id, line: line)
            for part in message {
                XCTAssertTrue(item.error?.message.contains(part) ?? false, "\(id): \(item.error?.message ?? "no error") lacks \(part)", line: line)
            }
            if let attempts { XCTAssertEqual(item.download?.attempts, attempts, id, line: line) }
            if let httpStatus { XCTAssertEqual(item.download?.status, httpStatus, id, line: line) }
            if status == .ok {
                XCTAssertEqual(item.outputs.count, 1, id, line: line)
                XCTAssertEqual(item.download?.bytes, item.bytes, id, line: line)
            } else {
                XCTAssertTrue(item.outputs.isEmpty, id, line: line)
            }
        }
        let url = { (path: String) in server.base + path }
        check("flaky", .ok, attempts: 3, httpStatus: 200)
        check("throttled", .ok, attempts: 2, httpStatus: 200)
        check("throttled-date", .ok, attempts: 2, httpStatus: 200)
        check("always-500", .failed, code: "download", message: [url("/always-500.jpg"), "HTTP 500", "3 attempts"], attempts: 3, httpStatus: 500)
        check("missing", .failed, code: "download", message: [url("/missing.jpg"), "HTTP 404"], attempts: 1, httpStatus: 404)
        check("cut", .failed, code: "download", message: [url("/cut.jpg")], attempts: 3)
        // A body longer than its Content-Length: HTTP/1.1 ends the message
        // at the announced length (the rest is garbage on the connection,
        // which the client drops), so the item gets the announced bytes, a
        // cut image, and fails with a clear message, as one item.
        if let longer = manifest.item("longer") {
            XCTAssertEqual(longer.status, .failed)
            XCTAssertTrue(["decode", "download"].contains(longer.error?.code ?? ""), "\(longer.error as Any)")
            if longer.error?.code == "decode" {
                XCTAssertEqual(longer.download?.bytes, longer.bytes)
                XCTAssertTrue(longer.error?.message.contains("end of input") ?? false, "\(longer.error as Any)")
            }
        }
        check("page", .failed, code: "unsupported", message: [url("/page.jpg"), "not an image", "text/html"], attempts: 1)
        check("loop", .failed, code: "download", message: ["redirect loop", url("/loop/a"), url("/loop/b")], attempts: 1)
        check("to-ftp", .failed, code: "download", message: [url("/to-ftp"), "ftp://127.0.0.1/photo.jpg", "only http and https"])
        check("to-unix", .failed, code: "download", message: ["http+unix://", "only http and https"])
        check("hops", .failed, code: "download", message: ["more than 5 redirects", url("/hops/1")], attempts: 1)
        check("two-redirects", .ok, attempts: 1, httpStatus: 200)
        check("big-length", .failed, code: "download", message: [url("/big-length.png"), "Content-Length", "--max-bytes \(Self.maxBytes)"], attempts: 1)
        check("big-chunked", .failed, code: "download", message: [url("/big-chunked.png"), "--max-bytes \(Self.maxBytes)"], attempts: 1)
        check("slow", .failed, code: "download", message: [url("/slow.jpg"), "no answer within 1.5 s (--timeout)"], attempts: 3)
        check("stall", .failed, code: "download", message: [url("/stall.jpg"), "did not arrive whole within 1.5 s (--timeout)"], attempts: 3)
        check("fine", .ok, attempts: 1, httpStatus: 200)
        check("local-file", .failed, code: "unsupported", message: ["file:///etc/passwd", "only http and https"])
        check("no-url", .failed, code: "unsupported", message: ["no image URL", "--url-field"])
        XCTAssertNil(manifest.item("local-file")?.download, "nothing was requested")

        // The cut body was retried; a 404 and the faults of the response itself were not.
        XCTAssertEqual(server.requests(to: "/cut.jpg").count, 3)
        XCTAssertEqual(server.requests(to: "/missing.jpg").count, 1)
        XCTAssertEqual(server.requests(to: "/big-length.png").count, 1)
        XCTAssertEqual(server.requests(to: "/page.jpg").count, 1)
        XCTAssertEqual(server.requests(to: "/loop/a").count, 1)
        XCTAssertEqual(server.requests(to: "/hops/6").count, 1)
        XCTAssertEqual(server.requests(to: "/hops/7").count, 0, "the sixth redirect is not followed")
        // Retry-After: 1 was honoured before the second attempt.
        let throttled = server.requests(to: "/throttled.jpg").map(\.arrived)
        XCTAssertGreaterThanOrEqual(throttled[1] - throttled[0], .milliseconds(950))
        let dated = server.requests(to: "/throttled-date.jpg").map(\.arrived)
        XCTAssertGreaterThanOrEqual(dated[1] - dated[0], .milliseconds(900))

        let downloads = try JSONDecoder().decode(Statistics.self, from: Data(contentsOf: URL(fileURLWithPath: out + "/stats.json"))).downloads
        XCTAssertEqual(downloads.ok, 6, "five images and the one longer than its Content-Length")
        XCTAssertEqual(downloads.failed, entries.count - 6, "entries without an http(s) URL are never requested")
        XCTAssertEqual(downloads.requests, server.requests.count)
        XCTAssertEqual(downloads.retries, 2 + 1 + 1 + 2 + 2 + 2 + 2)  // flaky, throttled ×2, 500, cut, slow, stall
        XCTAssertEqual(downloads.byStatus["503"], 2)
        XCTAssertEqual(downloads.byStatus["429"], 2)
        XCTAssertEqual(downloads.byStatus["500"], 3)
        XCTAssertEqual(downloads.byStatus["404"], 1)
        XCTAssertEqual(downloads.byStatus["307"], 6)
        XCTAssertEqual(downloads.pages, 0)
        XCTAssertEqual(outcome.statistics?.counts.failed, entries.count + 2 - 5)
        XCTAssertEqual(outcome.statistics?.counts.ok, 5)
        XCTAssertLessThan(elapsed, .seconds(15))

        // No download is left behind in the temporary folder.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())
            .filter { $0.hasPrefix("thumbs-downloads-\(getpid())-") }
        XCTAssertEqual(leftovers, [])
    }
}
