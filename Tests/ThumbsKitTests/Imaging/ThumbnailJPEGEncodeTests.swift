import CVips
import CVipsShim
import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// jpeg_encode.c: a thumbnail in memory encoded by libjpeg directly must
/// give the bytes libvips' jpegsave ("strip") gives, and must leave every
/// image it cannot write the same way to libvips.
final class ThumbnailJPEGEncodeTests: XCTestCase {
    override func setUp() {
        TestImages.start()
    }

    /// Gradients with a ripple per band, so that chroma subsampling and the
    /// quantisation both show in the bytes.
    private func memoryImage(width: Int, height: Int, bands: Int, format: VipsBandFormat = VIPS_FORMAT_UCHAR) -> VipsImageRef {
        let sample = format == VIPS_FORMAT_USHORT ? 2 : 1
        var pixels = [UInt8](repeating: 0, count: width * height * bands * sample)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<bands {
                    let ripple = 50 * sin(Double(x) / (2.0 + Double(c)) + Double(y) / (5.0 - Double(c)))
                    let value = UInt8(max(0, min(255, 30 + Double(x * 120 / width + y * 70 / height) + ripple)))
                    pixels[((y * width + x) * bands + c) * sample] = value
                }
            }
        }
        let image = pixels.withUnsafeBytes {
            vips_image_new_from_memory_copy($0.baseAddress, $0.count, Int32(width), Int32(height), Int32(bands), format)
        }
        return VipsImageRef(image!)
    }

    private func libvipsJPEG(_ image: VipsImageRef, quality: Int) throws -> Data {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        XCTAssertEqual(shim_jpegsave(image.pointer, &buffer, &length, Int32(quality), 1), 0)
        let bytes = try XCTUnwrap(buffer)
        defer { shim_free(bytes) }
        return Data(bytes: bytes, count: length)
    }

    func testTheBytesAreJpegsaveBytesForEveryQualityAndShape() throws {
        let shapes = [(256, 192), (1, 1), (7, 5), (300, 17), (17, 300), (255, 171)]
        for (width, height) in shapes {
            for bands in [3, 1] {
                let image = memoryImage(width: width, height: height, bands: bands)
                for quality in [1, 50, 80, 89, 90, 100] {
                    let direct = try XCTUnwrap(
                        try ThumbnailEncoder.encodeInMemory(image, quality: quality),
                        "\(width)×\(height)×\(bands) is in memory: the direct encoder takes it"
                    )
                    XCTAssertEqual(direct, try libvipsJPEG(image, quality: quality), "\(width)×\(height), \(bands) bands, Q\(quality)")
                }
            }
        }
    }

    func testALargeThumbnailThatOutgrowsTheFirstBufferIsStillWhole() throws {
        // Noise compresses badly: at Q100 the JPEG is larger than the quarter
        // of the raw pixels the encoder starts with, so its buffer grows.
        let width = 640, height = 480
        var state: UInt32 = 12345
        let pixels = (0..<(width * height * 3)).map { _ -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        let image = VipsImageRef(pixels.withUnsafeBytes {
            vips_image_new_from_memory_copy($0.baseAddress, $0.count, Int32(width), Int32(height), 3, VIPS_FORMAT_UCHAR)
        }!)
        let direct = try XCTUnwrap(try ThumbnailEncoder.encodeInMemory(image, quality: 100))
        XCTAssertGreaterThan(direct.count, width * height * 3 / 4 + 4096)
        XCTAssertEqual(direct, try libvipsJPEG(image, quality: 100))
    }

    func testImagesJpegsaveWouldChangeAreLeftToLibvips() throws {
        let lazy = try memoryImage(width: 64, height: 48, bands: 3).apply("copy") { shim_copy($0, $1) }
        XCTAssertNil(try ThumbnailEncoder.encodeInMemory(lazy, quality: 80), "a lazy image is not read through libvips' sink here")
        XCTAssertNil(try ThumbnailEncoder.encodeInMemory(memoryImage(width: 64, height: 48, bands: 4), quality: 80), "alpha")
        XCTAssertNil(try ThumbnailEncoder.encodeInMemory(memoryImage(width: 64, height: 48, bands: 2), quality: 80), "grey with alpha")
        XCTAssertNil(
            try ThumbnailEncoder.encodeInMemory(memoryImage(width: 64, height: 48, bands: 3, format: VIPS_FORMAT_USHORT), quality: 80),
            "16-bit"
        )
        let lab = memoryImage(width: 64, height: 48, bands: 3)
        lab.pointer.pointee.Type = VIPS_INTERPRETATION_LAB
        XCTAssertNil(try ThumbnailEncoder.encodeInMemory(lab, quality: 80), "jpegsave would convert LAB to sRGB first")
    }

    func testTheRendererWritesTheSameJPEGEitherWay() throws {
        // Through ThumbnailEncoder.finish, as every size of a direct decode
        // goes: the direct bytes, and jpegsave's for a copy it cannot read.
        let image = memoryImage(width: 256, height: 170, bands: 3)
        let settings = OutputSettings(sizes: [ThumbSize(width: 256, height: 256)], format: .jpeg, quality: 82)
        let plan = ThumbnailGeometry(sourceWidth: 2560, sourceHeight: 1700, box: settings.sizes[0], fit: .inside, enlarge: false)
        let finished = try ThumbnailEncoder.finish(image, size: settings.sizes[0], plan: plan, settings: settings)
        XCTAssertEqual(finished.data, try libvipsJPEG(image, quality: 82))
        XCTAssertEqual(finished.format, .jpeg)
        XCTAssertEqual([plan.resizedWidth, plan.resizedHeight], [256, 170])
        XCTAssertEqual([finished.width, finished.height], [256, 170])
    }
}
