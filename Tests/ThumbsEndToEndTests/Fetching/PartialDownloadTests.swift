import CThumbsTestShim
import CVips
import Foundation
import NIOHTTP1
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Issue 24 end to end: a list of progressive JPEGs served by real loopback
/// servers (with Range, without it, and lying), made into thumbnails from
/// their first bytes only.
final class PartialDownloadTests: XCTestCase {
    /// How a test server treats `Range`.
    enum RangeMode: Sendable {
        case honour, ignore, wrongStart, refuse416
    }

    static let folder = TestImages.temporaryDirectory("partial-download-images")
    static let lock = NSLock()
    nonisolated(unsafe) static var cache: [String: [UInt8]] = [:]

    /// A noisy 2048×1536 JPEG (a texture that compresses like a photo: about
    /// 1 MB at Q 92), progressive (libjpeg's standard script) or baseline.
    static func photo(seed: Int, progressive: Bool = true) -> [UInt8] {
        let key = "\(seed)-\(progressive)"
        if let bytes = lock.withLock({ cache[key] }) { return bytes }
        TestImages.start()
        let width = 2048, height = 1536
        var state = UInt32(truncatingIfNeeded: seed &* 2654435761 &+ 12345)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                state = state &* 1664525 &+ 1013904223
                let noise = Int(state >> 26)  // 0...63
                let i = (y * width + x) * 3
                pixels[i] = UInt8(clamping: x * 200 / width + noise)
                pixels[i + 1] = UInt8(clamping: y * 200 / height + noise / 2)
                pixels[i + 2] = UInt8(clamping: 64 + ((x / 64 + y / 64 + seed) % 4) * 40 + noise / 4)
            }
        }
        let image = pixels.withUnsafeBytes {
            vips_image_new_from_memory_copy($0.baseAddress, $0.count, Int32(width), Int32(height), 3, VIPS_FORMAT_UCHAR)
        }!
        image.pointee.Type = VIPS_INTERPRETATION_sRGB
        let path = folder + "/\(key).jpg"
        precondition(shim_save_file(image, path + (progressive ? "[Q=92,interlace,strip]" : "[Q=92,strip]")) == 0)
        shim_unref(image)
        let bytes = [UInt8](FileManager.default.contents(atPath: path)!)
        lock.withLock { cache[key] = bytes }
        return bytes
    }

    /// Serves `file` as the image at its path, treating Range per `mode`,
    /// with a strong ETag (and 304 to If-None-Match).
    static func serve(_ file: [UInt8], _ request: TestRequest, mode: RangeMode) -> TestResponse {
        let etag = "\"\(file.count)-\(file.prefix(64).reduce(0) { ($0 &* 31 &+ Int($1)) & 0xFFFFFF })\""
        if request.headers.first(name: "If-None-Match") == etag {
            return TestResponse(status: .notModified, headers: [("ETag", etag)])
        }
        var headers = [("Content-Type", "image/jpeg"), ("ETag", etag)]
        guard let range = request.headers.first(name: "Range"), mode != .ignore else {
            return TestResponse(headers: headers, body: file)
        }
        if mode == .refuse416 {
            return TestResponse(status: .rangeNotSatisfiable, headers: [("Content-Range", "bytes */\(file.count)")])
        }
        let spec = range.dropFirst("bytes=".count).split(separator: "-", omittingEmptySubsequences: false)
        let first = Int(spec[0]) ?? 0
        let last = min(file.count - 1, spec.count > 1 ? Int(spec[1]) ?? file.count - 1 : file.count - 1)
        guard first < file.count else {
            return TestResponse(status: .rangeNotSatisfiable, headers: [("Content-Range", "bytes */\(file.count)")])
        }
        headers.append(("Accept-Ranges", "bytes"))
        // A lying server: says it sends other bytes than it was asked for.
        let shift = mode == .wrongStart ? 100 : 0
        headers.append(("Content-Range", "bytes \(first + shift)-\(last + shift)/\(file.count + shift)"))
        return TestResponse(status: .partialContent, headers: headers, body: Array(file[first...last]))
    }

    /// A server with `/list.json` naming `files` by index, each served by
    /// `serve` under `mode`.
    private func start(_ files: [[UInt8]], mode: RangeMode) async throws -> TestHTTPServer {
        let base = BaseBox()
        let server = try await TestHTTPServer.start { request in
            if request.path == "/list.json" {
                let entries = files.indices.map { #"{"id":"p\#($0)","download_url":"\#(base.value)/img/\#($0).jpg"}"# }
                return .json("[" + entries.joined(separator: ",") + "]")
            }
            guard request.path.hasPrefix("/img/"), let index = Int(request.path.dropFirst(5).dropLast(4)), files.indices.contains(index) else {
                return .notFound
            }
            return Self.serve(files[index], request, mode: mode)
        }
        base.value = server.base
        addTeardownBlock { await server.stop() }
        return server
    }

    private func run(_ server: TestHTTPServer, out: String, wholeFiles: Bool = false) async throws -> (ThumbsRun.Outcome, Manifest) {
        let outcome = try await runThumbs(["\(server.base)/list.json"], out: out) { options in
            options.size([256])
            options.wholeFiles = wholeFiles
            options.retries = 0
        }
        return (outcome, try readManifest(out))
    }

    /// Pixels of an output, for comparing two runs' thumbnails.
    static func pixels(_ path: String) throws -> [UInt8] {
        var image: UnsafeMutablePointer<VipsImage>?
        XCTAssertEqual(shim_open_file(path, &image), 0, path)
        let opened = try XCTUnwrap(image)
        defer { shim_unref(opened) }
        var size = 0
        let memory = try XCTUnwrap(vips_image_write_to_memory(opened, &size))
        defer { g_free(memory) }
        return [UInt8](UnsafeRawBufferPointer(start: memory, count: size))
    }

    static func psnr(_ x: [UInt8], _ y: [UInt8]) -> Double {
        guard x.count == y.count, !x.isEmpty else { return 0 }
        let sum = zip(x, y).reduce(0.0) { $0 + pow(Double(Int($1.0) - Int($1.1)), 2) }
        return sum == 0 ? 100 : 10 * log10(255 * 255 / (sum / Double(x.count)))
    }

    /// Thumbnails of a partial run against those of a `--whole-files` run.
    private func assertLikeWholeFiles(_ server: TestHTTPServer, _ out: String, _ manifest: Manifest) async throws {
        let whole = TestImages.temporaryDirectory("whole")
        let (_, reference) = try await run(server, out: whole, wholeFiles: true)
        for item in manifest.items where item.status == .ok {
            let other = try XCTUnwrap(reference.item(item.id))
            XCTAssertNil(other.download?.partial)
            XCTAssertNotNil(other.sha256)
            XCTAssertEqual(other.bytes, item.bytes, "bytes is the whole size either way")
            let psnr = Self.psnr(try Self.pixels(out + "/" + item.outputs[0].path), try Self.pixels(whole + "/" + other.outputs[0].path))
            XCTAssertGreaterThanOrEqual(psnr, 40, item.id)
        }
    }

    func testARangeServerSendsAFifthOfEachProgressiveFileOverOneConnection() async throws {
        let files = [Self.photo(seed: 1), Self.photo(seed: 2), Self.photo(seed: 3, progressive: false)]
        let server = try await start(files, mode: .honour)
        let out = TestImages.temporaryDirectory()
        let (outcome, manifest) = try await run(server, out: out)
        XCTAssertEqual(outcome.status, .success)
        for index in 0..<2 {
            let item = try XCTUnwrap(manifest.item("p\(index)"))
            let download = try XCTUnwrap(item.download)
            XCTAssertEqual(item.status, .ok)
            XCTAssertEqual(download.partial, true)
            XCTAssertEqual(download.size, Int64(files[index].count))
            XCTAssertEqual(item.bytes, Int64(files[index].count))
            XCTAssertNil(item.sha256, "no digest of a partial download")
            XCTAssertLessThanOrEqual(Double(download.bytes) / Double(files[index].count), 0.25)
            XCTAssertEqual(download.status, 206)
            let requests = server.requests(to: "/img/\(index).jpg")
            XCTAssertLessThanOrEqual(requests.count, 3)
            XCTAssertTrue(requests.allSatisfy { $0.headers.first(name: "Range") != nil })
            XCTAssertEqual(requests.dropFirst().compactMap { $0.headers.first(name: "If-Range") }.count, requests.count - 1,
                           "continuations carry If-Range")
        }
        // Baseline: whole, as before (a prefix, then the rest).
        let baseline = try XCTUnwrap(manifest.item("p2"))
        XCTAssertNil(baseline.download?.partial)
        XCTAssertNotNil(baseline.sha256)
        XCTAssertEqual(baseline.bytes, Int64(files[2].count))
        XCTAssertEqual(baseline.download?.bytes, Int64(files[2].count))
        XCTAssertEqual(server.requests(to: "/img/2.jpg").count, 2)
        let stats = try readStats(out).downloads
        XCTAssertEqual(stats.partial, 2)
        XCTAssertGreaterThan(stats.bytesSaved, Int64(files[0].count))
        XCTAssertTrue(try String(contentsOfFile: out + "/report.html", encoding: .utf8).contains("saved"))
        try await assertLikeWholeFiles(server, out, manifest)
        XCTAssertTrue(server.requests.suffix(3).allSatisfy { $0.headers.first(name: "Range") == nil }, "--whole-files asks for no range")

        // A re-run asks conditionally; a 304 is unchanged.
        server.resetLog()
        let (again, second) = try await run(server, out: out)
        XCTAssertEqual(again.status, .success)
        XCTAssertEqual(Set(second.items.map(\.status)), [.unchanged])
        XCTAssertEqual(server.requests.filter { $0.path.hasPrefix("/img/") }.map { $0.headers.first(name: "If-None-Match") != nil }, [true, true, true])
    }

    func testAServerThatIgnoresRangeHasItsBodyEndedEarly() async throws {
        let files = [Self.photo(seed: 4), Self.photo(seed: 5)]
        let server = try await start(files, mode: .ignore)
        let out = TestImages.temporaryDirectory()
        let (outcome, manifest) = try await run(server, out: out)
        XCTAssertEqual(outcome.status, .success)
        for index in files.indices {
            let item = try XCTUnwrap(manifest.item("p\(index)"))
            XCTAssertEqual(item.download?.partial, true)
            XCTAssertEqual(item.download?.status, 200)
            XCTAssertEqual(item.download?.size, Int64(files[index].count))
            XCTAssertLessThanOrEqual(Double(item.download?.bytes ?? 0) / Double(files[index].count), 0.4)
            XCTAssertEqual(server.requests(to: "/img/\(index).jpg").count, 1)
        }
        try await assertLikeWholeFiles(server, out, manifest)
    }

    func testLyingServersStillGiveGoodThumbnails() async throws {
        for mode in [RangeMode.wrongStart, .refuse416] {
            let files = [Self.photo(seed: 6)]
            let server = try await start(files, mode: mode)
            let out = TestImages.temporaryDirectory()
            let (outcome, manifest) = try await run(server, out: out)
            XCTAssertEqual(outcome.status, .success, "\(mode)")
            let item = try XCTUnwrap(manifest.item("p0"))
            XCTAssertEqual(item.status, .ok, "\(mode): \(item.error?.message ?? "")")
            // Asked again without Range: the 200 body is ended early.
            let requests = server.requests(to: "/img/0.jpg")
            XCTAssertEqual(requests.map { $0.headers.first(name: "Range") != nil }, [true, false], "\(mode)")
            XCTAssertEqual(item.download?.partial, true)
            try await assertLikeWholeFiles(server, out, manifest)
        }
    }

    func testABodyEndingInsideTheDCScanIsAskedForWholeOnceThenFails() async throws {
        let whole = Self.photo(seed: 7)
        var watch = ProgressiveScanWatch { _ in true }
        guard case .enough(let cut, _) = watch.feed(whole) else { return XCTFail("no cut") }
        let truncated = Array(whole[0..<(cut / 2)])
        for mode in [RangeMode.honour, .ignore] {
            let server = try await start([truncated], mode: mode)
            let out = TestImages.temporaryDirectory()
            let (_, manifest) = try await run(server, out: out)
            let item = try XCTUnwrap(manifest.item("p0"))
            XCTAssertEqual(item.status, .failed)
            XCTAssertEqual(item.error?.code, "download")
            XCTAssertTrue(item.error?.message.contains("before the scans a thumbnail needs") ?? false, item.error?.message ?? "")
            XCTAssertEqual(server.requests(to: "/img/0.jpg").map { $0.headers.first(name: "Range") != nil },
                           mode == .honour ? [true, false] : [true, false], "\(mode)")
        }
    }

    func testAFileThatClaimsToBeProgressiveAndIsNotComesWholeAndFailsToDecode() async throws {
        var lying = Self.photo(seed: 8)
        // SOF2, but the first scan has DC and AC together (Se 63).
        var at = 2
        while !(lying[at] == 0xFF && lying[at + 1] == 0xDA) { at += 2 + Int(lying[at + 2]) << 8 + Int(lying[at + 3]) }
        lying[at + 5 + 2 * Int(lying[at + 4]) + 1] = 63
        let server = try await start([lying], mode: .honour)
        let out = TestImages.temporaryDirectory()
        let (_, manifest) = try await run(server, out: out)
        let item = try XCTUnwrap(manifest.item("p0"))
        XCTAssertEqual(item.status, .failed)
        XCTAssertEqual(item.error?.code, "decode")
        XCTAssertNil(item.download?.partial)
        XCTAssertEqual(item.download?.bytes, Int64(lying.count), "downloaded whole")
    }

    /// `--max-bytes` holds for the whole file's size, as for a whole download.
    func testMaxBytesRefusesByTheWholeSizeThatARangeAnswerAnnounces() async throws {
        let file = Self.photo(seed: 10)
        let server = try await start([file], mode: .honour)
        let out = TestImages.temporaryDirectory()
        _ = try await runThumbs(["\(server.base)/list.json"], out: out) { options in
            options.size([256])
            options.maxBytes = file.count - 1
        }
        let item = try XCTUnwrap(try readManifest(out).item("p0"))
        XCTAssertEqual(item.status, .failed)
        XCTAssertEqual(item.error?.code, "download")
        XCTAssertTrue(item.error?.message.contains("more than --max-bytes \(file.count - 1)") ?? false, item.error?.message ?? "")
        XCTAssertEqual(server.requests(to: "/img/0.jpg").count, 1)
    }

    /// Duplicates among partial items: the same received bytes and the same
    /// whole size (not a strong ETag: it is unique per URL only).
    func testPartialDuplicatesNeedTheSamePrefixAndTheSameSize() async throws {
        let photo = Self.photo(seed: 9)
        let longer = photo + Array(repeating: 0, count: 1000)  // junk after EOI: another file
        let server = try await start([photo, photo, longer], mode: .honour)
        let out = TestImages.temporaryDirectory()
        let (_, manifest) = try await run(server, out: out)
        // p0 and p1 download at once: either may be the one decoded.
        let statuses = manifest.items.map(\.status)
        XCTAssertTrue(statuses == [.ok, .duplicate, .ok] || statuses == [.duplicate, .ok, .ok], "\(statuses)")
        XCTAssertEqual(Set(manifest.items.prefix(2).compactMap(\.duplicateOf)).count, 1)
        XCTAssertNil(manifest.item("p2")?.duplicateOf)
        XCTAssertEqual(manifest.items.map { $0.download?.partial }, [true, true, true])
    }

    /// The same partial downloads in different shards: the merge finds them
    /// identical by `download.digest` (there is no sha256), as one run does
    /// (above), and a download of another size stays apart.
    func testAMergeFindsPartialDownloadCopiesAcrossShardsByTheirDigest() async throws {
        let photo = Self.photo(seed: 9)
        let longer = photo + Array(repeating: 0, count: 1000)
        let server = try await start([photo, photo, longer], mode: .honour)
        let count = try XCTUnwrap((2...9).first { ShardPartition.shard(of: "p0", count: $0) != ShardPartition.shard(of: "p1", count: $0) })
        var outs: [String] = []
        for index in 0..<count {
            let out = TestImages.temporaryDirectory("partial-shard-\(index)")
            _ = try await runThumbs(["\(server.base)/list.json"], out: out) { options in
                options.size([256])
                options.retries = 0
                options.shard = Shard(index: index, count: count)
            }
            outs.append(out)
        }
        let merged = TestImages.temporaryDirectory("partial-merged")
        _ = try ThumbsMerge(manifests: outs.map { $0 + "/manifest.json" }, outputDirectory: merged).run()
        let manifest = try readManifest(merged)
        let p0 = try XCTUnwrap(manifest.item("p0")), p1 = try XCTUnwrap(manifest.item("p1"))
        XCTAssertEqual([p0.download?.partial, p1.download?.partial], [true, true])
        XCTAssertNil(p0.sha256)
        let digest = try XCTUnwrap(p0.download?.digest, "a partial download carries the digest of what came")
        XCTAssertEqual(p1.download?.digest, digest)
        XCTAssertEqual(Set([p0.status, p1.status]), [.ok, .duplicate], "identical by what came, across shards")
        XCTAssertEqual([p0.duplicateOf, p1.duplicateOf].compactMap { $0 }.count, 1)
        XCTAssertNotEqual(manifest.item("p2")?.download?.digest, digest, "another whole size")
        XCTAssertNil(manifest.item("p2")?.duplicateOf)
    }

    private func readStats(_ out: String) throws -> Statistics {
        try JSONDecoder().decode(Statistics.self, from: Data(contentsOf: URL(fileURLWithPath: out + "/stats.json")))
    }
}
