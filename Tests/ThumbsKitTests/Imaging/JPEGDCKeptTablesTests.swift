import CThumbsTestShim
import CVips
import CVipsShim
import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// jpeg_dc.c keeps each thread's built Huffman tables for its next decode
/// and builds a table again only when its DHT differs (`build_kept`).
/// Files with optimised tables (each its own) decoded one after another
/// on one thread must each come out as libjpeg decodes them alone.
final class JPEGDCKeptTablesTests: TemporaryFolderTestCase {
    /// A 4:4:4 JPEG with Huffman tables optimised for its own content.
    private func optimisedJPEG(seed: UInt64, smooth: Bool) throws -> [UInt8] {
        let width = 320, height = 240
        var state = seed
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for i in pixels.indices {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let noise = Int(truncatingIfNeeded: state >> 58)
            let x = (i / 3) % width, y = (i / 3) / width
            pixels[i] = UInt8(truncatingIfNeeded: smooth ? (x + y) / 3 + noise : Int(truncatingIfNeeded: state >> 56))
        }
        let image = try XCTUnwrap(pixels.withUnsafeBytes {
            vips_image_new_from_memory_copy($0.baseAddress, $0.count, Int32(width), Int32(height), 3, VIPS_FORMAT_UCHAR)
        })
        defer { shim_unref(image) }
        let path = root + "/\(seed).jpg"
        XCTAssertEqual(shim_save_file(image, path + "[Q=95,strip,optimize-coding]"), 0)
        return try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The DHT segments of a JPEG, as bytes.
    private func huffmanTables(_ jpeg: [UInt8]) -> [UInt8] {
        JPEGDCConformanceTests.markers(jpeg, 0xC4).flatMap { at in
            Array(jpeg[at..<(at + 2 + (Int(jpeg[at + 2]) << 8 | Int(jpeg[at + 3])))])
        }
    }

    func testEachFileIsDecodedWithItsOwnTablesAfterAnother() throws {
        let files = [try optimisedJPEG(seed: 1, smooth: true), try optimisedJPEG(seed: 2, smooth: false), try optimisedJPEG(seed: 3, smooth: true)]
        XCTAssertEqual(Set(files.map(huffmanTables)).count, 3, "three different table sets")
        for shrink in [8, 4] {
            let references = try files.map { try XCTUnwrap(JPEGDCConformanceTests.libvips($0, shrink: shrink)) }
            // Each after each other one, and each after itself.
            for order in [[0, 1, 2], [2, 1, 0], [1, 1, 0, 0, 2]] {
                for index in order {
                    let decoded = try XCTUnwrap(files[index].withUnsafeBytes { DirectJPEG.decode($0, shrink: shrink) })
                    XCTAssertEqual(decoded.decoder, .jpegDC, "file \(index) at 1/\(shrink)")
                    let mine = try JPEGDCConformanceTests.pixels(try XCTUnwrap(decoded.image()))
                    let reference = references[index].pixels
                    XCTAssertEqual(mine.count, reference.count)
                    // 1/8 is libjpeg's own arithmetic; 1/4 keeps the lowest
                    // AC terms, so it is close. Another file's tables give
                    // garbage (about 10 dB) or a refusal.
                    XCTAssertGreaterThanOrEqual(JPEGDCConformanceTests.psnr(mine, reference), shrink == 8 ? 99 : 30,
                                                "file \(index) at 1/\(shrink) in order \(order)")
                }
            }
        }
    }
}
