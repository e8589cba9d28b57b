import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Issue 39, §4 and §6: how a paginated list ends, what a repeated entry
/// becomes, `next` links with commas or refused schemes, a `next` page that
/// fails, and `--timeout` over a chain of redirects. A real server on
/// 127.0.0.1, the real pipeline.
final class ListPagingRulesTests: XCTestCase {
    private static let images = ImageStore()

    /// An image of its own size for each path, so that no two are duplicates.
    private static func image(for path: String) -> TestResponse {
        let n = path.utf8.reduce(0) { ($0 &* 31 &+ Int($1)) % 97 }
        return .image(images.jpeg(width: 30 + n, height: 24))
    }

    /// A page of `/list?page=N` holding `names`, with a `next` link to page
    /// N+1 unless it is the last.
    private static func page(_ names: [String], base: String, next: String?) -> TestResponse {
        let body = "[" + names.map { "\"\(base)/img/\($0).jpg\"" }.joined(separator: ",") + "]"
        return .json(body, headers: next.map { [("Link", "<\($0)>; rel=\"next\"")] } ?? [])
    }

    /// PRODUCT.md: a page shorter than the one *before* ends the list. Page
    /// sizes 5, 4, 4, 1: the list is read to its last page (main ended it at
    /// the first page shorter than the first one, page 2).
    func testShrinkingPagesAreReadToTheEnd() async throws {
        let sizes = [5, 4, 4, 1]
        let server = try await startServer { request, base in
            guard request.path == "/list" else { return Self.image(for: request.path) }
            let page = Int(request.query["page"] ?? "1") ?? 1
            guard page <= sizes.count else { return .json("[]") }
            let first = sizes.prefix(page - 1).reduce(0, +)
            return Self.page((first..<first + sizes[page - 1]).map { "p\($0)" }, base: base,
                             next: "\(base)/list?page=\(page + 1)")
        }
        let out = TestImages.temporaryDirectory()
        let outcome = try await runThumbs(["\(server.base)/list"], out: out) { $0.size([32]) }
        XCTAssertEqual(outcome.status, .success)
        XCTAssertEqual(try readManifest(out).items.map(\.id), (0..<14).map { "p\($0).jpg" })
        // Page 4 holds 1 entry, fewer than page 3's 4: the list ends there.
        XCTAssertEqual(server.requests(to: "/list").map { $0.query["page"] }, [nil, "2", "3", "4"])
    }

    /// A repeated entry is kept with a unique id, on its own page and on a
    /// later one alike (main dropped the later one); the id's suffix never
    /// collides with an id the list has.
    func testAnEntryRepeatedOnALaterPageIsKeptWithAUniqueID() async throws {
        let server = try await startServer { request, base in
            guard request.path == "/list" else { return Self.image(for: request.path) }
            switch request.query["page"] {
            case nil: return Self.page(["a", "b", "a"], base: base, next: "\(base)/list?page=2")
            default: return Self.page(["c", "a", "b"], base: base, next: nil)
            }
        }
        let out = TestImages.temporaryDirectory()
        let outcome = try await runThumbs(["\(server.base)/list"], out: out) { $0.size([32]) }
        XCTAssertEqual(outcome.status, .success)
        let manifest = try readManifest(out)
        XCTAssertEqual(manifest.items.map(\.id), ["a.jpg", "b.jpg", "a.jpg#2", "c.jpg", "a.jpg#3", "b.jpg#2"])
        XCTAssertEqual(manifest.items.map(\.source), ["a", "b", "a", "c", "a", "b"].map { "\(server.base)/img/\($0).jpg" })
        XCTAssertEqual(manifest.items.map(\.status), [.ok, .ok, .duplicate, .ok, .duplicate, .duplicate])
        XCTAssertEqual(Set(manifest.items.flatMap(\.outputs).map(\.path)).count, 6, "each id its own output")
    }

    /// A cursor with a comma in a `next` link is followed: the header's
    /// values are read as sent, not split at every comma.
    func testANextLinkWithACommaInItsCursorIsFollowed() async throws {
        let server = try await startServer { request, base in
            guard request.path == "/list" else { return Self.image(for: request.path) }
            switch request.query["cursor"] {
            case nil: return Self.page(["a", "b"], base: base, next: "\(base)/list?cursor=a,b")
            case "a,b": return Self.page(["c", "d"], base: base, next: nil)
            default: return .notFound
            }
        }
        let out = TestImages.temporaryDirectory()
        let outcome = try await runThumbs(["\(server.base)/list"], out: out) { $0.size([32]) }
        XCTAssertEqual(outcome.status, .success)
        XCTAssertEqual(try readManifest(out).items.map(\.id), ["a.jpg", "b.jpg", "c.jpg", "d.jpg"])
        XCTAssertEqual(server.requests(to: "/list").map { $0.query["cursor"] }, [nil, "a,b"])
    }

