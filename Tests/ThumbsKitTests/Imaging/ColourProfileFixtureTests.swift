import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Public photos whose profiles thumbs once refused (Tests/Fixtures/colour):
/// every profile lcms2 can make a transform to sRGB from is applied.
final class ColourProfileFixtureTests: TemporaryFolderTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/colour").path

    /// jpegli's XYB JPEG (an input profile on lookup tables only) and a
    /// colour-space profile that declares only the perceptual intent: both
    /// `ok`, without a warning, on the direct path and on libvips'.
    func testProfilesWithoutARelativeColorimetricTableAreApplied() async throws {
        for keepMetadata in [false, true] {
            let items = try await run(keepMetadata: keepMetadata)
            for name in ["icc_profile_big.jpg", "sample-xyb.jpg", "sample.jpg"] {
                let item = try XCTUnwrap(items[name], name)
                XCTAssertEqual(item.status, .ok, "\(name), keep-metadata \(keepMetadata): \(item.error?.message ?? "")")
                XCTAssertNil(item.warnings, "\(name), keep-metadata \(keepMetadata)")
            }
        }
    }

    /// The XYB photo's thumbnail is the plain photo's within 3 levels per
    /// band (mean over the whole picture): its profile was applied, where
    /// ignoring it gives a green picture (about 40 levels off in red).
    func testTheXYBPhotoLooksLikeThePlainOne() async throws {
        for keepMetadata in [false, true] {
            let out = root + "/out-\(keepMetadata)"
            _ = try await run(keepMetadata: keepMetadata)
            for band in 0..<3 {
                let xyb = TestImages.mean(out + "/256/sample-xyb.jpg", band: band, x: 0, y: 0, w: 1, h: 1)
                let plain = TestImages.mean(out + "/256/sample.jpg", band: band, x: 0, y: 0, w: 1, h: 1)
                XCTAssertGreaterThanOrEqual(plain, 0)
                XCTAssertEqual(xyb, plain, accuracy: 3, "band \(band), keep-metadata \(keepMetadata)")
            }
        }
    }

    private func run(keepMetadata: Bool) async throws -> [String: ManifestItem] {
        let out = root + "/out-\(keepMetadata)"
        let outcome = try await runThumbs([Self.fixtures], out: out) {
            $0.output.keepMetadata = keepMetadata
            $0.maxFailures = .percent(100)
            $0.size([256])
        }
        let items = try XCTUnwrap(outcome.manifest?.items)
        return Dictionary(uniqueKeysWithValues: items.map { ($0.id, $0) })
    }
}
