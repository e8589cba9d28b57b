import CThumbsTestShim
import Foundation
import ThumbsKit
import ThumbsTestSupport
import XCTest

/// HEIC files take their embedded thumbnail when it covers the box and has
/// the primary image's shape; otherwise libvips decodes the primary image.
/// The files are written with libheif's encoder, the primary image in one
/// colour and its thumbnail in another, so that the output tells which one
/// was decoded.
final class HeifThumbnailTests: TemporaryFolderTestCase {
    static let primaryColour: [UInt8] = [200, 100, 50]
    static let thumbnailColour: [UInt8] = [40, 90, 200]

    private func solid(_ width: Int, _ height: Int, _ colour: [UInt8]) -> [UInt8] {
        Array((0..<(width * height)).map { _ in colour }.joined())
    }

    /// Writes `name`.heic: a `width` × `height` primary image (as stored) in
    /// `primaryColour`, and optionally a thumbnail in `thumbnailColour`.
    private func writeHEIC(
        _ name: String, width: Int = 1024, height: Int = 768, orientation: Int32 = 1,
        thumbnail: (width: Int, height: Int, orientation: Int32)? = (320, 240, 1), p3: Bool = false
    ) throws -> String {
        let path = root + "/in/" + name + ".heic"
        try FileManager.default.createDirectory(atPath: root + "/in", withIntermediateDirectories: true)
        let primary = solid(width, height, Self.primaryColour)
        let status: Int32
        if let thumbnail {
            let small = solid(thumbnail.width, thumbnail.height, Self.thumbnailColour)
            status = test_write_heic(path, primary, Int32(width), Int32(height), orientation,
                                     small, Int32(thumbnail.width), Int32(thumbnail.height), thumbnail.orientation, p3 ? 1 : 0)
        } else {
            status = test_write_heic(path, primary, Int32(width), Int32(height), orientation, nil, 0, 0, 1, p3 ? 1 : 0)
        }
        XCTAssertEqual(status, 0, "libheif could not write \(name).heic")
        return path
    }

    /// The run's own manifest, which carries each item's decode path (the
    /// file on disk does not).
    private func run(size: Int, out: String = "/out") async throws -> Manifest {
        let outcome = try await runThumbs([root + "/in"], out: root + out) { $0.size([size]) }
        return try XCTUnwrap(outcome.manifest)
    }

    private func assertColour(_ path: String, _ colour: [UInt8], tolerance: Double = 6, file: StaticString = #filePath, line: UInt = #line) {
        for band in 0..<3 {
            let mean = TestImages.mean(path, band: band, x: 0.25, y: 0.25, w: 0.5, h: 0.5)
            XCTAssertEqual(mean, Double(colour[band]), accuracy: tolerance, "\(path) band \(band)", file: file, line: line)
        }
    }

    func testAThumbnailThatCoversTheBoxIsDecodedInsteadOfThePrimaryImage() async throws {
        _ = try writeHEIC("photo")
        let manifest = try await run(size: 256)
        let item = try XCTUnwrap(manifest.item("photo.heic"))
        XCTAssertEqual(item.status, .ok, "\(String(describing: item.error))")
        XCTAssertEqual(item.decoder, .heifThumbnail)
        XCTAssertEqual(item.format, "heif")
        XCTAssertEqual(item.width, 1024, "the primary image's size, never the thumbnail's")
        XCTAssertEqual(item.height, 768)
        let output = try XCTUnwrap(item.outputs.first)
        XCTAssertEqual([output.width, output.height], [256, 192])
        assertColour(root + "/out/" + output.path, Self.thumbnailColour)
    }

    func testABoxLargerThanTheThumbnailDecodesThePrimaryImage() async throws {
        _ = try writeHEIC("photo")
        let manifest = try await run(size: 512)
        let item = try XCTUnwrap(manifest.item("photo.heic"))
        XCTAssertEqual(item.decoder, .libheif)
        let output = try XCTUnwrap(item.outputs.first)
        XCTAssertEqual([output.width, output.height], [512, 384])
        assertColour(root + "/out/" + output.path, Self.primaryColour)
    }

