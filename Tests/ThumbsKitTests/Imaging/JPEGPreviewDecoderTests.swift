import CThumbsTestShim
import CVips
import CVipsShim
import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// `JPEGPreviewDecoder`, first in `DecoderList`: a camera JPEG whose maker
/// note carries a preview of the photo's shape that covers the box is
/// decoded from that preview; one that anything says was edited (a
/// jpegtran crop keeps the camera's APP1 and its stale preview), or whose
/// preview does not fit, goes to the photo's own entries.
///
/// The photo is a gradient (band 0 rises left to right), the preview solid
/// blue, so the pixels tell which one was decoded.
final class JPEGPreviewDecoderTests: TemporaryFolderTestCase {
    typealias B = EmbeddedPictureBytes

    private func settings(_ boxes: Int...) -> OutputSettings {
        var settings = OutputSettings()
        settings.sizes = boxes.map { ThumbSize(width: $0, height: $0) }
        return settings
    }

    /// A solid blue JPEG of `width` x `height`, as an encoder writes it.
    private func bluePreview(width: Int, height: Int) throws -> [UInt8] {
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for i in stride(from: 2, to: rgb.count, by: 3) { rgb[i] = 255 }
        let path = root + "/preview-\(width)x\(height).jpg"
        XCTAssertEqual(rgb.withUnsafeBufferPointer { test_write_rgb8(path + "[Q=90,strip]", $0.baseAddress, Int32(width), Int32(height)) }, 0)
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        XCTAssertLessThan(bytes.count, 60_000, "the preview fits in the APP1 segment")
        return bytes
    }

