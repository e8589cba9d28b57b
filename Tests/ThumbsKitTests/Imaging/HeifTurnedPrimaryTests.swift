import CThumbsTestShim
import CVips
import CVipsShim
import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// A HEIF primary image stored turned (irot) is decoded as stored, resized,
/// and only then turned (`heif_primary.c`: libheif 1.15 would turn the
/// full-size planes into a second full-size copy). The picture must be the
/// one libheif's own turning gives: the reference is libvips's loader
/// (libheif applies every transformation) resized by the same resampler.
/// A mirrored image (imir) is left to libheif, and must match too.
final class HeifTurnedPrimaryTests: TemporaryFolderTestCase {
    /// A 600×400 picture (as stored) that no turn or mirror maps onto
    /// itself: red grows to the right, green downwards, blue in one corner.
    private static let stored: (width: Int, height: Int, rgb: [UInt8]) = {
        let (w, h) = (600, 400)
        let rgb = TestImages.rgb(width: w, height: h) { x, y in
            (UInt8(x * 255 / w), UInt8(y * 255 / h), x < w / 4 && y < h / 3 ? 240 : 20)
        }
        return (w, h, rgb)
    }()

    /// libvips's loader (libheif turns and mirrors the full-size image),
    /// then the resampler, to `width` × `height`.
    private func reference(_ path: String, width: Int, height: Int) throws -> [UInt8] {
        _ = shim_modules_load()
        var out: UnsafeMutablePointer<VipsImage>?
        XCTAssertEqual(shim_open_file(path, &out), 0)
        let image = VipsImageRef(try XCTUnwrap(out))
        XCTAssertEqual(Int(vips_image_get_bands(image.pointer)), 3)
        var size = 0
        let memory = try XCTUnwrap(vips_image_write_to_memory(image.pointer, &size))
        defer { g_free(memory) }
        let (w, h) = (Int(vips_image_get_width(image.pointer)), Int(vips_image_get_height(image.pointer)))
        var resized = [UInt8](repeating: 0, count: width * height * 3)
        let status = resized.withUnsafeMutableBufferPointer {
            shim_resample_u8(memory.assumingMemoryBound(to: UInt8.self), Int32(w), Int32(h), 3, $0.baseAddress, Int32(width), Int32(height))
        }
        XCTAssertEqual(status, 0)
        return resized
    }

    private func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return 0 }
        let sum = zip(a, b).reduce(0.0) { $0 + Double((Int($1.0) - Int($1.1)) * (Int($1.0) - Int($1.1))) }
        return sum == 0 ? .infinity : 10 * log10(255 * 255 / (sum / Double(a.count)))
    }

    /// Each EXIF-style orientation, written as irot (and imir for 2 and 5),
    /// at half the displayed size: the same picture as libheif's turning.
    /// The resizes run in the other order (rows then columns of the stored
    /// picture), so a few levels may differ; a wrong turn is far off.
    func testATurnedPrimaryImageIsTheOneLibheifTurns() throws {
        let (w, h, rgb) = Self.stored
        for orientation: Int32 in [1, 3, 6, 8, 2, 5] {
            let path = root + "/turned-\(orientation).heic"
            XCTAssertEqual(test_write_heic(path, rgb, Int32(w), Int32(h), orientation, nil, 0, 0, 1, 0), 0)
            let sideways = orientation >= 5
            let (dw, dh) = sideways ? (h / 2, w / 2) : (w / 2, h / 2)
            let ours = try HeifThumbnail.primaryRGB(path, width: dw, height: dh)
            let libheifs = try reference(path, width: dw, height: dh)
            XCTAssertGreaterThan(psnr(ours, libheifs), 40, "orientation \(orientation)")
        }
    }
}