    func testAThumbnailOfAnotherShapeIsNeverUsed() async throws {
        _ = try writeHEIC("wide", thumbnail: (320, 180, 1))
        _ = try writeHEIC("turned", orientation: 6, thumbnail: (320, 240, 1))
        let manifest = try await run(size: 128)
        for id in ["wide.heic", "turned.heic"] {
            let item = try XCTUnwrap(manifest.item(id))
            XCTAssertEqual(item.decoder, .libheif, id)
            let output = try XCTUnwrap(item.outputs.first)
            assertColour(root + "/out/" + output.path, Self.primaryColour)
        }
        let turned = try XCTUnwrap(manifest.item("turned.heic"))
        XCTAssertEqual([turned.width, turned.height], [768, 1024], "displayed after the irot box")
        XCTAssertEqual(turned.outputs.first.map { [$0.width, $0.height] }, [96, 128])
    }

    func testAThumbnailTurnedLikeItsPhotoIsUsedAndComesOutUpright() async throws {
        _ = try writeHEIC("turned", orientation: 6, thumbnail: (320, 240, 6))
        let manifest = try await run(size: 128)
        let item = try XCTUnwrap(manifest.item("turned.heic"))
        XCTAssertEqual(item.decoder, .heifThumbnail)
        XCTAssertEqual([item.width, item.height], [768, 1024])
        XCTAssertEqual(item.outputs.first.map { [$0.width, $0.height] }, [96, 128])
        XCTAssertEqual(item.orientation, 1, "libheif turned the pixels; nothing is left to apply")
    }

    /// Display P3 given by an nclx box only: (200, 100, 50) in P3 is about
    /// (214, 94, 37) in sRGB, computed here from the published primaries, not
    /// by the code under test. Left untagged it would come out unchanged.
    func testDisplayP3FromAnNclxBoxIsConvertedToSRGB() async throws {
        _ = try writeHEIC("p3", thumbnail: (320, 240, 1), p3: true)
        _ = try writeHEIC("p3-large", thumbnail: nil, p3: true)
        let manifest = try await run(size: 256)
        let expectedPrimary = Self.displayP3ToSRGB(Self.primaryColour)
        let expectedThumbnail = Self.displayP3ToSRGB(Self.thumbnailColour)
        XCTAssertGreaterThan(expectedPrimary[0] - 200, 10, "the test colour must move visibly")
        let p3 = try XCTUnwrap(manifest.item("p3.heic"))
        XCTAssertEqual(p3.decoder, .heifThumbnail)
        assertColour(root + "/out/" + (p3.outputs.first?.path ?? ""), expectedThumbnail.map { UInt8($0.rounded()) }, tolerance: 5)
        let large = try XCTUnwrap(manifest.item("p3-large.heic"))
        XCTAssertEqual(large.decoder, .libheif)
        assertColour(root + "/out/" + (large.outputs.first?.path ?? ""), expectedPrimary.map { UInt8($0.rounded()) }, tolerance: 5)
    }