    /// A camera-like JPEG: the 1200 x 800 gradient photo, its APP1 saying
    /// NIKON firmware wrote it at 1200 x 800, its maker note holding
    /// `preview`. Written to `name`; returns its path.
    private func cameraJPEG(
        _ name: String, preview: [UInt8], facts: B.ExifFacts? = nil, extraSegments: [UInt8] = [], note: [UInt8]? = nil
    ) throws -> String {
        let photo = TestImages.write(root + "/photo-\(name)", width: 1200, height: 800, options: "[Q=85,strip]")
        var exif = facts ?? B.ExifFacts()
        if facts == nil { exif.pixel = (1200, 800) }
        let bytes = B.exifJPEG(exif, note: note ?? B.nikonNote(preview: preview), extraSegments: extraSegments,
                               main: Array(try Data(contentsOf: URL(fileURLWithPath: photo))))
        let path = root + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func plan(_ path: String, _ settings: OutputSettings, list: DecoderList = .standard) throws -> DecodePlan {
        let file = try SourceFile(path: path)
        let format = try SourceHeader.read(file)?.format
        return try list.plan(.file(file), format: format, settings: settings, limits: DecodeLimits())
    }

    /// The decoded picture's mean of band 0 (red) and band 2 (blue).
    private func decodedColour(_ path: String, _ settings: OutputSettings) async throws -> (red: Double, blue: Double, decoder: DecodePath) {
        let decoded = try await DecoderList.decodedPixels(path, settings)
        guard let vips = decoded.image else {
            XCTFail("no pixels")
            return (0, 0, decoded.decoder)
        }
        func mean(_ band: Int32) -> Double {
            var one: UnsafeMutablePointer<VipsImage>?
            guard shim_extract_band(vips.pointer, &one, band, 1) == 0, let one else { return -1 }
            defer { shim_unref(one) }
            var avg = 0.0
            _ = shim_image_avg(one, &avg)
            return avg
        }
        return (mean(0), mean(2), decoded.decoder)
    }

    /// A Minolta DiMAGE's blue 600 x 400 preview as the camera wrote it, its
    /// SOI's 0xFF written as 0x00, and the facts of its 1200 x 800 photo.
    private func minoltaPreview() throws -> (preview: [UInt8], facts: B.ExifFacts) {
        var preview = try bluePreview(width: 600, height: 400)
        preview[0] = 0
        var facts = B.ExifFacts()
        facts.make = "Minolta Co., Ltd."
        facts.pixel = (1200, 800)
        return (preview, facts)
    }

    /// `path` at a 256 box is planned to its camera's blue preview, and
    /// that preview is what decodes: blue, no red. Returns the plan.
    @discardableResult
    private func assertBluePreviewServes(_ path: String, file: StaticString = #filePath, line: UInt = #line) async throws -> DecodePlan {
        let plan = try plan(path, settings(256))
        XCTAssertEqual(plan.path, .jpegPreview, file: file, line: line)
        let colour = try await decodedColour(path, settings(256))
        XCTAssertEqual(colour.decoder, .jpegPreview, file: file, line: line)
        XCTAssertGreaterThan(colour.blue, 240, file: file, line: line)
        XCTAssertLessThan(colour.red, 15, file: file, line: line)
        return plan
    }

    /// The preview (600 x 400, the photo's 3:2) covers a 256 box at 1/2:
    /// planned ahead of the DC entry, with the photo's size and orientation,
    /// and its blue pixels are what decodes.
    func testCoveringPreviewServes() async throws {
        let path = try cameraJPEG("camera.jpg", preview: try bluePreview(width: 600, height: 400))
        let plan = try await assertBluePreviewServes(path)
        XCTAssertEqual(plan.entry, 0)
        XCTAssertEqual(plan.shrink, 2)
        XCTAssertEqual(plan.info.map { [$0.width, $0.height, $0.orientation] }, [1200, 800, 1])
    }

    /// A Minolta DiMAGE's preview, whose first byte the camera wrote as 0x00
    /// where its SOI's 0xFF belongs (listed with SHIM_EP_SOI_REPAIRED),
    /// serves, mended in a copy: its blue pixels decode.
    func testMinoltaPreviewWithAWrongFirstByteServesMended() async throws {
        let (preview, facts) = try minoltaPreview()
        let path = try cameraJPEG("minolta.jpg", preview: preview, facts: facts,
                                  note: B.headerlessNote(nikon: false, bigEndian: false, preview: preview))
        try await assertBluePreviewServes(path)
    }

    /// As the DiMAGE A1 and 7Hi store it: the preview after the photo's EOI,
    /// past the header the listing reads, so its wrong first byte is seen
    /// only when the decoder probes it. It serves, mended.
    func testMinoltaPreviewPastThePhotoServesMended() async throws {
        let (preview, facts) = try minoltaPreview()
        let photo = TestImages.write(root + "/photo-minolta.jpg", width: 1200, height: 800, options: "[Q=85,strip]")
        let main = Array(try Data(contentsOf: URL(fileURLWithPath: photo)))
        func file(start: UInt32) -> [UInt8] {
            B.exifJPEG(facts, note: B.headerlessNote(nikon: false, bigEndian: false, preview: [], start: start,
                                                     length: UInt32(preview.count)), main: main)
        }
        let layout = file(start: 0)
        let tiff = try XCTUnwrap(layout.firstRange(of: Array("Exif\u{0}\u{0}".utf8))).upperBound
        let bytes = file(start: UInt32(layout.count - tiff)) + preview
        let path = root + "/minolta-past.jpg"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        try await assertBluePreviewServes(path)
    }

    /// As the DiMAGE A1 wrote its preview: 2,703 bytes after the preview's
    /// last MCU, before its EOI, which libjpeg warns about once every row
    /// is out. The picture is whole, and it serves.
    func testPreviewWithBytesAfterItsLastMCUServes() async throws {
        let preview = DirectJPEGTests.withBytesBeforeEOI(try bluePreview(width: 600, height: 400), count: 2703)
        let path = try cameraJPEG("tail.jpg", preview: preview)
        try await assertBluePreviewServes(path)
    }

    /// The same camera file cropped by `jpegtran -crop 800x800+0+0 -copy
    /// all`: its APP1 (maker note, preview) is copied as it was, and the
    /// frame is 800 x 800 now. libjpeg-turbo's jpegtran (2.1.5 here) also
    /// rewrites PixelX/YDimension to the crop's size, so the frame-size
    /// fact says nothing; the preview's 3:2 shape against the crop's 1:1
    /// does. The photo's own entry decodes it: the gradient, not the stale
    /// blue preview. (A crop to the photo's own shape is not caught: see
    /// JPEGPreviewDecoder.)
    func testJpegtranCropGivesTheCroppedPhoto() async throws {
        let path = try cameraJPEG("camera.jpg", preview: try bluePreview(width: 600, height: 400))
        let cropped = root + "/cropped.jpg"
        let jpegtran = Process()
        jpegtran.executableURL = URL(fileURLWithPath: "/usr/bin/jpegtran")
        jpegtran.arguments = ["-crop", "800x800+0+0", "-copy", "all", "-outfile", cropped, path]
        try jpegtran.run()
        jpegtran.waitUntilExit()
        XCTAssertEqual(jpegtran.terminationStatus, 0)
        // The preview is still in the file, unchanged.
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: cropped)))
        let listing = try XCTUnwrap(bytes.withUnsafeBytes { EmbeddedPictureListing.jpeg($0, fileSize: bytes.count) })
        XCTAssertEqual(listing.pictures.first { $0.kind == .makerNote }.map { [$0.width, $0.height] }, [600, 400])
        XCTAssertEqual([listing.width, listing.height], [800, 800])
        XCTAssertEqual([listing.pixelX, listing.pixelY], [800, 800], "jpegtran rewrote the recorded size")

        let plan = try plan(cropped, settings(256))
        XCTAssertNotEqual(plan.path, .jpegPreview)
        XCTAssertEqual(plan.info.map { [$0.width, $0.height] }, [800, 800])
        let colour = try await decodedColour(cropped, settings(256))
        XCTAssertNotEqual(colour.decoder, .jpegPreview)
        XCTAssertGreaterThan(colour.red, 60, "the gradient's left two thirds")
        XCTAssertLessThan(colour.blue, 200)
    }

    /// Each reason to pass: a preview of another shape (2:1, a 4:3 one
    /// letterboxed, 1.2% off), one too small for the box, a Software that
    /// names an editor, a ModifyDate after the shot, an XMP editor, an ICC
    /// profile on the photo, `--keep-metadata`. The photo's entry plans.
    func testPreviewPassesWhenItDoesNotFitOrThePhotoWasEdited() throws {
        let fitting = try bluePreview(width: 600, height: 400)
        var editor = B.ExifFacts()
        editor.pixel = (1200, 800)
        editor.software = "Adobe Photoshop 25.0"
        var later = B.ExifFacts()
        later.pixel = (1200, 800)
        later.modifyDate = "2025:01:01 00:00:00"
        let xmp = B.segment(0xE1, Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + Array("<x xmp:CreatorTool=\"GIMP 2.10\"/>".utf8))
        let icc = B.segment(0xE2, Array("ICC_PROFILE".utf8) + [0, 1, 1] + Array(repeating: 0, count: 128))
        let cases: [(String, String, OutputSettings)] = [
            ("2:1", try cameraJPEG("wide.jpg", preview: try bluePreview(width: 600, height: 300)), settings(256)),
            ("4:3", try cameraJPEG("boxed.jpg", preview: try bluePreview(width: 640, height: 480)), settings(256)),
            ("1.2% off", try cameraJPEG("off.jpg", preview: try bluePreview(width: 600, height: 395)), settings(256)),
            ("too small", try cameraJPEG("small.jpg", preview: fitting), settings(1024)),
            ("editor", try cameraJPEG("editor.jpg", preview: fitting, facts: editor), settings(256)),
            ("modified", try cameraJPEG("later.jpg", preview: fitting, facts: later), settings(256)),
            ("xmp", try cameraJPEG("xmp.jpg", preview: fitting, extraSegments: xmp), settings(256)),
            ("icc", try cameraJPEG("icc.jpg", preview: fitting, extraSegments: icc), settings(256)),
        ]
        for (name, path, settings) in cases {
            XCTAssertNotEqual(try plan(path, settings).path, .jpegPreview, name)
        }
        var keep = settings(256)
        keep.keepMetadata = true
        XCTAssertNotEqual(try plan(try cameraJPEG("keep.jpg", preview: fitting), keep).path, .jpegPreview)
        // Within 1%: 600 x 398 of 1200 x 800 (0.5% off) serves.
        XCTAssertEqual(try plan(try cameraJPEG("near.jpg", preview: try bluePreview(width: 600, height: 398)), settings(256)).path, .jpegPreview)
    }

    /// A preview that does not decode (its scan cut off, its frame intact)
    /// declines at decode time: the photo's entry decodes the file.
    func testPreviewThatDoesNotDecodeDeclines() async throws {
        var preview = try bluePreview(width: 600, height: 400)
        // The scan's bytes after its header, replaced by 0xFF fill: no data.
        let sos = try XCTUnwrap((0..<preview.count - 1).first { preview[$0] == 0xFF && preview[$0 + 1] == 0xDA })
        for i in sos + 20..<preview.count - 2 { preview[i] = 0xFF }
        let path = try cameraJPEG("broken.jpg", preview: preview)
        let colour = try await decodedColour(path, settings(256))
        XCTAssertNotEqual(colour.decoder, .jpegPreview)
        XCTAssertGreaterThan(colour.red, 60)
    }

    /// Real cameras' headers: a Nikon D40's 570 x 375 preview is 1.06% off
    /// its 3008 x 2000 photo's shape, a Pentax *ist D's is 4:3 (letterboxed)
    /// in a 3:2 photo, a Panasonic LX7's MPF image lies past the head: the
    /// preview entry passes each.
    func testRealHeadersWhosePreviewsDoNotServe() throws {
        for name in ["nikon-d40-head.jpg", "pentax-istd-head.jpg", "panasonic-lx7-head.jpg"] {
            let path = EmbeddedPicturesTests.fixtures.appendingPathComponent(name).path
            let file = try SourceFile(path: path)
            let format = try SourceHeader.read(file)?.format
            let input = DecoderInput(source: .file(file), format: format, settings: settings(256), limits: DecodeLimits())
            XCTAssertNil(try JPEGPreviewDecoder().plan(input), name)
        }
    }
}
