import CHeifShim
import XCTest
@testable import ThumbsKit

/// The tests' shorthand for the reduced decode of a HEIF's primary image
/// (`shim_heif_decode_primary_reduced`, which `HeifThumbnail.decodePrimary`
/// calls), with the HEVC decoder chosen (HeifHevcDecoderTests compares
/// FFmpeg's with libde265's; HeifTurnedPrimaryTests checks the turn).
extension HeifThumbnail {
    /// The primary image of the file at `path`, decoded by `hevc` on
    /// `threads` and resized to `width` × `height` (as displayed), as RGB
    /// bytes; the status, the size and the three bands are checked, and a
    /// failed decode gives no bytes.
    static func primaryRGB(
        _ path: String, width: Int, height: Int, hevc: Int32 = Int32(SHIM_HEIF_HEVC_FFMPEG), threads: Int32 = 1,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> [UInt8] {
        let source = try SourceFile(path: path)
        var pixels = shim_jpeg_pixels()
        var message = [CChar](repeating: 0, count: 256)
        let status = try HeifInput.with(.file(source)) { input throws(ItemError) in
            shim_heif_decode_primary_reduced(&input, Int32(width), Int32(height), threads, hevc, &pixels, &message, message.count)
        }
        defer { shim_jpeg_pixels_free(&pixels) }
        XCTAssertEqual(status, 0, String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), file: file, line: line)
        XCTAssertEqual([pixels.width, pixels.height, Int(pixels.bands)], [width, height, 3], "the size as displayed", file: file, line: line)
        guard status == 0, let bytes = pixels.pixels else { return [] }
        return Array(UnsafeBufferPointer(start: bytes, count: pixels.width * pixels.height * Int(pixels.bands)))
    }
}
