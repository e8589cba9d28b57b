import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Every field PRODUCT.md names for `manifest.json` and `stats.json` is one
/// thumbs writes: an item holding every field the contract describes goes
/// through the manifest reader and `ManifestWriter`, the statistics are
/// computed from it, and every name the contract's two sketches use must be
/// a key of what comes out. A field the code does not know is dropped on
/// the way and named here.
final class ProductFieldTests: XCTestCase {
    /// The names PRODUCT.md's sketch of a file uses as keys: a quoted word
    /// followed by `:` (and in `stats.json`, the bare lists of keys such as
    /// `"counts": {"discovered", "ok", …}`), between `start` and `end`.
    static func contractKeys(_ product: String, from start: String, to end: String, bareLists: Bool) throws -> Set<String> {
        let from = try XCTUnwrap(product.range(of: start), "PRODUCT.md has no \(start)")
        let to = try XCTUnwrap(product.range(of: end, range: from.upperBound..<product.endIndex), "PRODUCT.md has no \(end)")
        var text = String(product[from.upperBound..<to.lowerBound])
        // Decoder names are values of the run ("keys may be added"), not fields.
        if let decoders = text.range(of: #""decoders": \{[^}]*\}"#, options: .regularExpression) {
            text.removeSubrange(decoders)
        }
        let pattern = try NSRegularExpression(pattern: bareLists ? #""([A-Za-z][A-Za-z0-9]*)"\s*[:,}]"# : #""([A-Za-z][A-Za-z0-9]*)"\s*:"#)
        var keys: Set<String> = []
        for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            if let range = Range(match.range(at: 1), in: text) { keys.insert(String(text[range])) }
        }
        return keys
    }

    /// Every key of a JSON value, at any depth.
    static func keys(of value: Any) -> Set<String> {
        if let object = value as? [String: Any] {
            return object.reduce(into: Set(object.keys)) { $0.formUnion(keys(of: $1.value)) }
        }
        if let array = value as? [Any] { return array.reduce(into: []) { $0.formUnion(keys(of: $1)) } }
        return []
    }

    /// A manifest with one item of every kind, each field as PRODUCT.md
    /// describes it, read as thumbs reads a manifest (unknown keys dropped).
    static func fullManifest() throws -> Manifest {
        let base = Manifest(tool: .init(libvips: "8.14.1"), startedAt: "2026-11-25T01:00:00.000Z",
                            finishedAt: "2026-11-25T01:00:05.000Z", settings: OutputSettings(),
                            run: RunCounters(ignored: 1, wallSeconds: 2.5), items: [])
        var object = try XCTUnwrap(JSONSerialization.jsonObject(with: ManifestWriter.encode(base)) as? [String: Any])
        let output: [String: Any] = ["size": "256", "path": "256/a/b.jpg", "width": 256, "height": 192, "bytes": 9000,
                                     "format": "jpeg", "sha256": String(repeating: "ab", count: 32)]
        let listed: [String: Any] = [
            "id": "1084", "source": "https://picsum.photos/id/1084/4000/3000", "status": "ok",
            "bytes": 1234, "format": "jpeg", "width": 4000, "height": 3000, "orientation": 1, "outputs": [output],
            "placeholder": ["thumbhash": "1QcSHQRnh493V4dIh4eXh1h4kJUI", "blurhash": "LEHV6nWB2yk8pyo0adR*.7kCMdnj"],
            "color": "#808080", "phash": "0123456789abcdef", "similarTo": ["id": "a/b.jpg", "distance": 3],
            "video": ["durationSeconds": 12.4, "codec": "h264", "fps": 30, "frameAtSeconds": 1.0, "hdr": "hlg"],
            "download": ["url": "https://picsum.photos/id/1084/4000/3000", "status": 200, "bytes": 1234, "size": 5678,
                         "partial": true, "attempts": 1, "ms": 35.2, "etag": "\"x\"", "lastModified": "Tue, 24 Nov 2026 10:00:00 GMT"],
            "meta": ["author": "A. Person", "downloads": 10, "likes": 3], "ms": 31.2,
            "warnings": ["the embedded ICC colour profile is unusable (lcms2 cannot read it): its colours were taken as sRGB"],
        ]
        let file: [String: Any] = [
            "id": "a/b.jpg", "source": "photos/a/b.jpg", "status": "ok", "sha256": String(repeating: "cd", count: 32),
            "modified": 1795559246.344, "bytes": 2000, "format": "jpeg", "width": 640, "height": 480, "orientation": 6,
            "outputs": [output], "ms": 12.5,
        ]
        let copy: [String: Any] = ["id": "a/c.jpg", "source": "photos/a/c.jpg", "status": "duplicate", "duplicateOf": "a/b.jpg",
                                   "sha256": String(repeating: "cd", count: 32), "outputs": [output], "ms": 0]
        let failed: [String: Any] = ["id": "bad.jpg", "source": "photos/bad.jpg", "status": "failed",
                                     "error": ["code": "decode", "message": "the JPEG data is truncated"], "outputs": [], "ms": 1]
        let preview: [String: Any] = [
            "id": "a/p.jpg", "source": "photos/a/p.jpg", "status": "ok", "read": ["bytes": 81234, "partial": true],
            "modified": 1795559246.344, "bytes": 3_000_000, "format": "jpeg", "width": 4000, "height": 3000, "orientation": 1,
            "outputs": [output], "ms": 3.5,
        ]
        object["items"] = [listed, file, copy, preview, failed]
        object["interrupted"] = true
        object["gone"] = ["old.jpg"]
        object["shard"] = ["index": 0, "count": 1]
        let data = try JSONSerialization.data(withJSONObject: object)
        return try JSONDecoder().decode(Manifest.self, from: data)
    }

