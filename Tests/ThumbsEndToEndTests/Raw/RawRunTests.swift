import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Camera RAWs through whole runs: DNGs made by `TestDNG` with known
/// previews, sizes and rotations.
final class RawRunTests: TemporaryFolderTestCase {
    private func writeDNG(_ path: String, orientation: Int = 1, previews: [(Int, Int)]) throws {
        let layout = TestDNG.make(width: 1200, height: 800, orientation: orientation,
                                  previews: previews.map { TestDNG.jpegPreview(root, name: "shot", width: $0.0, height: $0.1) })
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(layout.bytes).write(to: URL(fileURLWithPath: path))
    }

    /// The item is the RAW (kind, the photo's size and orientation), its
    /// picture the preview's, upright; the decoder is counted in stats.json.
    func testDNGsComeFromTheirPreviewsWithThePhotosOwnSize() async throws {
        let source = root + "/in"
        try writeDNG(source + "/shot.dng", previews: [(1200, 800)])
        try writeDNG(source + "/turned.dng", orientation: 6, previews: [(1200, 800)])
        // The preview's own picture as a JPEG: the reference.
        TestImages.write(root + "/ref/shot.jpg", width: 1200, height: 800, options: "[Q=85,strip]")
        let outcome = try await runThumbs([source, root + "/ref"], out: root + "/out") { $0.size([256]) }
        XCTAssertEqual(outcome.status, .success)
        let manifest = try readManifest(root + "/out")
        let shot = try XCTUnwrap(manifest.item("in/shot.dng"))
        XCTAssertEqual(shot.format, "dng")
        XCTAssertEqual([shot.width, shot.height, shot.orientation], [1200, 800, 1])
        // The decoder is in the run's own records (stats.json, the item event), not manifest.json.
        XCTAssertEqual(outcome.manifest?.item("in/shot.dng")?.decoder, .rawPreview)
        let turned = try XCTUnwrap(manifest.item("in/turned.dng"))
        XCTAssertEqual([turned.width, turned.height, turned.orientation], [800, 1200, 6])
        XCTAssertEqual(outcome.statistics?.decoders["raw-preview"], 2)

        let shotPath = root + "/out/" + (shot.outputs.first?.path ?? "")
        let refPath = root + "/out/" + (manifest.item("ref/shot.jpg")?.outputs.first?.path ?? "")
        XCTAssertEqual(TestImages.header(shotPath).map { [$0.width, $0.height] }, [256, 171])
        for band in 0..<3 {
            for (x, y) in [(0.05, 0.5), (0.5, 0.5), (0.85, 0.2)] {
                XCTAssertEqual(TestImages.mean(shotPath, band: band, x: x, y: y), TestImages.mean(refPath, band: band, x: x, y: y),
                               accuracy: 2, "band \(band) at \(x),\(y)")
            }
        }
        // Orientation 6: the stored left-to-right ramp of band 0 runs top to bottom, upright.
        let turnedPath = root + "/out/" + (turned.outputs.first?.path ?? "")
        XCTAssertEqual(TestImages.header(turnedPath).map { [$0.width, $0.height] }, [171, 256])
        XCTAssertLessThan(TestImages.mean(turnedPath, band: 0, x: 0.45, y: 0.02), 40)
        XCTAssertGreaterThan(TestImages.mean(turnedPath, band: 0, x: 0.45, y: 0.88), 200)
    }

    /// No preview covers a 1024 box: LibRaw develops the sensor data.
    func testBoxLargerThanThePreviewIsDevelopedByLibRaw() async throws {
        let source = root + "/in"
        try writeDNG(source + "/small-preview.dng", previews: [(300, 200)])
        let outcome = try await runThumbs([source], out: root + "/out") { $0.size([1024]) }
        XCTAssertEqual(outcome.status, .success)
        let item = try XCTUnwrap(try readManifest(root + "/out").item("small-preview.dng"))
        XCTAssertEqual(outcome.manifest?.item("small-preview.dng")?.decoder, .libraw)
        XCTAssertEqual([item.width, item.height], [1200, 800])
        XCTAssertEqual(outcome.statistics?.decoders["libraw"], 1)
        let path = root + "/out/" + (item.outputs.first?.path ?? "")
        XCTAssertEqual(TestImages.header(path).map { [$0.width, $0.height] }, [1024, 683])
        // The sensor data is a ramp left to right.
        XCTAssertLessThan(TestImages.mean(path, band: 1, x: 0.02, y: 0.45), TestImages.mean(path, band: 1, x: 0.88, y: 0.45))
    }

    /// A RAW+JPEG pair of one shot: the DNG's preview is the JPEG's picture.
    /// Different bytes, the same look: grouped by the default --similar.
    func testRAWPlusJPEGPairGroupsAsLookAlikes() async throws {
        let source = root + "/in"
        // The camera's JPEG, and the DNG whose full-size preview is that
        // picture, encoded apart (another quality, other bytes).
        TestDNG.writePattern(source + "/IMG_0001.jpg", width: 1200, height: 800, options: "[Q=95]")
        let preview = TestDNG.writePattern(root + "/preview.jpg", width: 1200, height: 800, options: "[Q=80,strip]")
        let layout = TestDNG.make(width: 1200, height: 800, previews: [preview])
        try Data(layout.bytes).write(to: URL(fileURLWithPath: source + "/IMG_0001.dng"))
        TestImages.write(source + "/other.jpg", width: 800, height: 1200, orientation: 6, options: "[Q=90]")
        let outcome = try await runThumbs([source], out: root + "/out") { $0.size([256]) }
        XCTAssertEqual(outcome.status, .success)
        let manifest = try readManifest(root + "/out")
        let raw = try XCTUnwrap(manifest.item("IMG_0001.dng"))
        let jpeg = try XCTUnwrap(manifest.item("IMG_0001.jpg"))
        XCTAssertEqual(outcome.manifest?.item("IMG_0001.dng")?.decoder, .rawPreview)
        XCTAssertNotEqual(raw.sha256, jpeg.sha256)
        let pair = [raw.similarTo?.id, jpeg.similarTo?.id]
        XCTAssertTrue(pair.contains("IMG_0001.dng") || pair.contains("IMG_0001.jpg"), "not grouped: \(pair) \(manifest.items.map { ($0.id, $0.phash ?? "") })")
    }
}