    /// A `next` link to `data:` (with its comma) is refused like any other
    /// scheme: the page read is processed, and the run exits 3.
    func testADataNextLinkIsRefusedWithExit3AfterThePagesRead() async throws {
        let server = try await startServer { request, base in
            guard request.path == "/list" else { return Self.image(for: request.path) }
            return Self.page(["a", "b"], base: base, next: "data:text/plain,a,b")
        }
        let out = TestImages.temporaryDirectory()
        let outcome = try await runThumbs(["\(server.base)/list"], out: out) { $0.size([32]) }
        XCTAssertEqual(outcome.status, .fatal)
        let manifest = try readManifest(out)
        XCTAssertEqual(manifest.items.map(\.id), ["a.jpg", "b.jpg"])
        XCTAssertEqual(manifest.items.map(\.status), [.ok, .ok])
    }

    /// A `next` page that cannot be read (its origin unreachable; an error
    /// status) keeps the pages already read, as a refused link does: they
    /// are processed and written, the failure is one line, exit 3.
    func testANextPageThatFailsKeepsThePagesReadAndExits3() async throws {
        for next in ["http://127.0.0.1:1/list?page=2", "SAME/broken"] {
            let server = try await startServer { request, base in
                switch request.path {
                case "/list": return Self.page(["a", "b"], base: base, next: next.replacingOccurrences(of: "SAME", with: base))
                case "/broken": return .text("oops", status: .internalServerError)
                default: return Self.image(for: request.path)
                }
            }
            let out = TestImages.temporaryDirectory()
            let outcome = try await runThumbs(["\(server.base)/list"], out: out) {
                $0.size([32])
                $0.retries = 0
            }
            XCTAssertEqual(outcome.status, .fatal, next)
            let manifest = try readManifest(out)
            XCTAssertEqual(manifest.items.map(\.id), ["a.jpg", "b.jpg"], next)
            XCTAssertEqual(manifest.items.map(\.status), [.ok, .ok], next)
            XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/report.html"), next)
        }
    }

    /// The same through the binary: one line names the page that failed
    /// and what was kept, and the run exits 3 after the summary.
    func testANextPageThatFailsIsOneLineFromTheBinary() async throws {
        try ThumbsProcess.requireExecutable()
        let server = try await startServer { request, base in
            request.path == "/list" ? Self.page(["a", "b"], base: base, next: "http://127.0.0.1:1/list?page=2")
                : Self.image(for: request.path)
        }
        let out = TestImages.temporaryDirectory()
        let result = try ThumbsProcess.capture(["run", "\(server.base)/list", "--out", out, "--progress", "never", "--retries", "0"])
        XCTAssertEqual(result.status, 3, result.stderr)
        let lines = result.stderr.split(separator: "\n").filter { $0.contains("127.0.0.1:1/") }
        XCTAssertEqual(lines.count, 1, result.stderr)
        for part in ["cannot read page 2 of the photo list \(server.base)/list", "2 entries on 1 page"] {
            XCTAssertTrue(lines.first?.contains(part) == true, "\(lines) lacks \(part)")
        }
        XCTAssertEqual(try readManifest(out).items.map(\.status), [.ok, .ok])
    }

    /// `--timeout` bounds a whole request, its redirects included: hops of
    /// 0.6, 0.6 and 1.5 s each pass a 2 s timeout, but not together.
    func testTheTimeoutBoundsARequestWithItsRedirects() async throws {
        let server = try await startServer { request, base in
            switch request.path {
            case "/list.json":
                return .json("[{\"id\":\"slow\",\"download_url\":\"\(base)/r1\"},{\"id\":\"fine\",\"download_url\":\"\(base)/fine.jpg\"}]")
            case "/r1", "/r2":
                var response = TestResponse.redirect(base + (request.path == "/r1" ? "/r2" : "/slow.jpg"))
                response.delay = .milliseconds(600)
                return response
            case "/slow.jpg":
                var response = Self.image(for: request.path)
                response.delay = .milliseconds(1500)
                return response
            default: return Self.image(for: request.path)
            }
        }
        let out = TestImages.temporaryDirectory()
        let outcome = try await runThumbs(["\(server.base)/list.json"], out: out) {
            $0.size([32])
            $0.timeout = 2
            $0.retries = 0
        }
        XCTAssertEqual(outcome.status, .failures)
        let manifest = try readManifest(out)
        XCTAssertEqual(manifest.item("fine")?.status, .ok)
        let slow = try XCTUnwrap(manifest.item("slow"))
        XCTAssertEqual(slow.status, .failed)
        let message = slow.error?.message ?? ""
        XCTAssertTrue(message.contains("within 2 s (--timeout), the 2 redirects before it included"), message)
        XCTAssertTrue(message.hasPrefix("\(server.base)/slow.jpg"), message)
    }
}
