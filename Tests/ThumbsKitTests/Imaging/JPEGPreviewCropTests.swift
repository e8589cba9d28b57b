import CThumbsTestShim
import CVips
import CVipsShim
import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// `JPEGPreviewCrops`: a preview that a camera's firmware makes from a
/// window of its photo is stretched back over the photo's frame, so that
/// what the thumbnail shows lies where the photo has it.
///
/// The file is a Casio EX-M2's (1600 x 1200; its 320 x 240 maker-note
/// preview shows the photo's region [0, 0, 1590, 1196]). The preview here is
/// written from ramps evaluated where each of its pixels lies in that
/// region: red rises across photo x 1300...1500 (half way at 1400), green
/// across photo y 1000...1160 (half way at 1080). Lined up with the photo,
/// the decoded preview is half way at photo x 1400 = preview column 279.5
/// (pixel centres at p + 0.5, 5 photo pixels each) and at photo y 1080 =
/// row 215.5; as the camera cropped it, at 281.26 and 216.22.
final class JPEGPreviewCropTests: TemporaryFolderTestCase {
    typealias B = EmbeddedPictureBytes

    private static let region = (x0: 0.0, y0: 0.0, x1: 1590.0, y1: 1196.0)

    /// The ramps' value at photo coordinate `at` (pixel edges).
    private static func ramp(_ at: Double, from: Double, to: Double) -> UInt8 {
        UInt8(max(0, min(255, ((at - from) / (to - from) * 255).rounded())))
    }

