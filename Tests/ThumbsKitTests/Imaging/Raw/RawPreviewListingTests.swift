import CVipsShim
import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// A RAW's preview candidates come from the one embedded-picture listing
/// (issue 35 §1): read from a file's first bytes and further as the listing
/// asks (`wanted`), and chosen by the camera JPEG's rule.
final class RawPreviewListingTests: TemporaryFolderTestCase {
    private func settings(_ box: Int) -> OutputSettings {
        var settings = OutputSettings()
        settings.sizes = [ThumbSize(width: box, height: box)]
        return settings
    }

    /// The C listing says how many bytes would reach the directories past
    /// those given, and nothing when it was given them all.
    func testListingFromTheFirstBytesSaysHowFarItsDirectoriesLie() throws {
        let bytes = EmbeddedRawBytes.raw(bigEndian: false)
        let whole = try XCTUnwrap(EmbeddedPicturesTests.listing(bytes, tiff: true))
        XCTAssertEqual(whole.wanted, 0)
        // IFD0 at 8 names a SubIFD at 256 and IFD1 at 1536: 200 bytes reach neither.
        let first = try XCTUnwrap(EmbeddedPicturesTests.listing(Array(bytes.prefix(200)), fileSize: bytes.count, tiff: true))
        XCTAssertGreaterThan(first.wanted, 200)
        XCTAssertLessThanOrEqual(first.wanted, bytes.count)
        XCTAssertLessThan(first.pictures.count, whole.pictures.count)
    }

    /// A DNG whose preview directories follow a preview longer than the
    /// file's prefix (as `TestDNG` lays them out): the listing from the file
    /// reads on to them and finds what the listing from memory finds.
    func testAFilesListingReadsOnToDirectoriesPastItsPrefix() throws {
        var preview = TestDNG.jpegPreview(root, name: "full", width: 1200, height: 800)
        // 130 KB of APP9 before the scan: the directories lie past 64 KB.
        let block: [UInt8] = [0xFF, 0xE9, 0xFF, 0xFF] + [UInt8](repeating: 0x55, count: 0xFFFD)
        preview.jpeg.insert(contentsOf: block + block, at: 2)
        let bytes = TestDNG.make(width: 1200, height: 800, previews: [preview]).bytes
        XCTAssertGreaterThan(bytes.count, SourceFile.prefixLength * 2)
        let path = root + "/listed.dng"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let file = try SourceFile(path: path)
        let fromFile = try XCTUnwrap(RawPreviewFinder.listing(.file(file)))
        let fromMemory = try XCTUnwrap(bytes.withUnsafeBytes { RawPreviewFinder.listing(.memory($0)) })
        XCTAssertEqual(fromFile.pictures.map(\.range), fromMemory.pictures.map(\.range))
        XCTAssertTrue(fromMemory.pictures.contains { $0.range.count == preview.jpeg.count && $0.kind == .tiffImage })
        // From the file, the plan serves that preview.
        let plan = try XCTUnwrap(RawEntries.plan(.file(file), settings: settings(256), limits: DecodeLimits()))
        XCTAssertEqual(plan.path, .rawPreview)
        XCTAssertEqual(plan.reads, .ranges([fromMemory.pictures.first { $0.range.count == preview.jpeg.count }!.range]))
    }

    /// A reduced preview of about 40% of the photo beside a full-size one
    /// (as Sony's cameras and the bench's DNGs write them), listed after
    /// it: both cover the box, the full-size one at 1/8 and the reduced one
    /// at 1/4, and the reduced one is the cheaper. From the file, the plan
    /// decodes it at 1/4 and reads its bytes alone.
    func testOfAReducedAndAFullSizePreviewTheReducedOneServesAtAQuarter() throws {
        let full = TestDNG.jpegPreview(root, name: "full", width: 2000, height: 1500)
        let reduced = TestDNG.jpegPreview(root, name: "reduced", width: 810, height: 608)
        let bytes = TestDNG.make(width: 2000, height: 1500, previews: [full, reduced]).bytes
        let path = root + "/two-previews.dng"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let file = try SourceFile(path: path)
        let listed = try XCTUnwrap(RawPreviewFinder.listing(.file(file))).pictures
        let reducedRange = try XCTUnwrap(listed.first { $0.range.count == reduced.jpeg.count }).range
        // Box 200: 810/4 = 202 covers it, as 2000/8 = 250 does.
        let plan = try XCTUnwrap(RawEntries.plan(.file(file), settings: settings(200), limits: DecodeLimits()))
        XCTAssertEqual(plan.path, .rawPreview)
        XCTAssertEqual(plan.shrink, 4)
        XCTAssertEqual(plan.reads, .ranges([reducedRange]))
        XCTAssertEqual(plan.info, SourceImageInfo(format: "dng", width: 2000, height: 1500, orientation: 1))
    }

    /// A listed picture whose header was read whole and that libjpeg
    /// refuses (as a DNG's lossless sensor data, tens of MB): refused from
    /// its first bytes, never read whole.
    func testAPictureLibjpegRefusesIsNotReadWhole() throws {
        var jpeg = TestDNG.jpegPreview(root, name: "lossless", width: 600, height: 400).jpeg
        // The frame marker made SOF3 (lossless), which libjpeg refuses; 1 MB of body past it.
        let sof = try XCTUnwrap((2..<jpeg.count - 1).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        jpeg[sof + 1] = 0xC3
        jpeg += [UInt8](repeating: 0, count: 1 << 20)
        let path = root + "/picture.bin"
        try Data(jpeg).write(to: URL(fileURLWithPath: path))
        let file = try SourceFile(path: path)
        var raw = shim_embedded_picture()
        raw.length = UInt64(jpeg.count)
        raw.kind = Int32(SHIM_EP_TIFF_IMAGE)
        raw.compression = 7
        raw.flags = Int32(SHIM_EP_UNPROBED)
        let chosen = RawPreviewFinder.choose([EmbeddedPictureListing.Picture(raw)], in: .file(file), photo: (600, 400),
                                             orientation: 1, needed: (256, 171), maxPixels: 100_000_000)
        XCTAssertNil(chosen)
        XCTAssertLessThanOrEqual(file.peakBytesHeld, JPEGPreviewDecoder.headerBytes, "only its first bytes were read")
    }

    /// The camera JPEG's aspect rule (within 1%): a 600x397 preview of a
    /// 1200x800 RAW (0.75% off, 3.6 pixels on its long side) serves, where
    /// the RAW's earlier rule (within a pixel) had LibRaw develop.
    func testAPreviewWithinOnePercentOfTheRAWsShapeServes() throws {
        let preview = TestDNG.jpegPreview(root, name: "near", width: 600, height: 397)
        let bytes = TestDNG.make(width: 1200, height: 800, previews: [preview]).bytes
        let plan = try XCTUnwrap(bytes.withUnsafeBytes { raw in
            try RawEntries.plan(.memory(raw), settings: settings(256), limits: DecodeLimits())
        })
        XCTAssertEqual(plan.path, .rawPreview)
        XCTAssertEqual(plan.info, SourceImageInfo(format: "dng", width: 1200, height: 800, orientation: 1))
        // 2.5% off (600x390) is letterboxed or cropped: developed.
        let off = TestDNG.make(width: 1200, height: 800, previews: [TestDNG.jpegPreview(root, name: "off", width: 600, height: 390)]).bytes
        let developed = try XCTUnwrap(off.withUnsafeBytes { raw in
            try RawEntries.plan(.memory(raw), settings: settings(256), limits: DecodeLimits())
        })
        XCTAssertEqual(developed.path, .libraw)
    }
}