    /// A phone photo from libvips's test suite: stored turned (irot), with a
    /// 240×320 thumbnail and a Display P3 ICC profile. The thumbnail and the
    /// primary image must give the same picture at the same size: same
    /// orientation, same colours after colour management.
    func testAPhonePhotoGivesTheSamePictureFromItsThumbnailAndItsPrimaryImage() async throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/heif/heic-orientation-6.heic").path
        try FileManager.default.createDirectory(atPath: root + "/in", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixture, toPath: root + "/in/phone.heic")
        let smallRun = try await run(size: 256)
        let small = try XCTUnwrap(smallRun.item("phone.heic"))
        XCTAssertEqual(small.decoder, .heifThumbnail)
        XCTAssertEqual([small.width, small.height], [3024, 4032])
        XCTAssertEqual(small.outputs.first.map { [$0.width, $0.height] }, [192, 256])
        let largeRun = try await run(size: 400, out: "/full")
        let large = try XCTUnwrap(largeRun.item("phone.heic"))
        XCTAssertEqual(large.decoder, .libheif)
        // Compare regions of both outputs: a turned or uncorrected picture
        // differs by tens of levels in some of them.
        let a = root + "/out/" + (small.outputs.first?.path ?? ""), b = root + "/full/" + (large.outputs.first?.path ?? "")
        for (x, y) in [(0.1, 0.1), (0.6, 0.1), (0.1, 0.6), (0.6, 0.6), (0.35, 0.35)] {
            for band in 0..<3 {
                let fromThumbnail = TestImages.mean(a, band: band, x: x, y: y, w: 0.3, h: 0.3)
                let fromPrimary = TestImages.mean(b, band: band, x: x, y: y, w: 0.3, h: 0.3)
                XCTAssertEqual(fromThumbnail, fromPrimary, accuracy: 6, "region (\(x), \(y)) band \(band)")
            }
        }
    }

    /// The primary image decoded in its own 4:2:0 and shrunk before RGB
    /// gives the picture libvips's loader gives (libheif's full-size RGB
    /// conversion, then libvips's shrink and reduce): `--keep-metadata`
    /// takes libvips's loader, so it is the reference here.
    func testThePrimaryImageShrunkBeforeRGBMatchesLibvipsLoader() async throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/heif/heic-orientation-6.heic").path
        try FileManager.default.createDirectory(atPath: root + "/in", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixture, toPath: root + "/in/phone.heic")
        let direct = try await run(size: 400, out: "/direct")
        let viaLibvips = try await runThumbs([root + "/in"], out: root + "/libvips") { $0.size([400]); $0.output.keepMetadata = true }
        let a = try XCTUnwrap(direct.item("phone.heic")), b = try XCTUnwrap(viaLibvips.manifest?.item("phone.heic"))
        XCTAssertEqual(a.decoder, .libheif)
        XCTAssertEqual(b.decoder, .libvips)
        XCTAssertEqual(a.outputs.first.map { [$0.width, $0.height] }, b.outputs.first.map { [$0.width, $0.height] })
        let pa = root + "/direct/" + (a.outputs.first?.path ?? ""), pb = root + "/libvips/" + (b.outputs.first?.path ?? "")
        for (x, y) in [(0.0, 0.0), (0.5, 0.0), (0.0, 0.5), (0.5, 0.5), (0.25, 0.25), (0.8, 0.8)] {
            for band in 0..<3 {
                XCTAssertEqual(TestImages.mean(pa, band: band, x: x, y: y, w: 0.2, h: 0.2),
                               TestImages.mean(pb, band: band, x: x, y: y, w: 0.2, h: 0.2),
                               accuracy: 3, "region (\(x), \(y)) band \(band)")
            }
        }
    }

    func testTruncatedHEICsFailAsOneItemEach() async throws {
        let path = try writeHEIC("whole", width: 256, height: 192, thumbnail: (128, 96, 1))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for cut in stride(from: 16, to: bytes.count, by: max(1, bytes.count / 12)) {
            try bytes.prefix(cut).write(to: URL(fileURLWithPath: root + "/in/cut-\(cut).heic"))
        }
        _ = try await runThumbs([root + "/in"], out: root + "/out") { $0.size([64]); $0.maxFailures = .count(1000) }
        let manifest = try readManifest(root + "/out")
        XCTAssertEqual(manifest.item("whole.heic")?.status, .ok)
        for item in manifest.items where item.id != "whole.heic" {
            if item.status == .failed {
                XCTAssertFalse(item.error?.message.isEmpty ?? true, item.id)
            }
        }
    }

    /// sRGB of a Display P3 colour: P3 primaries and D65 white give the
    /// linear P3 → linear sRGB matrix (rounded to four places, as published).
    static func displayP3ToSRGB(_ colour: [UInt8]) -> [Double] {
        func decode(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
        func encode(_ v: Double) -> Double {
            let c = min(1, max(0, v))
            return c <= 0.0031308 ? 12.92 * c : 1.055 * pow(c, 1 / 2.4) - 0.055
        }
        let l = colour.map { decode(Double($0) / 255) }
        let m = [[1.2249, -0.2247, 0.0], [-0.0420, 1.0419, 0.0], [-0.0197, -0.0786, 1.0979]]
        return m.map { row in encode(row[0] * l[0] + row[1] * l[1] + row[2] * l[2]) * 255 }
    }
}
