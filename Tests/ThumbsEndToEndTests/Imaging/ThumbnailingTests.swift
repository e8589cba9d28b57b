import CVips
import CVipsShim
import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// End to end: images generated with libvips go through the real pipeline, and
/// the outputs are read back with libvips to check what a viewer would see.
final class ThumbnailingTests: TemporaryFolderTestCase {
    var source = ""
    var out = ""

    override func setUp() {
        super.setUp()
        source = root + "/in"
        out = root + "/out"
    }

    /// Where band 0 (stored x) and band 1 (stored y) increase once displayed.
    enum Direction { case right, left, down, up }

    func testAllEightOrientationsAndInvalidOnesAreApplied() async throws {
        let expected: [Int: (Direction, Direction)] = [
            1: (.right, .down), 2: (.left, .down), 3: (.left, .up), 4: (.right, .up),
            5: (.down, .right), 6: (.down, .left), 7: (.up, .left), 8: (.up, .right),
            0: (.right, .down), 9: (.right, .down),
        ]
        for orientation in expected.keys {
            TestImages.write(source + "/o\(orientation).jpg", width: 400, height: 200, orientation: orientation, options: "[Q=95]")
        }
        let outcome = try await runThumbs([source], out: out) { $0.output.sizes = [ThumbSize(width: 64, height: 64)] }
        XCTAssertEqual(outcome.status, .success)
        let manifest = try readManifest(out)
        for (orientation, (band0, band1)) in expected.sorted(by: { $0.key < $1.key }) {
            let path = out + "/64/o\(orientation).jpg"
            let header = try XCTUnwrap(TestImages.header(path), "orientation \(orientation)")
            let swapped = (5...8).contains(orientation)
            XCTAssertEqual([header.width, header.height], swapped ? [32, 64] : [64, 32], "orientation \(orientation)")
            XCTAssertEqual(header.orientation, 1, "output must not carry an orientation tag")
            assertIncreases(path, band: 0, toward: band0, "orientation \(orientation) band 0")
            assertIncreases(path, band: 1, toward: band1, "orientation \(orientation) band 1")
            let item = try XCTUnwrap(manifest.item("o\(orientation).jpg"))
            XCTAssertEqual([item.width, item.height], swapped ? [200, 400] : [400, 200])
            XCTAssertEqual(item.orientation, (1...8).contains(orientation) ? orientation : 1)
        }
    }

    func assertIncreases(_ path: String, band: Int, toward direction: Direction, _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        let left = TestImages.mean(path, band: band, x: 0.05, y: 0.45)
        let right = TestImages.mean(path, band: band, x: 0.85, y: 0.45)
        let top = TestImages.mean(path, band: band, x: 0.45, y: 0.05)
        let bottom = TestImages.mean(path, band: band, x: 0.45, y: 0.85)
        switch direction {
        case .right: XCTAssertGreaterThan(right, left + 100, message, file: file, line: line)
        case .left: XCTAssertGreaterThan(left, right + 100, message, file: file, line: line)
        case .down: XCTAssertGreaterThan(bottom, top + 100, message, file: file, line: line)
        case .up: XCTAssertGreaterThan(top, bottom + 100, message, file: file, line: line)
        }
    }

