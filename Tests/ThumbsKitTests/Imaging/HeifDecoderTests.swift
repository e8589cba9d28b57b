import CThumbsTestShim
import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// libheif reads a HEIC through thumbs' descriptor (`HeifInput`): a motion
/// photo's appended video is never read, as `SourceFile` counts the bytes
/// libheif took; and the primary image comes out of the decode already at
/// the largest thumbnail's size, not at 12 MP.
final class HeifDecoderTests: TemporaryFolderTestCase {
    private static let phone = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/heif/heic-orientation-6.heic")

    private func settings(_ boxes: Int...) -> OutputSettings {
        var settings = OutputSettings()
        settings.sizes = boxes.map { ThumbSize(width: $0, height: $0) }
        return settings
    }

    /// The phone fixture with a top-level box of `appended` bytes after its
    /// own boxes, as a Samsung motion photo carries its video (`mpvd`).
    private func motionPhoto(appended: Int) throws -> (path: String, heicBytes: Int) {
        let heic = try Data(contentsOf: Self.phone)
        var motion = heic
        motion.append(contentsOf: withUnsafeBytes(of: UInt32(8 + appended).bigEndian, Array.init) + Array("mpvd".utf8))
        motion.append(Data(repeating: 0x5A, count: appended))
        let path = root + "/motion.heic"
        try motion.write(to: URL(fileURLWithPath: path))
        return (path, heic.count)
    }

    private func decode(_ file: SourceFile, _ settings: OutputSettings) async throws -> DecodedImage {
        let budget = MemoryBudget(capacity: 1 << 30)
        let (image, reserved) = try await DecoderList.standard.decode(
            file, format: "heif", settings: settings, limits: DecodeLimits(), memory: budget, pool: BlockingPool(threads: 1)
        )
        await budget.release(reserved)
        return image
    }

    /// The primary image of a 1 MB phone HEIC followed by 24 MB: libheif
    /// reads the HEIC's boxes and items only, never the appended box's
    /// content. libheif 1.15 reads every item's coded data once as it opens
    /// a file (one item at a time, each let go), and the tiles again as it
    /// decodes them: at most twice the HEIC's bytes go through one context,
    /// a tenth of the file.
    func testAMotionPhotoHEICsPrimaryDecodeReadsOnlyTheHEICsBytes() async throws {
        let (path, heicBytes) = try motionPhoto(appended: 24 << 20)
        let file = try SourceFile(path: path)
        let image = try await decode(file, settings(1024))
        XCTAssertEqual(image.decoder, .libheif)
        XCTAssertEqual([image.info.width, image.info.height], [3024, 4032])
        XCTAssertGreaterThan(file.peakBytesHeld, heicBytes, "libheif read the tiles' coded data through the descriptor")
        XCTAssertLessThanOrEqual(file.peakBytesHeld, 2 * heicBytes, "only the HEIC's bytes, never the appended 24 MB")
        XCTAssertLessThan(file.peakBytesHeld, file.size / 10)
    }

    /// Its embedded thumbnail: the open's reading of the items, and the
    /// thumbnail's few kilobytes again.
    func testAMotionPhotoHEICsThumbnailDecodeReadsOnlyTheHEICsBytes() async throws {
        let (path, heicBytes) = try motionPhoto(appended: 24 << 20)
        let file = try SourceFile(path: path)
        let image = try await decode(file, settings(256))
        XCTAssertEqual(image.decoder, .heifThumbnail)
        XCTAssertGreaterThan(file.peakBytesHeld, 0)
        XCTAssertLessThanOrEqual(file.peakBytesHeld, heicBytes + heicBytes / 10, "the items once and the thumbnail, not the appended 24 MB")
    }

    /// For a 1024 box the 3024×4032 photo is handed over at 768×1024, the
    /// plan's target, made from libheif's planes: never at full size.
    func testThePrimaryImageIsHandedOverAtTheLargestThumbnailsSize() async throws {
        let file = try SourceFile(path: Self.phone.path)
        let planned = try DecoderList.plan(.file(file), format: "heif", settings: settings(1024, 256), limits: DecodeLimits())
        XCTAssertEqual(planned.path, .libheif)
        XCTAssertEqual(planned.reads, .streamed)
        XCTAssertEqual(planned.target, PixelSize(width: 768, height: 1024))
        let image = try await decode(file, settings(1024, 256))
        guard case .pixels(let pixels) = image.stage else { return XCTFail("no pixels handed over") }
        XCTAssertEqual([pixels.width, pixels.height], [768, 1024])
    }

    /// The phone fixture's plan at 1024 px reserves what libheif 1.15 holds
    /// (its full-size planar RGB, 3 bytes a pixel) and the resized planes:
    /// more than one job's share, so that at `--jobs 2` two such decodes
    /// never overlap (they took the run past 200 MB), yet within the whole
    /// budget, so that one runs beside the other items' small decodes.
    func testThePrimaryImagesPlanReservesLibheifsFullSizePlanes() throws {
        let file = try SourceFile(path: Self.phone.path)
        let planned = try DecoderList.plan(.file(file), format: "heif", settings: settings(1024), limits: DecodeLimits())
        XCTAssertEqual(planned.path, .libheif)
        XCTAssertEqual(planned.peakBytes, 4032 * 3024 * 3 + 768 * 1024 * 3)
        let budget = 2 * MemoryBudget.perJob // MemoryBudget(jobs: 2)
        XCTAssertGreaterThan(2 * planned.peakBytes, budget, "two 12 MP decodes do not fit at --jobs 2")
        XCTAssertLessThanOrEqual(planned.peakBytes, budget)
    }

    /// A HEIC that is one picture (libheif's encoder writes no grid)
    /// reserves half its planes, as before: two such decodes still overlap
    /// at `--jobs 2` (see `HeifDecoder.primaryPeakBytes`); the phone
    /// fixture is read as a grid.
    func testAOnePictureHEICsPlanReservesHalfItsPlanes() throws {
        let (width, height) = (1200, 800)
        let rgb = [UInt8](repeating: 128, count: width * height * 3)
        let path = root + "/one.heic"
        XCTAssertEqual(test_write_heic(path, rgb, Int32(width), Int32(height), 1, nil, 0, 0, 1, 0), 0)
        let one = try SourceFile(path: path)
        XCTAssertEqual(try HeifThumbnail.facts(.file(one), plans: { ThumbnailPlans($0, settings: self.settings(512)) })?.grid, false)
        let planned = try DecoderList.plan(.file(one), format: "heif", settings: settings(512), limits: DecodeLimits())
        XCTAssertEqual(planned.path, .libheif)
        XCTAssertEqual(planned.peakBytes, width * height * 3 / 2)
        let phone = try SourceFile(path: Self.phone.path)
        XCTAssertEqual(try HeifThumbnail.facts(.file(phone), plans: { ThumbnailPlans($0, settings: self.settings(512)) })?.grid, true)
    }
}
