import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

final class ManifestWriterTests: XCTestCase {
    func testHandWrittenJSONRoundTripsThroughJSONDecoder() throws {
        let hostile = "we\"ird\\ \n\t\u{1}\u{7F} / ünï 写真 <script>"
        var item = ManifestItem(id: hostile, source: "/a/" + hostile, status: .ok, sha256: "ab", bytes: 12, format: "jpeg",
                                width: 4000, height: 3000, orientation: 6,
                                outputs: [ManifestOutput(size: "256", path: "256/x.jpg", width: 256, height: 192, bytes: 9000, format: "jpeg", sha256: "cd")],
                                duplicateOf: "other", download: DownloadRecord(url: "http://h/x?a=1&b=2", status: 200, bytes: 12, attempts: 2, ms: 35.25, etag: "\"e\"", lastModified: nil),
                                meta: ["author": .string("A \"B\""), "likes": .number(3), "ratio": .number(1.5), "tags": .array([.string("x"), .null, .bool(true)]), "user": .object(["name": .string("n")])],
                                error: nil, ms: 31.2, modified: 1_795_329_933.902974)
        let failed = ManifestItem(id: "f", source: "f", status: .failed, error: ErrorRecord(code: "decode", message: "bad \"thing\"\n"), ms: 0)
        item.download?.status = nil
        let manifest = Manifest(tool: .init(libvips: "8.14.1"), startedAt: "s", finishedAt: "f", settings: OutputSettings(),
                                shard: Shard(index: 1, count: 4), interrupted: true, gone: ["g\"1"],
                                run: RunCounters(ignored: 3, wallSeconds: 1.5), items: [item, failed])
        let data = ManifestWriter.encode(manifest)
        let decoded = try JSONDecoder().decode(Manifest.self, from: data)
        XCTAssertEqual(decoded, manifest)
        let text = String(decoding: data, as: UTF8.self)
        XCTAssertTrue(text.contains("\n    {\"id\": "), "one item per line")
        XCTAssertEqual(text.components(separatedBy: "\n").filter { $0.hasPrefix("    {\"id\"") }.count, 2)
        XCTAssertNoThrow(try JSONSerialization.jsonObject(with: data))
        XCTAssertEqual(ManifestLineReader.decode(data), manifest, "read back line by line")
        XCTAssertNil(ManifestLineReader.decode(try JSONCoding.encode(manifest)), "other layouts fall back to JSONDecoder")
        let empty = Manifest(tool: .init(libvips: "x"), startedAt: "", finishedAt: "", settings: OutputSettings(), items: [])
        XCTAssertEqual(try JSONDecoder().decode(Manifest.self, from: ManifestWriter.encode(empty)), empty)
        XCTAssertEqual(ManifestLineReader.decode(ManifestWriter.encode(empty)), empty)
    }
}
