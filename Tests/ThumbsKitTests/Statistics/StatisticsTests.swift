import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

final class StatisticsTests: XCTestCase {
    func testSummaryNearestRank() {
        let s = Summary((1...100).map(Double.init))
        XCTAssertEqual(s.count, 100)
        XCTAssertEqual(s.min, 1)
        XCTAssertEqual(s.max, 100)
        XCTAssertEqual(s.mean, 50.5)
        XCTAssertEqual(s.p50, 50)
        XCTAssertEqual(s.p95, 95)
        XCTAssertNil(s.total)
        let one = Summary([7.0], includeTotal: true)
        XCTAssertEqual([one.p50, one.p95, one.total], [7, 7, 7])
        let empty = Summary([Double]())
        XCTAssertEqual(empty.count, 0)
        XCTAssertEqual(empty.mean, 0)
    }

    func testStatisticsFromManifest() {
        func output(_ w: Int, _ h: Int, _ bytes: Int64) -> ManifestOutput {
            ManifestOutput(size: "256", path: "256/x.jpg", width: w, height: h, bytes: bytes, format: "jpeg", sha256: "")
        }
        let items = [
            ManifestItem(id: "a", source: "a", status: .ok, bytes: 1000, format: "jpeg", width: 4000, height: 3000,
                         outputs: [output(256, 192, 10)], meta: ["likes": .number(3), "author": .string("x")], ms: 10),
            ManifestItem(id: "b", source: "b", status: .ok, bytes: 500, format: "png", width: 300, height: 400,
                         outputs: [output(192, 256, 20)], meta: ["likes": .number(5)], ms: 30),
            ManifestItem(id: "c", source: "c", status: .unchanged, bytes: 100, format: "jpeg", width: 10, height: 10,
                         outputs: [output(10, 10, 5)], ms: 0),
            ManifestItem(id: "d", source: "d", status: .failed, error: ErrorRecord(code: "decode", message: "bad"), ms: 2),
        ]
        var manifest = Manifest(tool: .init(libvips: "8.14"), startedAt: "", finishedAt: "", settings: OutputSettings(),
                                run: RunCounters(ignored: 2, wallSeconds: 2), items: items)
        manifest.run?.downloads.byStatus["200"] = 2
        let stats = Statistics(manifest: manifest)
        XCTAssertEqual(stats.counts.discovered, 4)
        XCTAssertEqual(stats.counts.ok, 2)
        XCTAssertEqual(stats.counts.unchanged, 1)
        XCTAssertEqual(stats.counts.failed, 1)
        XCTAssertEqual(stats.counts.ignored, 2)
        XCTAssertEqual(stats.dimensions.input.width.count, 3)
        XCTAssertEqual(stats.dimensions.input.megapixels.max, 12)
        XCTAssertEqual(stats.dimensions.shape.landscape, 1)
        XCTAssertEqual(stats.dimensions.shape.portrait, 1)
        XCTAssertEqual(stats.dimensions.shape.square, 1)
        XCTAssertEqual(stats.formats.input["jpeg"], 2)
        XCTAssertEqual(stats.formats.output["jpeg"], 3)
        XCTAssertEqual(stats.bytes.input, 1600)
        XCTAssertEqual(stats.bytes.output, 35)
        XCTAssertEqual(stats.time.perImageMs.count, 2)
        XCTAssertEqual(stats.time.perImageMs.mean, 20)
        XCTAssertEqual(stats.time.imagesPerSecond, 1.5)
        XCTAssertEqual(stats.source["likes"]?.total, 8)
        XCTAssertNil(stats.source["author"])
        XCTAssertEqual(stats.downloads.byStatus["200"], 2)
    }

    func testStatsJSONHasTheContractFields() throws {
        let manifest = Manifest(tool: .init(libvips: "8.14"), startedAt: "", finishedAt: "", settings: OutputSettings(), items: [])
        let json = try JSONSerialization.jsonObject(with: JSONCoding.encode(Statistics(manifest: manifest))) as! [String: Any]
        XCTAssertEqual(json["schema"] as? String, "thumbs.stats/1")
        for key in ["counts", "downloads", "dimensions", "formats", "bytes", "time", "source"] {
            XCTAssertNotNil(json[key], key)
        }
        let counts = json["counts"] as! [String: Any]
        XCTAssertEqual(Set(counts.keys), ["discovered", "ok", "unchanged", "duplicate", "failed", "ignored", "unreadable", "warnings"])
        let downloads = json["downloads"] as! [String: Any]
        XCTAssertEqual(Set(downloads.keys), ["requests", "ok", "failed", "retries", "notModified", "bytes", "pages", "byStatus", "partial", "bytesSaved"])
        let summary = (json["time"] as! [String: Any])["perImageMs"] as! [String: Any]
        XCTAssertEqual(Set(summary.keys), ["count", "min", "max", "mean", "p50", "p95"])
    }
}