    func testColourSpacesBecomeEightBitSRGB() async throws {
        TestImages.write(source + "/cmyk-plain.jpg", width: 300, height: 200, bands: 4, interpretation: VIPS_INTERPRETATION_CMYK)
        TestImages.write(source + "/cmyk-icc.jpg", width: 300, height: 200, bands: 4, interpretation: VIPS_INTERPRETATION_CMYK, options: "[profile=cmyk]")
        TestImages.write(source + "/grey.png", width: 300, height: 200, bands: 1, interpretation: VIPS_INTERPRETATION_B_W)
        TestImages.write(source + "/deep.png", width: 300, height: 200, interpretation: VIPS_INTERPRETATION_RGB16, sixteenBit: true)
        TestImages.write(source + "/grey16.png", width: 300, height: 200, bands: 1, interpretation: VIPS_INTERPRETATION_GREY16, sixteenBit: true)
        TestImages.write(source + "/p3.jpg", width: 300, height: 200, options: "[profile=p3]")
        for format in [OutputFormat.jpeg, .png, .webp] {
            let dir = out + "-" + format.rawValue
            let outcome = try await runThumbs([source], out: dir) {
                $0.output.sizes = [ThumbSize(width: 96, height: 96)]
                $0.output.format = format
            }
            XCTAssertEqual(outcome.status, .success, "\(format)")
            for name in ["cmyk-plain", "cmyk-icc", "grey", "deep", "grey16", "p3"] {
                let path = dir + "/96/\(name).\(format.fileExtension)"
                let header = try XCTUnwrap(TestImages.header(path), path)
                XCTAssertEqual(header.bands, 3, path)
                XCTAssertEqual(header.format, VIPS_FORMAT_UCHAR, path)
                XCTAssertEqual([header.width, header.height], [96, 64], path)
                XCTAssertFalse(header.hasICC, "metadata is stripped: \(path)")
            }
        }
        // CMYK with no profile goes through the built-in CMYK profile: the
        // mid-grey K band and zero C/M/Y give a neutral, not black, image.
        let neutral = TestImages.mean(out + "-jpeg/96/cmyk-plain.jpg", band: 1, x: 0.0, y: 0.0, w: 0.05, h: 0.05)
        XCTAssertGreaterThan(neutral, 30)
    }

    func testAlphaIsFlattenedOnWhiteForJPEGAndKeptOtherwise() async throws {
        TestImages.write(source + "/alpha.png", width: 400, height: 200, alpha: true)
        for (format, bands) in [(OutputFormat.jpeg, 3), (.png, 4), (.webp, 4), (.avif, 4), (.auto, 4)] {
            let dir = out + "-" + format.rawValue
            _ = try await runThumbs([source], out: dir) {
                $0.output.sizes = [ThumbSize(width: 100, height: 100)]
                $0.output.format = format
            }
            let ext = format == .auto ? "png" : format.fileExtension
            let path = dir + "/100/alpha.\(ext)"
            let header = try XCTUnwrap(TestImages.header(path), path)
            XCTAssertEqual(header.bands, bands, path)
            XCTAssertEqual([header.width, header.height], [100, 50], path)
            if format == .jpeg {
                // The transparent left quarter becomes white.
                XCTAssertGreaterThan(TestImages.mean(path, band: 2, x: 0.02, y: 0.4), 240, path)
            }
        }
        // auto keeps JPEG for opaque images.
        TestImages.write(source + "/opaque.png", width: 50, height: 50)
        _ = try await runThumbs([source], out: out + "-auto2") { $0.output.format = .auto }
        XCTAssertNotNil(TestImages.header(out + "-auto2/256/opaque.jpg"))
        XCTAssertNotNil(TestImages.header(out + "-auto2/256/alpha.png"))
    }

    func testFirstFrameOfAnimations() async throws {
        for ext in ["gif", "webp"] {
            TestImages.writeAnimation(source + "/anim.\(ext)", width: 120, height: 80, frames: 3)
        }
        let outcome = try await runThumbs([source], out: out) { $0.output.sizes = [ThumbSize(width: 60, height: 60)] }
        XCTAssertEqual(outcome.status, .success)
        for name in ["anim", "anim_webp"] {
            let header = try XCTUnwrap(TestImages.header(out + "/60/\(name).jpg"), name)
            XCTAssertEqual([header.width, header.height], [60, 40], name)
            // Frame 0 is dark, later frames are bright.
            XCTAssertLessThan(TestImages.mean(out + "/60/\(name).jpg", band: 0, x: 0.4, y: 0.4), 40, name)
        }
        let item = try XCTUnwrap(try readManifest(out).item("anim.gif"))
        XCTAssertEqual([item.width, item.height], [120, 80])
    }

