import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// The one decision of how an image is decoded, the rounding rule that
/// keeps the decode at least as large as the box, and the decoder counts
/// a run reports.
final class DecodePathTests: TemporaryFolderTestCase {
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
                       "a progressive file whose frame the banded decode refuses stays on libjpeg")
    }

    /// Progressive files at 1/1, 1/2 and 1/4 take the compact decode when
    /// its frame rules take them, and count what it says it holds.
    func testProgressiveAtFullHalfAndQuarterTakesTheCompactDecode() throws {
        let budget = DirectJPEG.memoryBudget
        let file = TestImages.write(root + "/p.jpg", width: 1200, height: 900, options: "[Q=90,interlace]")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        let facts = try XCTUnwrap(bytes.withUnsafeBytes { DirectJPEG.probe($0) }).facts
        XCTAssertGreaterThan(facts.compactBytesHalf, 0)
        XCTAssertLessThan(facts.compactBytesHalf, facts.coefficientBytes / 2, "a third of libjpeg's coefficients, or less")
        XCTAssertLessThan(facts.compactBytesQuarter, facts.compactBytesHalf)
        // At 1/1 it decodes a band at a time: about the pixels alone.
        XCTAssertGreaterThan(facts.compactBytesFull, facts.decodedBytes(shrink: 1))
        XCTAssertLessThan(facts.compactBytesFull, facts.decodedBytes(shrink: 1) + facts.coefficientBytes / 2)
        for shrink in [1, 2, 4] {
            XCTAssertEqual(DecodePath.choose(jpeg: facts, shrink: shrink, keepMetadata: false, pixelBudget: budget), .jpegProgressive)
            XCTAssertEqual(facts.peakBytes(path: .jpegProgressive, shrink: shrink), facts.compactBytes(shrink: shrink))
            let decoded = try XCTUnwrap(bytes.withUnsafeBytes {
                DirectJPEG.decode($0, shrink: shrink, memoryBudget: facts.peakBytes(path: .jpegProgressive, shrink: shrink))
            })
            XCTAssertEqual(decoded.decoder, .jpegProgressive, "its own count is enough for it")
        }
        // Luma sampled below chroma: the compact decode refuses the frame.
        let refused = try Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Fixtures/jpeg/cjpeg-prog-luma-below-chroma.jpg").standardizedFileURL)
        let refusedFacts = try XCTUnwrap(refused.withUnsafeBytes { DirectJPEG.probe($0) }).facts
        XCTAssertEqual(refusedFacts.compactBytesHalf, 0)
        XCTAssertEqual(DecodePath.choose(jpeg: refusedFacts, shrink: 2, keepMetadata: false, pixelBudget: budget), .libjpeg)
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

    /// A progressive JPEG on jpeg_prog.c streams its rows into the largest
    /// thumbnail's resize (in stored orientation), and reserves what that
    /// holds rather than the full-size image.
    func testProgressiveDecodesStreamIntoTheLargestSize() throws {
        for orientation in [1, 6] {
            let path = TestImages.write(root + "/s\(orientation).jpg", width: 1200, height: 900, orientation: orientation,
                                        options: "[Q=90,interlace]")
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let settings = OutputSettings(sizes: [ThumbSize(width: 400, height: 400), ThumbSize(width: 700, height: 700)])
            let plan = try data.withUnsafeBytes { try Thumbnailer.plan($0, settings: settings, limits: DecodeLimits()) }
            XCTAssertEqual(plan.path, .jpegProgressive)
            XCTAssertEqual(plan.shrink, 1)
            let target = try XCTUnwrap(plan.target)
            // Stored 1200x900 either way: upright 900x1200 fits 525x700.
            XCTAssertEqual([target.width, target.height], [700, 525])
            let facts = try XCTUnwrap(data.withUnsafeBytes { DirectJPEG.probe($0) }).facts
            XCTAssertLessThan(plan.peakBytes, facts.peakBytes(path: .jpegProgressive, shrink: 1), "less than decoding the full-size image")
            let decoded = try data.withUnsafeBytes { try Thumbnailer.decode($0, plan: plan, settings: settings, limits: DecodeLimits()) }
            XCTAssertEqual(decoded.decoder, .jpegProgressive)
            let sizes = try Thumbnailer.finish(decoded, settings: settings).thumbnails.map { [$0.width, $0.height] }
            XCTAssertEqual(sizes, orientation == 6 ? [[300, 400], [525, 700]] : [[400, 300], [700, 525]])
        }
        // A size of nearly the decode's: the resize would hold more than it saves.
        let near = TestImages.write(root + "/near.jpg", width: 1200, height: 900, options: "[Q=90,interlace]")
        let nearData = try Data(contentsOf: URL(fileURLWithPath: near))
        let nearPlan = try nearData.withUnsafeBytes {
            try Thumbnailer.plan($0, settings: OutputSettings(sizes: [ThumbSize(width: 1150, height: 1150)]), limits: DecodeLimits())
        }
        XCTAssertEqual(nearPlan.shrink, 1)
        XCTAssertNil(nearPlan.target)
        // No smaller size to stream to: no target.
        let path = TestImages.write(root + "/small.jpg", width: 300, height: 200, options: "[Q=90,interlace]")
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let settings = OutputSettings(sizes: [ThumbSize(width: 400, height: 400)])
        let plan = try data.withUnsafeBytes { try Thumbnailer.plan($0, settings: settings, limits: DecodeLimits()) }
        XCTAssertNil(plan.target)
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
