import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// RawSniffer, LibRawFacts, RawPreviewFinder and the RAW entries (RawPreviewDecoder, LibRawDecoder) on DNGs made by
/// `TestDNG`: a 1200×800 photo (16-bit CFA sensor data LibRaw develops)
/// with JPEG previews of known sizes.
final class RawDecoderTests: TemporaryFolderTestCase {
    private func settings(_ box: Int) -> OutputSettings {
        var settings = OutputSettings()
        settings.sizes = [ThumbSize(width: box, height: box)]
        return settings
    }

    private func plan(_ bytes: [UInt8], box: Int, limits: DecodeLimits = DecodeLimits()) throws -> DecodePlan {
        let settings = settings(box)
        return try bytes.withUnsafeBytes { raw in try Thumbnailer.plan(raw, settings: settings, limits: limits) }
    }

    private func decode(_ bytes: [UInt8], box: Int) throws -> DecodedImage {
        let settings = settings(box)
        return try bytes.withUnsafeBytes { raw in try Thumbnailer.decode(raw, settings: settings, limits: DecodeLimits()) }
    }

    private func dng(orientation: Int = 1, previews: [(Int, Int)]) -> TestDNG.Layout {
        TestDNG.make(width: 1200, height: 800, orientation: orientation,
                     previews: previews.map { TestDNG.jpegPreview(root, name: "shot", width: $0.0, height: $0.1) })
    }

    func testDNGIsRecognisedByContentAndAPlainTIFFIsNot() throws {
        let layout = dng(previews: [(1200, 800)])
        XCTAssertEqual(layout.bytes.withUnsafeBytes { RawSniffer.format(in: $0) }, "dng")
        TestImages.write(root + "/plain.tif", width: 64, height: 48)
        let tiff = [UInt8](try Data(contentsOf: URL(fileURLWithPath: root + "/plain.tif")))
        XCTAssertNil(tiff.withUnsafeBytes { RawSniffer.format(in: $0) })
        XCTAssertEqual(ImageSniffer.format(of: tiff), "tiff")
        XCTAssertTrue(ImageSniffer.isNamedLikeImage("IMG_0001.CR3"))
        XCTAssertTrue(ImageSniffer.isNamedLikeImage("a.nrw"))
    }

    /// The bytes a plan reads by ranges (a preview's), -1 for any other reading.
    private static func bytesRead(_ plan: DecodePlan) -> Int {
        if case .ranges(let ranges) = plan.reads { return ranges.map(\.count).reduce(0, +) }
        return -1
    }

    func testPreviewPathKeepsTheRAWsOwnSizeAndChoosesTheCheapestPreviewThatCovers() throws {
        let layout = dng(previews: [(1200, 800), (600, 400)])
        let small = try plan(layout.bytes, box: 256)
        XCTAssertEqual(small.path, .rawPreview)
        XCTAssertEqual(small.info, SourceImageInfo(format: "dng", width: 1200, height: 800, orientation: 1))
        // 1/2 of the 600-wide preview covers 256 (the 1200-wide one would be at 1/4).
        XCTAssertEqual(small.shrink, 2, "the smaller preview covers 256")
        let large = try plan(layout.bytes, box: 1000)
        XCTAssertEqual(large.shrink, 1)
        XCTAssertLessThan(Self.bytesRead(small), Self.bytesRead(large), "only the full-size preview covers 1000")
        let decoded = try decode(layout.bytes, box: 256)
        XCTAssertEqual(decoded.decoder, .rawPreview)
        XCTAssertEqual(decoded.info.format, "dng")
        let full = try plan(dng(previews: [(1200, 800)]).bytes, box: 128)
        XCTAssertEqual(full.shrink, 8, "a full-size preview decodes at 1/8")
        XCTAssertGreaterThan(full.peakBytes, 0)
    }

    func testRotatedRAWHasItsOrientationAndDisplayedSize() throws {
        let layout = dng(orientation: 6, previews: [(1200, 800)])
        let plan = try plan(layout.bytes, box: 256)
        XCTAssertEqual(plan.info, SourceImageInfo(format: "dng", width: 800, height: 1200, orientation: 6))
        XCTAssertEqual(plan.path, .rawPreview)
    }

    func testLetterboxedPreviewIsRefused() throws {
        let plan = try plan(dng(previews: [(1200, 600)]).bytes, box: 256)
        XCTAssertEqual(plan.path, .libraw)
        XCTAssertEqual(plan.shrink, 2)
    }

    func testBoxLargerThanEveryPreviewIsDevelopedByLibRaw() throws {
        let layout = dng(previews: [(300, 200)])
        let plan = try plan(layout.bytes, box: 1024)
        XCTAssertEqual(plan.path, .libraw)
        XCTAssertEqual(plan.shrink, 1)
        let decoded = try decode(layout.bytes, box: 1024)
        XCTAssertEqual(decoded.decoder, .libraw)
        XCTAssertEqual(decoded.info, SourceImageInfo(format: "dng", width: 1200, height: 800, orientation: 1))
        guard case .pixels(let pixels) = decoded.stage else { return XCTFail("not pixels") }
        XCTAssertEqual([pixels.width, pixels.height], [1200, 800])
        let half = try decode(layout.bytes, box: 500)
        guard case .pixels(let halfPixels) = half.stage else { return XCTFail("not pixels") }
        XCTAssertEqual([halfPixels.width, halfPixels.height], [600, 400], "half size where the box allows")
    }

    func testPhotoOverMaxPixelsFailsBeforeAnyDecode() {
        XCTAssertThrowsError(try plan(dng(previews: [(1200, 800)]).bytes, box: 256, limits: DecodeLimits(maxPixels: 500_000))) { error in
            XCTAssertEqual((error as? ItemError)?.code, .tooLarge)
        }
    }

    func testPreviewOutsideTheFileIsNotUsed() throws {
        var layout = dng(previews: [(1200, 800)])
        let field = layout.previewOffsetFields[0]
        func patch(_ at: Int, _ value: Int) {
            for i in 0..<4 { layout.bytes[at + i] = UInt8(truncatingIfNeeded: value >> (8 * i)) }
        }
        patch(field.offset, layout.bytes.count - 10)
        XCTAssertEqual(try plan(layout.bytes, box: 256).path, .libraw, "offset near the end, length past it")
        patch(field.offset, 0x7FFF_FFF0)
        XCTAssertEqual(try plan(layout.bytes, box: 256).path, .libraw, "offset past the end")
        patch(field.length, 0xFFFF_FFFF)
        XCTAssertEqual(try plan(layout.bytes, box: 256).path, .libraw, "length past the end")
    }
}