    func testEveryManifestFieldOfTheContractIsWritten() throws {
        let product = try ProductOptionTests.productText()
        let named = try Self.contractKeys(product, from: "`OUT/manifest.json`:", to: "Fields marked by a role", bareLists: false)
        XCTAssertGreaterThan(named.count, 50, "the manifest sketch was not read: \(named.sorted())")
        let manifest = try Self.fullManifest()
        let written = Self.keys(of: try JSONSerialization.jsonObject(with: ManifestWriter.encode(manifest)))
        let awaited = Set(Self.awaitedManifestFields.keys)
        XCTAssertEqual(named.subtracting(written).subtracting(awaited).sorted(), [],
                       "named by PRODUCT.md's manifest.json but not written by thumbs")
        // Once a field is written, its entry in the list of awaited ones goes.
        XCTAssertEqual(awaited.intersection(written).sorted(), [],
                       "now written by thumbs: remove from ProductFieldTests.awaitedManifestFields")
    }

    /// Manifest fields PRODUCT.md names that open issues are still building.
    static let awaitedManifestFields: [String: String] = [:]

    /// stats.json fields PRODUCT.md names that open issues are still building.
    static let awaitedStatisticsFields: [String: String] = [:]

    func testEveryStatisticsFieldOfTheContractIsWritten() throws {
        let product = try ProductOptionTests.productText()
        let named = try Self.contractKeys(product, from: "`OUT/stats.json`:", to: "`OUT/report.html`", bareLists: true)
        XCTAssertGreaterThan(named.count, 40, "the stats sketch was not read: \(named.sorted())")
        let statistics = Statistics(manifest: try Self.fullManifest())
        let written = Self.keys(of: try JSONSerialization.jsonObject(with: JSONCoding.encode(statistics)))
        let awaited = Set(Self.awaitedStatisticsFields.keys)
        XCTAssertEqual(named.subtracting(written).subtracting(awaited).sorted(), [],
                       "named by PRODUCT.md's stats.json but not written by thumbs")
        XCTAssertEqual(awaited.intersection(written).sorted(), [],
                       "now written by thumbs: remove from ProductFieldTests.awaitedStatisticsFields")
    }

    func testTheSketchParserReadsWhatItShould() throws {
        let product = """
            `OUT/stats.json`:

                {
                  "schema": "thumbs.stats/1",
                  "counts": {"discovered", "ok",
                             "unreadable"},
                  "decoders": {"jpeg-dc": n, "libvips": n},   items per decode path
                  "time": {"wallSeconds": x}
                }
            `OUT/report.html`: one page
            """
        XCTAssertEqual(try Self.contractKeys(product, from: "`OUT/stats.json`:", to: "`OUT/report.html`", bareLists: true),
                       ["schema", "counts", "discovered", "ok", "unreadable", "time", "wallSeconds"])
        XCTAssertEqual(try Self.contractKeys(#"A {"status": "ok" | "failed", "error": {"code": "x"}} B"#, from: "A", to: "B", bareLists: false),
                       ["status", "error", "code"])
    }
}