    /// The 320 x 240 preview of `region`, as the camera would render it.
    private func preview() throws -> [UInt8] {
        let (w, h) = (320, 240)
        var rgb = [UInt8](repeating: 128, count: w * h * 3)
        let r = Self.region
        for q in 0..<h {
            let y = r.y0 + (Double(q) + 0.5) * (r.y1 - r.y0) / Double(h)
            let green = Self.ramp(y, from: 1000, to: 1160)
            for p in 0..<w {
                let x = r.x0 + (Double(p) + 0.5) * (r.x1 - r.x0) / Double(w)
                rgb[(q * w + p) * 3] = Self.ramp(x, from: 1300, to: 1500)
                rgb[(q * w + p) * 3 + 1] = green
            }
        }
        let path = root + "/preview.jpg"
        XCTAssertEqual(rgb.withUnsafeBufferPointer { test_write_rgb8(path + "[Q=95,subsample-mode=off,strip]", $0.baseAddress, Int32(w), Int32(h)) }, 0)
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The Casio file, its Exif naming `model`.
    private func casioJPEG(model: String) throws -> String {
        let photo = TestImages.write(root + "/photo.jpg", width: 1600, height: 1200, options: "[Q=85,strip]")
        var facts = B.ExifFacts()
        facts.make = "CASIO COMPUTER CO.,LTD."
        facts.model = model
        facts.pixel = (1600, 1200)
        let bytes = B.exifJPEG(facts, note: B.casioNote(bigEndian: false, preview: try preview()),
                               main: Array(try Data(contentsOf: URL(fileURLWithPath: photo))))
        let path = root + "/\(model).jpg"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The decoded picture at a 256 box: its size, decoder and bytes.
    private func decoded(_ path: String) async throws -> (width: Int, height: Int, decoder: DecodePath, rgb: [UInt8]) {
        var settings = OutputSettings()
        settings.sizes = [ThumbSize(width: 256, height: 256)]
        let decoded = try await DecoderList.decodedPixels(path, settings)
        let vips = try XCTUnwrap(decoded.image, "no pixels")
        var size = 0
        let bytes = try XCTUnwrap(vips_image_write_to_memory(vips.pointer, &size))
        defer { g_free(bytes) }
        return (vips.width, vips.height, decoded.decoder, Array(UnsafeRawBufferPointer(start: bytes, count: size)))
    }

    /// Where `values` (rising) cross 127.5, between samples, as a position
    /// in samples.
    private func halfWay(_ values: [UInt8]) -> Double? {
        guard let i = values.firstIndex(where: { $0 >= 128 }), i > 0 else { return nil }
        let (a, b) = (Double(values[i - 1]), Double(values[i]))
        return Double(i - 1) + (127.5 - a) / (b - a)
    }

    private func crossings(_ picture: (width: Int, height: Int, decoder: DecodePath, rgb: [UInt8])) throws -> (x: Double, y: Double) {
        let (w, h) = (picture.width, picture.height)
        let row = (0..<w).map { picture.rgb[((h / 2) * w + $0) * 3] }
        let column = (0..<h).map { picture.rgb[($0 * w + w / 2) * 3 + 1] }
        return (try XCTUnwrap(halfWay(row)), try XCTUnwrap(halfWay(column)))
    }

    func testAKnownCropIsUndone() async throws {
        let picture = try await decoded(try casioJPEG(model: "EX-M2"))
        XCTAssertEqual(picture.decoder, .jpegPreview)
        XCTAssertEqual([picture.width, picture.height], [320, 240])
        let at = try crossings(picture)
        XCTAssertEqual(at.x, 279.5, accuracy: 0.3, "red lies where the photo has it")
        XCTAssertEqual(at.y, 215.5, accuracy: 0.3, "green lies where the photo has it")
    }

    /// Another model (no crop known): the preview as the camera wrote it.
    func testAnotherModelsPreviewIsLeftAsItIs() async throws {
        let picture = try await decoded(try casioJPEG(model: "EX-Z55"))
        XCTAssertEqual(picture.decoder, .jpegPreview)
        let at = try crossings(picture)
        XCTAssertEqual(at.x, 281.26, accuracy: 0.3)
        XCTAssertEqual(at.y, 216.22, accuracy: 0.3)
    }

    func testTheTableIsKeyedByCameraAndBothSizes() {
        let photo = PixelSize(width: 3264, height: 2448), preview = PixelSize(width: 320, height: 240)
        XCTAssertNotNil(JPEGPreviewCrops.crop(make: "SAMSUNG", model: "GT-I9100", photo: photo, preview: preview))
        XCTAssertNotNil(JPEGPreviewCrops.crop(make: "SAMSUNG ", model: "SC-02C", photo: photo, preview: preview))
        XCTAssertNotNil(JPEGPreviewCrops.crop(make: "CASIO COMPUTER CO.,LTD", model: "EX-Z3",
                                              photo: PixelSize(width: 2048, height: 1536), preview: preview))
        XCTAssertNil(JPEGPreviewCrops.crop(make: "SAMSUNG", model: "GT-I9300", photo: photo, preview: preview))
        XCTAssertNil(JPEGPreviewCrops.crop(make: "SAMSUNG", model: "GT-I9100", photo: PixelSize(width: 2048, height: 1536), preview: preview))
        XCTAssertNil(JPEGPreviewCrops.crop(make: "SAMSUNG", model: "GT-I9100", photo: photo, preview: PixelSize(width: 160, height: 120)))
        XCTAssertNil(JPEGPreviewCrops.crop(make: "LG", model: "GT-I9100", photo: photo, preview: preview))
    }

    /// Every entry's region keeps the photo's shape within the aspect rule's
    /// 1% (JPEGPreviewDecoder.aspectTolerance), as its preview does: a crop
    /// that changed the shape would be refused before it could be undone.
    func testEveryKnownCropKeepsTheShape() {
        for crop in JPEGPreviewCrops.known {
            let region = (crop.x1 - crop.x0) / (crop.y1 - crop.y0)
            let preview = Double(crop.preview.width) / Double(crop.preview.height)
            let photo = Double(crop.photo.width) / Double(crop.photo.height)
            XCTAssertEqual(region / preview, 1, accuracy: JPEGPreviewDecoder.aspectTolerance, "\(crop.models)")
            XCTAssertEqual(photo / preview, 1, accuracy: JPEGPreviewDecoder.aspectTolerance, "\(crop.models)")
            XCTAssertTrue(crop.x0 >= 0 && crop.y0 >= 0 && crop.x1 <= Double(crop.photo.width) && crop.y1 <= Double(crop.photo.height))
        }
    }
}