    func testMetadataIsStrippedUnlessKept() async throws {
        TestImages.write(source + "/exif.jpg", width: 300, height: 200, orientation: 6, options: "[profile=p3]")
        _ = try await runThumbs([source], out: out + "-strip")
        let stripped = try XCTUnwrap(TestImages.header(out + "-strip/256/exif.jpg"))
        XCTAssertFalse(stripped.hasEXIF)
        XCTAssertFalse(stripped.hasICC)
        _ = try await runThumbs([source], out: out + "-keep") { $0.output.keepMetadata = true }
        let kept = try XCTUnwrap(TestImages.header(out + "-keep/256/exif.jpg"))
        XCTAssertTrue(kept.hasEXIF)
        XCTAssertEqual(kept.orientation, 1, "orientation is applied, so the tag must say 1")
        XCTAssertEqual([kept.width, kept.height], [171, 256])
    }

    func testCoverFillsTheBoxWithEveryCropAndSeveralSizes() async throws {
        TestImages.write(source + "/wide.jpg", width: 800, height: 300)
        TestImages.write(source + "/tall.png", width: 300, height: 900)
        TestImages.write(source + "/small.jpg", width: 50, height: 40)
        for crop in Crop.allCases {
            let dir = out + "-" + crop.rawValue
            let outcome = try await runThumbs([source], out: dir) {
                $0.output.sizes = [ThumbSize(width: 120, height: 120), ThumbSize(parsing: "200x100")!]
                $0.output.fit = .cover
                $0.output.crop = crop
            }
            XCTAssertEqual(outcome.status, .success)
            for name in ["wide", "tall"] {
                XCTAssertEqual(TestImages.header(dir + "/120/\(name).jpg").map { [$0.width, $0.height] }, [120, 120], "\(crop) \(name)")
                XCTAssertEqual(TestImages.header(dir + "/200x100/\(name).jpg").map { [$0.width, $0.height] }, [200, 100], "\(crop) \(name)")
            }
            // Never enlarged without --enlarge.
            XCTAssertEqual(TestImages.header(dir + "/120/small.jpg").map { [$0.width, $0.height] }, [50, 40])
        }
        _ = try await runThumbs([source], out: out + "-enlarge") {
            $0.output.sizes = [ThumbSize(width: 100, height: 100)]
            $0.output.enlarge = true
        }
        XCTAssertEqual(TestImages.header(out + "-enlarge/100/small.jpg").map { [$0.width, $0.height] }, [100, 80])
    }

    func testOutputsAreDeterministicAndRecordedExactly() async throws {
        TestImages.write(source + "/a.jpg", width: 640, height: 480)
        TestImages.write(source + "/b.webp", width: 480, height: 640)
        _ = try await runThumbs([source], out: out + "1") { $0.output.format = .webp; $0.output.quality = 75 }
        _ = try await runThumbs([source], out: out + "2") { $0.output.format = .webp; $0.output.quality = 75 }
        let first = try readManifest(out + "1"), second = try readManifest(out + "2")
        XCTAssertEqual(first.items.map(\.outputs.first?.sha256), second.items.map(\.outputs.first?.sha256))
        for item in first.items {
            for output in item.outputs {
                let data = try Data(contentsOf: URL(fileURLWithPath: out + "1/" + output.path))
                XCTAssertEqual(Int64(data.count), output.bytes)
                XCTAssertEqual(SHA256Hex.of(data), output.sha256)
                let header = try XCTUnwrap(TestImages.header(out + "1/" + output.path))
                XCTAssertEqual([header.width, header.height], [output.width, output.height])
                XCTAssertTrue(output.path.hasSuffix(".webp"))
            }
        }
        XCTAssertEqual(first.settings.quality, 75)
        XCTAssertEqual(first.schema, "thumbs.manifest/1")
        XCTAssertFalse(first.tool.libvips.isEmpty)
    }
}
