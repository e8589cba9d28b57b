import CThumbsTestShim
import CVips
import CVipsShim
import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// `shim_autorot` turns an 8-bit image held in memory itself (no libvips
/// sink): for every orientation, the pixels, size, resolution and metadata
/// must be what `vips_autorot` gives.
final class ShimAutorotTests: XCTestCase {
    override func setUp() {
        TestImages.start()
    }

    private func memoryImage(width: Int, height: Int, bands: Int, seed: UInt64) -> VipsImageRef {
        var state = seed
        let pixels = (0..<(width * height * bands)).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        let image = pixels.withUnsafeBytes {
            vips_image_new_from_memory_copy($0.baseAddress, $0.count, Int32(width), Int32(height), Int32(bands), VIPS_FORMAT_UCHAR)
        }!
        image.pointee.Xres = 2.5
        image.pointee.Yres = 4.0
        return VipsImageRef(image)
    }

    /// Every metadata item's name and value, as text.
    private func metadata(_ image: VipsImageRef) -> [String: String] {
        var result: [String: String] = [:]
        guard let fields = vips_image_get_fields(image.pointer) else { return result }
        defer { g_strfreev(fields) }
        var i = 0
        while let name = fields[i] {
            var text: UnsafeMutablePointer<CChar>?
            if vips_image_get_as_string(image.pointer, name, &text) == 0, let text {
                result[String(cString: name)] = String(cString: text)
                g_free(text)
            }
            i += 1
        }
        return result
    }

    func testEveryOrientationGivesVipsAutorotsImage() throws {
        for (width, height, bands) in [(7, 5, 3), (64, 48, 1), (33, 70, 4), (1, 9, 2)] {
            for orientation in 1...8 {
                let stored = memoryImage(width: width, height: height, bands: bands, seed: UInt64(orientation * 100 + bands))
                vips_image_set_int(stored.pointer, VIPS_META_ORIENTATION, Int32(orientation))
                vips_image_set_string(stored.pointer, "exif-ifd0-Orientation", "\(orientation) (stored)")
                var reference: UnsafeMutablePointer<VipsImage>?
                XCTAssertEqual(test_vips_autorot(stored.pointer, &reference), 0)
                let expected = VipsImageRef(try XCTUnwrap(reference))
                let turned = try stored.apply("autorot") { shim_autorot($0, $1) }
                let label = "\(width)×\(height)×\(bands), orientation \(orientation)"
                XCTAssertEqual([turned.width, turned.height, turned.bands], [expected.width, expected.height, expected.bands], label)
                XCTAssertEqual(try JPEGDCConformanceTests.pixels(turned), try JPEGDCConformanceTests.pixels(expected), label)
                XCTAssertEqual(turned.pointer.pointee.Xres, expected.pointer.pointee.Xres, label)
                XCTAssertEqual(turned.pointer.pointee.Yres, expected.pointer.pointee.Yres, label)
                XCTAssertEqual(turned.pointer.pointee.Type, expected.pointer.pointee.Type, label)
                var expectedFields = metadata(expected), turnedFields = metadata(turned)
                // Not compared: where the pixels live, and the origin
                // offsets libvips' flips and turns move, which nothing
                // after the turn reads.
                for key in ["filename", "xoffset", "yoffset"] {
                    expectedFields[key] = nil
                    turnedFields[key] = nil
                }
                let differing = Set(turnedFields.keys).union(expectedFields.keys).filter { turnedFields[$0] != expectedFields[$0] }
                XCTAssertEqual(differing.sorted().map { "\($0): \(turnedFields[$0] ?? "-") vs \(expectedFields[$0] ?? "-")" }, [], label)
                XCTAssertEqual(turned.orientation, 1, label)
            }
        }
    }

    func testALazyImageIsLeftToLibvips() throws {
        let stored = memoryImage(width: 20, height: 10, bands: 3, seed: 9)
        vips_image_set_int(stored.pointer, VIPS_META_ORIENTATION, 6)
        let lazy = try stored.apply("copy") { shim_copy($0, $1) }
        let turned = try lazy.apply("autorot") { shim_autorot($0, $1) }
        XCTAssertEqual([turned.width, turned.height], [10, 20])
        var length = 0
        XCTAssertNil(shim_image_memory(turned.pointer, &length), "libvips' lazy result, not a buffer of ours")
    }
}
