import CThumbsTestShim
import CVips
import CVipsShim
import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// `JPEGExtent`: where a JPEG with other bytes after it (a motion photo's
/// video, an MPO's second picture) ends. The scan must step over what may
/// follow an FF inside the picture: stuffed zeros, restart markers, and the
/// segments between progressive scans.
final class JPEGExtentTests: TemporaryFolderTestCase {
    /// Noise: its entropy-coded data is full of stuffed FF 00 pairs.
    private func noiseJPEG(_ name: String, options: String) throws -> [UInt8] {
        let width = 640, height = 480
        var state: UInt64 = 7
        let pixels = (0..<(width * height * 3)).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        let image = try XCTUnwrap(pixels.withUnsafeBytes {
            vips_image_new_from_memory_copy($0.baseAddress, $0.count, Int32(width), Int32(height), 3, VIPS_FORMAT_UCHAR)
        })
        defer { shim_unref(image) }
        let path = root + "/" + name
        XCTAssertEqual(shim_save_file(image, path + options), 0)
        return try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    }

    func testTheEndIsFoundPastStuffedBytesRestartMarkersAndScanSegments() throws {
        let kinds = [
            ("baseline.jpg", "[Q=95,strip]"),
            ("restarts.jpg", "[Q=95,strip,restart-interval=3]"),
            ("progressive.jpg", "[Q=95,strip,interlace]"),
        ]
        // Not an EOI at the file's end: the scan runs, across chunk borders
        // (the tail is longer than one scan chunk).
        let tail = [UInt8](repeating: 0x5A, count: JPEGExtent.scanChunk + 1000)
        for (name, options) in kinds {
            let jpeg = try noiseJPEG(name, options: options)
            XCTAssertGreaterThan(jpeg.count, JPEGExtent.scanChunk, "\(name) spans more than one chunk")
            let stuffed = zip(jpeg, jpeg.dropFirst()).filter { $0 == 0xFF && $1 == 0x00 }.count
            XCTAssertGreaterThan(stuffed, 100, name)
            if name == "restarts.jpg" {
                XCTAssertGreaterThan(zip(jpeg, jpeg.dropFirst()).filter { $0 == 0xFF && (0xD0...0xD7).contains($1) }.count, 10)
            }
            let path = root + "/with-tail-" + name
            try Data(jpeg + tail).write(to: URL(fileURLWithPath: path))
            let file = try SourceFile(path: path)
            XCTAssertEqual(JPEGExtent.find(.file(file))?.length, jpeg.count, name)
        }
    }
}
