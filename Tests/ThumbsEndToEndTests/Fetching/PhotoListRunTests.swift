import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Photo lists end to end: a real HTTP server on 127.0.0.1 (Picsum and
/// Unsplash look-alikes), the real pipeline, the real outputs.
final class PhotoListRunTests: XCTestCase {
    private static let images = ImageStore()

    /// A server with Picsum at `/v2/list` and `/id/…`, Unsplash at
    /// `/unsplash/…`, plus whatever `extra` answers first.
    private func startServer(
        total: Int = 7, clampPastEnd: Bool = false,
        extra: @escaping @Sendable (TestRequest, String) -> TestResponse? = { _, _ in nil }
    ) async throws -> TestHTTPServer {
        let picsum = PicsumFixture(total: total, clampPastEnd: clampPastEnd, images: Self.images)
        let unsplash = UnsplashFixture(images: Self.images)
        let base = BaseBox()
        let server = try await TestHTTPServer.start { request in
            extra(request, base.value) ?? picsum.respond(request, base: base.value)
                ?? unsplash.respond(request, base: base.value) ?? .notFound
        }
        base.value = server.base
        addTeardownBlock { await server.stop() }
        return server
    }

    func testPicsumPagesEndAtTheShortPage() async throws {
        let server = try await startServer(total: 7)
        let out = TestImages.temporaryDirectory()
        let outcome = try await runThumbs(["\(server.base)/v2/list?page=1&limit=3"], out: out) { $0.size([64]) }
        XCTAssertEqual(outcome.status, .success)
        let manifest = try readManifest(out)
        XCTAssertEqual(manifest.items.map(\.id), (0..<7).map(String.init))
        XCTAssertEqual(Set(manifest.items.map(\.status)), [.ok])
        // Pages 1 and 2 are full, page 3 holds one: the list ends there,
        // although page 3 advertises a next page too.
        XCTAssertEqual(server.requests(to: "/v2/list").map { $0.query["page"] }, ["1", "2", "3"])

        let item = try XCTUnwrap(manifest.item("4"))
        XCTAssertEqual(item.source, "\(server.base)/id/4/64/100")
        XCTAssertEqual(item.meta?["author"], .string("Author 0"))
        XCTAssertEqual(item.meta?["download_url"], .string("\(server.base)/id/4/64/100"))
        XCTAssertEqual(item.width, 64)
        XCTAssertEqual(item.height, 100)
        let download = try XCTUnwrap(item.download)
        XCTAssertEqual(download.url, item.source)
        XCTAssertEqual(download.status, 200)
        XCTAssertEqual(download.attempts, 1)
        XCTAssertEqual(download.bytes, item.bytes)
        XCTAssertGreaterThan(download.ms, 0)
        XCTAssertEqual(item.outputs.map(\.path), ["64/4.jpg"])
        XCTAssertEqual(TestImages.header(out + "/64/4.jpg")?.height, 64)

        let stats = try XCTUnwrap(outcome.statistics)
        XCTAssertEqual(stats.counts.ok, 7)
        let downloads = try readStats(out).downloads
        XCTAssertEqual(downloads.pages, 3)
        XCTAssertEqual(downloads.requests, 10)
        XCTAssertEqual(downloads.ok, 7)
        XCTAssertEqual(downloads.failed, 0)
        XCTAssertEqual(downloads.byStatus["200"], 10)
        // Bytes count the images and the three list pages.
        let imageBytes = manifest.items.reduce(Int64(0)) { $0 + ($1.bytes ?? 0) }
        XCTAssertGreaterThan(downloads.bytes, imageBytes)
        XCTAssertLessThan(downloads.bytes, imageBytes + 4000)
        // Numeric fields of the entries are summarised under `source`.
        let width = try XCTUnwrap(stats.source["width"])
        XCTAssertEqual(width.count, 7)
        XCTAssertEqual(width.total, Double((0..<7).map { PicsumFixture.size(of: $0).width * 10 }.reduce(0, +)))
    }

    func testPicsumExactlyFullLastPageAndSinglePageEndCleanly() async throws {
        let server = try await startServer(total: 6)
        let out = TestImages.temporaryDirectory()
        var outcome = try await runThumbs(["\(server.base)/v2/list?limit=3"], out: out) { $0.size([32]) }
        XCTAssertEqual(outcome.status, .success)
        XCTAssertEqual(try readManifest(out).items.map(\.id), (0..<6).map(String.init))
        // Page 3 is past the end: Picsum answers [] and the list ends.
        XCTAssertEqual(server.requests(to: "/v2/list").map { $0.query["page"] }, [nil, "2", "3"])
        XCTAssertEqual(try readStats(out).downloads.pages, 3)

        // One page holding everything, still advertising a next page.
        server.resetLog()
        let single = TestImages.temporaryDirectory()
        outcome = try await runThumbs(["\(server.base)/v2/list?page=1&limit=30"], out: single) { $0.size([32]) }
        XCTAssertEqual(outcome.status, .success)
        XCTAssertEqual(try readManifest(single).items.count, 6)
        XCTAssertEqual(server.requests(to: "/v2/list").count, 2)
    }

    func testPagesThatRepeatEndTheListWithoutDuplicates() async throws {
        // This server answers any page past the end with the last page again.
        let server = try await startServer(total: 6, clampPastEnd: true)
        let out = TestImages.temporaryDirectory()
        let outcome = try await runThumbs(["\(server.base)/v2/list?page=1&limit=3"], out: out) { $0.size([32]) }
        XCTAssertEqual(outcome.status, .success)
        XCTAssertEqual(try readManifest(out).items.map(\.id), (0..<6).map(String.init))
        XCTAssertEqual(server.requests(to: "/v2/list").count, 3)
    }

    func testMaxPages() async throws {
        let server = try await startServer(total: 20)
        let out = TestImages.temporaryDirectory()
        _ = try await runThumbs(["\(server.base)/v2/list?page=1&limit=3"], out: out) {
            $0.size([32])
            $0.maxPages = 2
        }
        XCTAssertEqual(try readManifest(out).items.map(\.id), (0..<6).map(String.init))
        XCTAssertEqual(try readStats(out).downloads.pages, 2)
    }

    func testUnsplashListWithMetaAndURLField() async throws {
        let server = try await startServer()
        let out = TestImages.temporaryDirectory()
        let outcome = try await runThumbs(["\(server.base)/unsplash/search"], out: out) { $0.size([48]) }
        XCTAssertEqual(outcome.status, .success)
        let manifest = try readManifest(out)
        XCTAssertEqual(manifest.items.map(\.id), ["u0", "u1", "u2", "u3"])
        XCTAssertEqual(manifest.items.map(\.source), (0..<4).map { "\(server.base)/unsplash/img/regular/\($0)" })
        let meta = try XCTUnwrap(manifest.item("u2")?.meta)
        XCTAssertEqual(meta["author"], .string("Photographer 2"))
        XCTAssertEqual(meta["likes"], .number(30))
        XCTAssertEqual(meta["downloads"], .number(300))
        XCTAssertNil(meta["urls"], "nested objects stay out of the manifest")
        let stats = try XCTUnwrap(outcome.statistics)
        XCTAssertEqual(stats.source["likes"]?.total, 100)
        XCTAssertEqual(stats.source["downloads"]?.total, 1000)
        XCTAssertEqual(stats.source["downloads"]?.max, 400)

        server.resetLog()
        let small = TestImages.temporaryDirectory()
        _ = try await runThumbs(["\(server.base)/unsplash/search"], out: small) {
            $0.size([48])
            $0.urlField = "urls.small"
        }
        XCTAssertEqual(try readManifest(small).items.map(\.source), (0..<4).map { "\(server.base)/unsplash/img/small/\($0)" })
        XCTAssertEqual(server.requests.filter { $0.path.hasPrefix("/unsplash/img/small/") }.count, 4)
    }

    /// A list entry's field of 1 MB reaches the manifest cut to 64 KiB, at
    /// a character boundary, with the cut noted in `meta._truncated`
    /// (PRODUCT.md, "Re-runs"); short fields and other entries are as given.
    func testAMetaFieldOver64KiBIsCutAndTheCutNoted() async throws {
        // "a" then 2-byte characters: byte 65,536 falls inside one, so the
        // cut backs off to 65,535 bytes.
        let long = "a" + String(repeating: "é", count: 500_000)
        let server = try await startServer(extra: { request, base in
            guard request.path == "/big.json" else { return nil }
            return .json("""
                [{"id": "big", "download_url": "\(base)/id/1/64/97", "description": "\(long)", "author": "A"},
                 {"id": "small", "download_url": "\(base)/id/2/82/82", "description": "short"}]
                """)
        })
        let out = TestImages.temporaryDirectory()
        let outcome = try await runThumbs(["\(server.base)/big.json"], out: out) { $0.size([32]) }
        XCTAssertEqual(outcome.status, .success)
        let manifest = try readManifest(out)
        let big = try XCTUnwrap(manifest.item("big")?.meta)
        let kept = try XCTUnwrap(big["description"]?.stringValue)
        XCTAssertEqual(kept.utf8.count, 65_535)
        XCTAssertTrue(long.hasPrefix(kept))
        XCTAssertEqual(big["_truncated"], .array([.string("description")]))
        XCTAssertEqual(big["author"], .string("A"))
        let small = try XCTUnwrap(manifest.item("small")?.meta)
        XCTAssertEqual(small["description"], .string("short"))
        XCTAssertNil(small["_truncated"])
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: out + "/manifest.json")[.size] as? Int)
        XCTAssertLessThan(size, 200_000, "the 1 MB field was copied into the manifest")
    }

    func testLocalListFilesAndStandardInput() async throws {
        let server = try await startServer()
        let folder = TestImages.temporaryDirectory()
        let ndjson = folder + "/photos.ndjson"
        try """
            {"id":"first","author":"A","likes":3,"download_url":"\(server.base)/id/1/64/97"}
            {"id":"second","author":"B","likes":5,"download_url":"\(server.base)/id/2/80/80"}
            """.write(toFile: ndjson, atomically: true, encoding: .utf8)
        let text = folder + "/urls.txt"
        try "# two photos\n\(server.base)/id/3/99/64\n\n\(server.base)/id/5/81/80\n".write(toFile: text, atomically: true, encoding: .utf8)

        let out = TestImages.temporaryDirectory()
        let outcome = try await runThumbs([ndjson, text], out: out) { $0.size([40]) }
        XCTAssertEqual(outcome.status, .success)
        let manifest = try readManifest(out)
        XCTAssertEqual(manifest.items.map(\.id), ["first", "second", "64", "80"])
        XCTAssertEqual(manifest.items.map(\.status), [.ok, .ok, .ok, .ok])
        XCTAssertEqual(manifest.item("second")?.meta?["likes"], .number(5))
        XCTAssertEqual(outcome.statistics?.source["likes"]?.total, 8)

        // `-`: the same text on standard input.
        let body = Data("\(server.base)/id/3/99/64\n".utf8)
        var options = RunOptions(sources: ["-"])
        options.timeout = 5
        let resolved = try await ListSources.resolve(["-"], options: options, console: .silent, standardInput: { body })
        XCTAssertEqual(resolved.items.map(\.id), ["64"])
        XCTAssertEqual(resolved.items.map(\.source), ["\(server.base)/id/3/99/64"])
        let fetched = await resolved.fetcher.fetch(resolved.items[0], previous: nil)
        guard case .downloaded(let file, let record) = fetched else { return XCTFail("not downloaded: \(fetched)") }
        XCTAssertEqual(record.status, 200)
        XCTAssertTrue(FileManager.default.fileExists(atPath: file))
        let counters = await resolved.counters()
        XCTAssertEqual(counters.requests, 1)
        XCTAssertEqual(counters.pages, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file), "the session removes its download folder when it ends")
    }

    func testURLThatAnswersWithAnImageIsOneImage() async throws {
        // One image declared by its Content-Type, one known by its bytes only.
        let server = try await startServer(extra: { request, _ in
            request.path == "/bytes/photo" ? .image(Self.images.png(width: 30, height: 20), type: "application/octet-stream") : nil
        })
        let out = TestImages.temporaryDirectory()
        let outcome = try await runThumbs(["\(server.base)/id/9/64/64", "\(server.base)/bytes/photo"], out: out) { $0.size([32]) }
        XCTAssertEqual(outcome.status, .success)
        let manifest = try readManifest(out)
        XCTAssertEqual(manifest.items.map(\.id), ["64", "photo"])
        XCTAssertEqual(manifest.items.map(\.status), [.ok, .ok])
    }

    func testConditionalRerunIsUnchanged() async throws {
        let etag = "\"v1\""
        let server = try await startServer(extra: { request, _ in
            guard request.path.hasPrefix("/tagged/") else { return nil }
            if request.headers.first(name: "if-none-match") == etag {
                return TestResponse(status: .notModified, headers: [("ETag", etag)])
            }
            let width = request.path == "/tagged/a" ? 70 : 72
            return .image(Self.images.jpeg(width: width, height: 50), headers: [("ETag", etag), ("Last-Modified", "Sun, 09 Sep 2001 01:46:40 GMT")])
        })
        let list = TestImages.temporaryDirectory() + "/list.json"
        try "[{\"id\":\"a\",\"download_url\":\"\(server.base)/tagged/a\"},{\"id\":\"b\",\"download_url\":\"\(server.base)/tagged/b\"}]"
            .write(toFile: list, atomically: true, encoding: .utf8)
        let out = TestImages.temporaryDirectory()
        _ = try await runThumbs([list], out: out) { $0.size([32]) }
        let first = try readManifest(out)
        XCTAssertEqual(first.items.map(\.status), [.ok, .ok])
        XCTAssertEqual(first.item("a")?.download?.etag, etag)
        XCTAssertEqual(first.item("a")?.download?.lastModified, "Sun, 09 Sep 2001 01:46:40 GMT")

        server.resetLog()
        let outcome = try await runThumbs([list], out: out) { $0.size([32]) }
        XCTAssertEqual(outcome.status, .success)
        let second = try readManifest(out)
        XCTAssertEqual(second.items.map(\.status), [.unchanged, .unchanged])
        XCTAssertEqual(second.item("b")?.download?.status, 304)
        XCTAssertEqual(second.item("b")?.download?.etag, etag, "validators carry over for the next run")
        XCTAssertEqual(second.item("b")?.outputs.map(\.path), ["32/b.jpg"])
        for request in server.requests {
            XCTAssertEqual(request.headers.first(name: "if-none-match"), etag)
            XCTAssertEqual(request.headers.first(name: "if-modified-since"), "Sun, 09 Sep 2001 01:46:40 GMT")
        }
        let downloads = try readStats(out).downloads
        XCTAssertEqual(downloads.notModified, 2)
        XCTAssertEqual(downloads.byStatus["304"], 2)
        XCTAssertEqual(downloads.ok, 0)

        // An output removed since: the 304 is not trusted, the image is fetched again.
        try FileManager.default.removeItem(atPath: out + "/32/a.jpg")
        _ = try await runThumbs([list], out: out) { $0.size([32]) }
        let third = try readManifest(out)
        XCTAssertEqual(third.item("a")?.status, .ok)
        XCTAssertEqual(third.item("b")?.status, .unchanged)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/32/a.jpg"))
    }

    func testRerunWithoutValidatorsRequestsNothing() async throws {
        let server = try await startServer(extra: { request, _ in
            request.path.hasPrefix("/plain/") ? .image(Self.images.jpeg(width: 60, height: 44)) : nil
        })
        let list = TestImages.temporaryDirectory() + "/list.txt"
        try "\(server.base)/plain/one.jpg\n".write(toFile: list, atomically: true, encoding: .utf8)
        let out = TestImages.temporaryDirectory()
        _ = try await runThumbs([list], out: out) { $0.size([32]) }
        XCTAssertEqual(try readManifest(out).items.map(\.status), [.ok])

        server.resetLog()
        _ = try await runThumbs([list], out: out) { $0.size([32]) }
        let second = try readManifest(out)
        XCTAssertEqual(second.items.map(\.status), [.unchanged])
        XCTAssertEqual(second.items[0].download?.attempts, 0)
        XCTAssertEqual(server.requests.count, 0, "same entry, same URL, outputs present: nothing to ask")
        XCTAssertEqual(try readStats(out).downloads.requests, 0)

        // --force fetches again.
        _ = try await runThumbs([list], out: out) {
            $0.size([32])
            $0.force = true
        }
        XCTAssertEqual(try readManifest(out).items.map(\.status), [.ok])
        XCTAssertEqual(server.requests.count, 1)
    }

    func testHostileIDsStayInsideOUT() async throws {
        let server = try await startServer()
        let parent = TestImages.temporaryDirectory()
        let out = parent + "/out"
        let long = String(repeating: "x", count: 400)
        let ids = ["../../escape", "/etc/absolute", "a\u{0}b", long, "..", "nested/../../up", "~", "C:\\\\win"]
        let entries = ids.enumerated().map { index, id -> String in
            let escaped = id.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\u{0}", with: "\\u0000")
            return "{\"id\":\"\(escaped)\",\"download_url\":\"\(server.base)/id/\(index)/\(40 + index)/40\"}"
        }
        let list = parent + "/list.json"
        try ("[" + entries.joined(separator: ",") + "]").write(toFile: list, atomically: true, encoding: .utf8)
        let outcome = try await runThumbs([list], out: out) { $0.size([24]) }
        XCTAssertEqual(outcome.status, .success)
        let manifest = try readManifest(out)
        XCTAssertEqual(manifest.items.count, ids.count)
        XCTAssertEqual(manifest.items.map(\.status), Array(repeating: .ok, count: ids.count))
        // Nothing beside OUT and the list, nothing under / from the list.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: parent).sorted(), ["list.json", "out"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/etc/absolute.jpg"))
        for item in manifest.items {
            let path = try XCTUnwrap(item.outputs.first?.path)
            XCTAssertTrue(path.hasPrefix("24/"), path)
            XCTAssertFalse(path.split(separator: "/").contains(".."), path)
            XCTAssertFalse(path.contains("\u{0}"), path)
            XCTAssertTrue(path.split(separator: "/").allSatisfy { $0.utf8.count <= 130 }, path)
            XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/" + path), path)
        }
        XCTAssertEqual(Set(manifest.items.map { $0.outputs[0].path }).count, ids.count)
    }

    func testListThatDoesNotParseIsFatal() async throws {
        let server = try await startServer(extra: { request, _ in
            switch request.path {
            case "/html": .text("<html><body>Sign in</body></html>", type: "text/html")
            case "/broken.json": .json("[{\"id\": \"1\", ")
            case "/nothing": .json("[{\"id\": \"1\", \"title\": \"no url\"}]")
            default: nil
            }
        })
        for (path, expected) in [("/html", "HTML"), ("/broken.json", "not valid JSON"), ("/nothing", "no image to fetch"),
                                 ("/missing.json", "HTTP 404")] {
            do {
                _ = try await runThumbs([server.base + path], out: TestImages.temporaryDirectory()) { $0.retries = 0 }
                XCTFail("\(path) should stop the run")
            } catch let error as RunError {
                XCTAssertEqual(error.exitCode, .fatal, path)
                XCTAssertTrue(error.message.contains(server.base + path), error.message)
                XCTAssertTrue(error.message.contains(expected), error.message)
            }
        }
        let local = TestImages.temporaryDirectory() + "/bad.json"
        try "{\"photos\": [".write(toFile: local, atomically: true, encoding: .utf8)
        do {
            _ = try await runThumbs([local], out: TestImages.temporaryDirectory())
            XCTFail("a broken list file should stop the run")
        } catch let error as RunError {
            XCTAssertEqual(error.exitCode, .fatal)
            XCTAssertTrue(error.message.contains("bad.json does not parse"), error.message)
        }
    }

    /// A list file that is a folder or a FIFO is named as such, at once.
    func testAListFileThatIsNotARegularFileIsNamed() async throws {
        let folder = TestImages.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: folder + "/list.json", withIntermediateDirectories: true)
        XCTAssertEqual(mkfifo(folder + "/pipe.txt", 0o644), 0)
        for (name, kind) in [("list.json", "a folder"), ("pipe.txt", "a FIFO")] {
            do {
                _ = try await runThumbs([folder + "/" + name], out: folder + "/out")
                XCTFail("\(name): the run went on")
            } catch let error as RunError {
                XCTAssertEqual(error.exitCode, .fatal)
                XCTAssertTrue(error.message.contains("the photo list \(folder)/\(name) is \(kind)"), error.message)
                XCTAssertTrue(error.message.contains("not a list file"), error.message)
            }
        }
    }

    func testUnreachableListIsFatal() async throws {
        // A port that was just open and is now closed: connection refused.
        let server = try await TestHTTPServer.start { _ in .notFound }
        let url = server.base + "/v2/list"
        await server.stop()
        let clock = ContinuousClock.now
        do {
            _ = try await runThumbs([url], out: TestImages.temporaryDirectory()) { $0.retries = 1 }
            XCTFail("an unreachable list should stop the run")
        } catch let error as RunError {
            XCTAssertEqual(error.exitCode, .fatal)
            XCTAssertTrue(error.message.contains(url), error.message)
            XCTAssertTrue(error.message.contains("connection refused"), error.message)
            XCTAssertTrue(error.message.contains("2 attempts"), error.message)
        }
        XCTAssertLessThan(ContinuousClock.now - clock, .seconds(5))
    }

    func testDownloadJobsAndRateAreHonoured() async throws {
        let server = try await startServer(extra: { request, _ in
            guard request.path.hasPrefix("/slowimg/") else { return nil }
            var response = TestResponse.image(Self.images.jpeg(width: 40, height: 30))
            response.delay = .milliseconds(150)
            return response
        })
        let urls = (0..<8).map { "\(server.base)/slowimg/\($0)" }.joined(separator: "\n")
        let list = TestImages.temporaryDirectory() + "/urls.txt"
        try urls.write(toFile: list, atomically: true, encoding: .utf8)
        _ = try await runThumbs([list], out: TestImages.temporaryDirectory()) {
            $0.size([16])
            $0.downloadJobs = 2
        }
        XCTAssertEqual(server.maxInFlight, 2, "--download-jobs 2: two downloads at once, no more")

        server.resetLog()
        let clock = ContinuousClock.now
        _ = try await runThumbs([list], out: TestImages.temporaryDirectory()) {
            $0.size([16])
            $0.downloadJobs = 8
            $0.rate = 20
        }
        // --rate 20: one request every 50 ms. Requests leave on time, but on
        // a loaded machine one can reach the server late and the next one
        // right behind it, so single gaps may shrink; eight requests can
        // never all come together, and the run cannot take less than 350 ms.
        let arrivals = server.requests.map(\.arrived).sorted()
        XCTAssertEqual(arrivals.count, 8)
        let close = zip(arrivals, arrivals.dropFirst()).filter { $1 - $0 < .milliseconds(25) }.count
        XCTAssertLessThanOrEqual(close, 3, "most requests are at least 25 ms apart")
        XCTAssertGreaterThanOrEqual(arrivals.last! - arrivals.first!, .milliseconds(200))
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - clock, .milliseconds(350))
    }

    // MARK: - Helpers

    private func readStats(_ out: String) throws -> Statistics {
        try JSONDecoder().decode(Statistics.self, from: Data(contentsOf: URL(fileURLWithPath: out + "/stats.json")))
    }
}
