import Foundation
import XCTest
@testable import ThumbsKit

/// The measures of `image_compare.c` against scikit-image's, on the fixed
/// pairs of Tests/Fixtures/compare: reference.json was computed once by
/// make-reference.py there (structural_similarity, rgb2lab,
/// deltaE_ciede2000), so the reference is not our code.
final class PixelDifferenceTests: XCTestCase {
    private struct Reference: Decodable {
        struct Pair: Decodable {
            var a: String
            var b: String
            var ssim: Double
            var meanDeltaE: Double
            var p99DeltaE: Double
        }
        var pairs: [Pair]
    }

    private let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().appendingPathComponent("../../Fixtures/compare").standardizedFileURL

    private func pixels(_ name: String) throws -> SRGBPixels {
        try SRGBPixels.decode(Data(contentsOf: folder.appendingPathComponent(name)))
    }

    func testMeasuresMatchScikitImageToThreeDecimals() throws {
        try VipsRuntime.start()
        let reference = try JSONDecoder().decode(Reference.self, from: Data(contentsOf: folder.appendingPathComponent("reference.json")))
        XCTAssertEqual(reference.pairs.count, 7)
        for pair in reference.pairs {
            let (measured, _) = try XCTUnwrap(PixelDifference.measure(pixels(pair.a), pixels(pair.b)))
            XCTAssertEqual(measured.ssim, pair.ssim, accuracy: 0.0005, "SSIM of \(pair.b)")
            XCTAssertEqual(measured.meanDeltaE, pair.meanDeltaE, accuracy: 0.0005, "mean ΔE of \(pair.b)")
            XCTAssertEqual(measured.p99DeltaE, pair.p99DeltaE, accuracy: 0.0005, "p99 ΔE of \(pair.b)")
        }
    }

    /// Images narrower than the 11-pixel window get one window over all of
    /// them: equal images are 1, and the map has one value a pixel.
    func testSmallImagesAndTheMap() throws {
        try VipsRuntime.start()
        let a = SRGBPixels(width: 4, height: 3, bytes: (0..<36).map { UInt8($0 * 7) })
        var b = a
        b.bytes[0] = 255
        let (same, _) = try XCTUnwrap(PixelDifference.measure(a, a))
        XCTAssertEqual(same.ssim, 1, accuracy: 1e-12)
        let (changed, map) = try XCTUnwrap(PixelDifference.measure(a, b, keepMap: true))
        XCTAssertLessThan(changed.ssim, 1)
        XCTAssertEqual(map?.count, 12)
        XCTAssertGreaterThan(map?[0] ?? 0, 10)
        XCTAssertEqual(map?[1..<12].allSatisfy { $0 == 0 }, true)
        XCTAssertNil(PixelDifference.measure(a, SRGBPixels(width: 3, height: 4, bytes: a.bytes)))
    }
}
