import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Issue 14, the network half, in-process: `--timeout` bounds a whole
/// request even when the server trickles its body, and a `next` link that
/// is not http(s) ends the list there, with exit 3 and a line naming the page.
final class HostileServerTests: XCTestCase {
    private static let images = ImageStore()

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

    /// A `next` link thumbs refuses ends the list there (PRODUCT.md): the
    /// pages read so far are processed and written, the refusal is one line
    /// naming the page that gave the link, and the run exits 3.
    func testARefusedNextLinkEndsTheListAfterThePagesReadThenExits3() async throws {
        for bad in ["ftp://127.0.0.1/list?page=3", "file:///etc/passwd"] {
            let server = try await startServer { request, base in
                switch (request.path, request.query["page"]) {
                case ("/list", nil):
                    return .json("[\"\(base)/1.jpg\",\"\(base)/2.jpg\"]", headers: [("Link", "<\(base)/list?page=2>; rel=\"next\"")])
                case ("/list", "2"):
                    return .json("[\"\(base)/3.jpg\",\"\(base)/4.jpg\"]", headers: [("Link", "<\(bad)>; rel=\"next\"")])
                default:  // each its own size: no duplicates
                    return .image(Self.images.jpeg(width: 40 + Int(request.path.utf8.dropFirst().first ?? 0), height: 30))
                }
            }
            let out = TestImages.temporaryDirectory()
            let outcome = try await runThumbs(["\(server.base)/list"], out: out)
            XCTAssertEqual(outcome.status, .fatal, bad)
            XCTAssertEqual(server.requests(to: "/list").count, 2, bad)
            let manifest = try readManifest(out)
            XCTAssertEqual(manifest.items.map(\.id), ["1.jpg", "2.jpg", "3.jpg", "4.jpg"], bad)
            XCTAssertEqual(manifest.items.map(\.status), [.ok, .ok, .ok, .ok], bad)
            XCTAssertNil(manifest.interrupted, bad)
            XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/stats.json"), bad)
            XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/report.html"), bad)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/.thumbs/journal.ndjson"), "a finished run leaves no journal")
            // A dry run lists the pages read and exits 3 as well.
            let dry = try await runThumbs(["\(server.base)/list"], out: TestImages.temporaryDirectory()) { $0.dryRun = true }
            XCTAssertEqual(dry.status, .fatal, bad)
        }
    }

    /// A list cut short at a refused `next` link: what its unread pages held
    /// is unknown, not gone. `--prune` deletes nothing of it, and its records
    /// stay in the manifest's `kept` for the run that reads those pages again.
    func testAListCutShortPrunesNothingOfItsUnreadPages() async throws {
        let mode = BaseBox()
        let server = try await startServer { request, base in
            switch (request.path, request.query["page"]) {
            case ("/list", nil):
                let next = mode.value == "refuse" ? "ftp://127.0.0.1/list?page=2" : "\(base)/list?page=2"
                return .json("[\"\(base)/1.jpg\",\"\(base)/2.jpg\"]", headers: [("Link", "<\(next)>; rel=\"next\"")])
            case ("/list", "2"):
                return .json("[\"\(base)/3.jpg\",\"\(base)/4.jpg\"]")
            default:  // each its own size: no duplicates
                return .image(Self.images.jpeg(width: 40 + Int(request.path.utf8.dropFirst().first ?? 0), height: 30))
            }
        }
        let out = TestImages.temporaryDirectory()
        let first = try await runThumbs(["\(server.base)/list"], out: out)
        XCTAssertEqual(first.status, .success)
        XCTAssertEqual(try readManifest(out).items.map(\.id), ["1.jpg", "2.jpg", "3.jpg", "4.jpg"])

        mode.value = "refuse"
        let second = try await runThumbs(["\(server.base)/list"], out: out) {
            $0.prune = true
            $0.maxPrune = .percent(100)
        }
        XCTAssertEqual(second.status, .fatal)
        let manifest = try readManifest(out)
        // Unseen, so not items (issue 39: never counted as discovered), but
        // their records are kept for the run that reads that page again.
        XCTAssertEqual(manifest.items.map(\.id), ["1.jpg", "2.jpg"])
        XCTAssertEqual(manifest.kept?.map(\.id), ["3.jpg", "4.jpg"])
        XCTAssertEqual(manifest.gone ?? [], [], "the unread page's entries are not gone")
        for id in ["3.jpg", "4.jpg"] {
            let path = try XCTUnwrap(manifest.kept?.first { $0.id == id }?.outputs.first?.path, id)
            XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/" + path), "\(id): \(path) was pruned")
        }
    }

    /// The same through the binary: exit 3, and one line on stderr names the
    /// refusal and the page that gave the link, after the summary.
    func testARefusedNextLinkIsOneLineAndExit3FromTheBinary() async throws {
        try ThumbsProcess.requireExecutable()
        let bad = "ftp://127.0.0.1/list?page=2"
        let server = try await startServer { request, base in
            switch request.path {
            case "/list": .json("[\"\(base)/1.jpg\",\"\(base)/2.jpg\"]", headers: [("Link", "<\(bad)>; rel=\"next\"")])
            default: .image(Self.images.jpeg(width: 40 + Int(request.path.utf8.dropFirst().first ?? 0), height: 30))
            }
        }
        let out = TestImages.temporaryDirectory()
        let result = try ThumbsProcess.capture(["run", "\(server.base)/list", "--out", out, "--progress", "never"])
        XCTAssertEqual(result.status, 3, result.stderr)
        let lines = result.stderr.split(separator: "\n").filter { $0.contains(bad) }
        XCTAssertEqual(lines.count, 1, result.stderr)
        for part in ["page 1 of the photo list \(server.base)/list", "only http and https", "2 entries on 1 page"] {
            XCTAssertTrue(lines.first?.contains(part) == true, "\(lines) lacks \(part)")
        }
        XCTAssertEqual(try readManifest(out).items.map(\.status), [.ok, .ok])
        XCTAssertTrue(result.stderr.hasSuffix(lines.last.map { String($0) + "\n" } ?? "-"), "the refusal comes last:\n\(result.stderr)")
    }
}
