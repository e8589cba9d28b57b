import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// DecodePathTests' rules seen through whole runs: several sizes from one
/// decode, and the decoders counted in stats.json.
final class DecodePathRunTests: TemporaryFolderTestCase {
    /// Several sizes: one decode at the largest box's scale; a size at most
    /// half of a larger one is made from that rendition, and looks the same
    /// as one made from the decode.
    func testSeveralSizesFromOneDecodeMatchSingleSizeRuns() async throws {
        let source = root + "/in"
        TestImages.write(source + "/photo.jpg", width: 2400, height: 1800, options: "[Q=90]")
        TestImages.write(source + "/rotated.jpg", width: 1800, height: 2400, orientation: 6, options: "[Q=90]")
        let both = try await runThumbs([source], out: root + "/both") {
            $0.output.sizes = [ThumbSize(width: 256, height: 256), ThumbSize(width: 1024, height: 1024)]
        }
        XCTAssertEqual(both.status, .success)
        _ = try await runThumbs([source], out: root + "/small") { $0.output.sizes = [ThumbSize(width: 256, height: 256)] }
        for name in ["photo", "rotated"] {
            let pair = try XCTUnwrap(TestImages.header(root + "/both/256/\(name).jpg"))
            let single = try XCTUnwrap(TestImages.header(root + "/small/256/\(name).jpg"))
            XCTAssertEqual([pair.width, pair.height], [single.width, single.height], name)
            for band in 0..<3 {
                for (x, y) in [(0.1, 0.1), (0.5, 0.5), (0.8, 0.2)] {
                    let a = TestImages.mean(root + "/both/256/\(name).jpg", band: band, x: x, y: y)
                    let b = TestImages.mean(root + "/small/256/\(name).jpg", band: band, x: x, y: y)
                    XCTAssertEqual(a, b, accuracy: 3, "\(name) band \(band) at \(x),\(y)")
                }
            }
        }
        // Stored 1800×2400, shown turned a quarter: 2400×1800.
        XCTAssertEqual(TestImages.header(root + "/both/1024/rotated.jpg").map { [$0.width, $0.height] }, [1024, 768])
        XCTAssertEqual(TestImages.header(root + "/both/256/rotated.jpg").map { [$0.width, $0.height] }, [256, 192])
        // The order of the outputs follows --size, whatever order they were made in.
        let manifest = try readManifest(root + "/both")
        XCTAssertEqual(manifest.items.first?.outputs.map(\.size), ["256", "1024"])
    }

    func testRunsCountItemsPerDecodePath() async throws {
        let source = root + "/in"
        TestImages.write(source + "/a.jpg", width: 2400, height: 1800, options: "[Q=90]")
        TestImages.write(source + "/b.png", width: 300, height: 200)
        TestImages.write(source + "/c.jpg", width: 1200, height: 900, options: "[Q=90]")
        TestImages.write(source + "/d.jpg", width: 2400, height: 1800, options: "[Q=90,interlace]")
        TestImages.write(source + "/e.jpg", width: 1200, height: 900, options: "[Q=90,interlace]")
        let outcome = try await runThumbs([source], out: root + "/out") { $0.output.sizes = [ThumbSize(width: 256, height: 256)] }
        let stats = try XCTUnwrap(outcome.statistics)
        // a.jpg at 1/8 and c.jpg at 1/4: a baseline file's 1/4 is jpeg-dc's
        // too (its lowest AC coefficients kept for a 2×2 inverse DCT).
        XCTAssertEqual(stats.decoders["jpeg-dc"], 2, "a.jpg at 1/8, c.jpg at 1/4")
        XCTAssertEqual(stats.decoders["libjpeg"], 0)
        XCTAssertEqual(stats.decoders["jpeg-progressive"], 1, "e.jpg (progressive) at 1/4")
        XCTAssertEqual(stats.decoders["libvips"], 1)
        XCTAssertEqual(stats.decoders["jpeg-dc-progressive"], 1)
        let written = try JSONDecoder().decode(Statistics.self, from: Data(contentsOf: URL(fileURLWithPath: root + "/out/stats.json")))
        XCTAssertEqual(written.decoders, stats.decoders)
        // A re-run decodes nothing.
        let again = try await runThumbs([source], out: root + "/out") { $0.output.sizes = [ThumbSize(width: 256, height: 256)] }
        XCTAssertEqual(again.statistics?.decoders.values.values.reduce(0, +), 0)
        XCTAssertTrue(StatisticsTable(stats).render().contains("jpeg-dc"))
    }
}
