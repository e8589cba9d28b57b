import Foundation
import XCTest
@testable import ThumbsKit

/// The one decision of how an image is decoded, the rounding rule that
/// keeps the decode at least as large as the box, and the decoder counts
/// a run reports.
final class DecodePathTests: XCTestCase {
    var root = ""

    override func setUp() {
        TestImages.start()
        root = TestImages.temporaryDirectory(name)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: root)
    }

    private func facts(progressive: Bool = false, direct: Bool = true, width: Int = 4000, height: Int = 3000) -> JPEGFacts {
        JPEGFacts(width: width, height: height, components: 3, progressive: progressive, directlyDecodable: direct,
                  coefficientBytes: progressive ? width * height * 3 * 2 : 0)
    }

    func testThePredicateListsItsReasons() {
        let budget = DirectJPEG.memoryBudget
        XCTAssertEqual(DecodePath.choose(jpeg: nil, shrink: 8, keepMetadata: false, pixelBudget: budget), .libvips, "not a JPEG")
        XCTAssertEqual(DecodePath.choose(jpeg: facts(), shrink: 8, keepMetadata: true, pixelBudget: budget), .libvips, "metadata kept")
        XCTAssertEqual(DecodePath.choose(jpeg: facts(direct: false), shrink: 8, keepMetadata: false, pixelBudget: budget), .libvips, "CMYK")
        XCTAssertEqual(DecodePath.choose(jpeg: facts(), shrink: 8, keepMetadata: false, pixelBudget: budget), .jpegDC)
        XCTAssertEqual(DecodePath.choose(jpeg: facts(progressive: true), shrink: 8, keepMetadata: false, pixelBudget: budget), .jpegDCProgressive)
        XCTAssertEqual(DecodePath.choose(jpeg: facts(), shrink: 2, keepMetadata: false, pixelBudget: budget), .libjpeg)
        XCTAssertEqual(DecodePath.choose(jpeg: facts(), shrink: 1, keepMetadata: false, pixelBudget: budget), .libvips,
                       "36 MB of pixels stream through libvips in strips")
        XCTAssertEqual(DecodePath.choose(jpeg: facts(progressive: true), shrink: 1, keepMetadata: false, pixelBudget: budget), .libjpeg,
                       "a progressive file needs its coefficients in memory on either library")
    }

    func testPeakMemoryCountsProgressiveCoefficients() {
        let baseline = facts(), progressive = facts(progressive: true)
        XCTAssertEqual(baseline.peakBytes(path: .libjpeg, shrink: 2), 2000 * 1500 * 3)
        XCTAssertEqual(progressive.peakBytes(path: .libjpeg, shrink: 2), 2000 * 1500 * 3 + 4000 * 3000 * 6)
        XCTAssertLessThan(progressive.peakBytes(path: .jpegDCProgressive, shrink: 8), 2 << 20)
    }

    /// The decoders floor (libvips drops the last, partial pixel of a shrunk
    /// JPEG); so must the choice of the shrink, or 2047 px into 256 would
    /// decode 255 px at 1/8 and be scaled up.
    func testShrinkNeverDecodesBelowTheBox() {
        XCTAssertEqual(ThumbnailGeometry.jpegShrink(sourceWidth: 2047, sourceHeight: 1535, neededWidth: 256, neededHeight: 192), 4)
        XCTAssertEqual(ThumbnailGeometry.jpegShrink(sourceWidth: 2048, sourceHeight: 1536, neededWidth: 256, neededHeight: 192), 8)
        XCTAssertEqual(ThumbnailGeometry.jpegShrink(sourceWidth: 1023, sourceHeight: 767, neededWidth: 256, neededHeight: 192), 2)
        XCTAssertEqual(ThumbnailGeometry.jpegShrink(sourceWidth: 1024, sourceHeight: 768, neededWidth: 256, neededHeight: 192), 4)
        for width in [2041, 2046, 2047, 2048, 2055, 4095] {
            let height = width * 3 / 4
            let plan = ThumbnailGeometry(sourceWidth: width, sourceHeight: height, box: ThumbSize(width: 256, height: 256), fit: .inside, enlarge: false)
            let shrink = ThumbnailGeometry.jpegShrink(sourceWidth: width, sourceHeight: height, neededWidth: plan.resizedWidth, neededHeight: plan.resizedHeight)
            let decoded = ThumbnailGeometry.jpegDecodedSize(width: width, height: height, shrink: shrink)
            XCTAssertGreaterThanOrEqual(decoded.width, plan.resizedWidth, "\(width)")
            XCTAssertGreaterThanOrEqual(decoded.height, plan.resizedHeight, "\(width)")
        }
    }

    func testADecodeJustUnderAMultipleOfEightIsNotScaledUp() throws {
        let path = TestImages.write(root + "/odd.jpg", width: 2047, height: 1535, options: "[Q=90]")
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let settings = OutputSettings(sizes: [ThumbSize(width: 256, height: 256)])
        let decoded = try data.withUnsafeBytes { try Thumbnailer.decode($0, settings: settings, limits: DecodeLimits()) }
        guard case .pixels(let pixels) = decoded.stage else { return XCTFail("a plain JPEG takes a direct path") }
        XCTAssertGreaterThanOrEqual(pixels.width, 256)
        XCTAssertEqual(decoded.decoder, .libjpeg)
        let thumbnails = try Thumbnailer.finish(decoded, settings: settings).thumbnails
        XCTAssertEqual(thumbnails.map { [$0.width, $0.height] }, [[256, 192]])
    }

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
        XCTAssertEqual(stats.decoders["jpeg-dc"], 1)
        XCTAssertEqual(stats.decoders["libjpeg"], 2, "c.jpg, and e.jpg (progressive) at 1/4")
        XCTAssertEqual(stats.decoders["libvips"], 1)
        XCTAssertEqual(stats.decoders["jpeg-dc-progressive"], 1)
        let written = try JSONDecoder().decode(Statistics.self, from: Data(contentsOf: URL(fileURLWithPath: root + "/out/stats.json")))
        XCTAssertEqual(written.decoders, stats.decoders)
        // A re-run decodes nothing.
        let again = try await runThumbs([source], out: root + "/out") { $0.output.sizes = [ThumbSize(width: 256, height: 256)] }
        XCTAssertEqual(again.statistics?.decoders.values.values.reduce(0, +), 0)
        XCTAssertTrue(StatisticsTable(stats).render().contains("jpeg-dc"))
    }

    func testTheMemoryBudgetAdmitsInOrderAndNeverDeadlocks() async {
        let budget = MemoryBudget(capacity: 64 << 20)
        let a = await budget.reserve(40 << 20)
        let b = await budget.reserve(1 << 20)  // small: not counted
        XCTAssertEqual(b, 0)
        let waiting = Task { await budget.reserve(40 << 20) }
        try? await Task.sleep(nanoseconds: 50_000_000)
        await budget.release(a)
        let c = await waiting.value
        XCTAssertEqual(c, 40 << 20)
        await budget.release(c)
        // Larger than the whole budget: runs alone.
        let huge = await budget.reserve(500 << 20)
        XCTAssertEqual(huge, 500 << 20)
        await budget.release(huge)
    }
}
