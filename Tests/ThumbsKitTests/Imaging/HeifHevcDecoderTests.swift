import CHeifShim
import CThumbsTestShim
import CVipsShim
import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// A HEIC's primary image is decoded by FFmpeg's HEVC decoder through a
/// libheif plugin (`heif_hevc_ffmpeg.c`): every tile of a phone's grid goes
/// through it, and the picture is libde265's, sample for sample.
final class HeifHevcDecoderTests: XCTestCase {
    private static let phone = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/heif/heic-orientation-6.heic")

    /// The primary image of `path` (the fixture) at `width` × `height` by
    /// `hevc` with `threads`, as bytes.
    private func decodePrimary(
        _ hevc: Int32, path: String = phone.path, width: Int = 768, height: Int = 1024, threads: Int32 = 1,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> [UInt8] {
        try HeifThumbnail.primaryRGB(path, width: width, height: height, hevc: hevc, threads: threads, file: file, line: line)
    }

    /// The iPhone fixture is a grid of 6×8 tiles of 512²: all 48 are
    /// FFmpeg's, and the resized picture is the one libde265's tiles give.
    func testFFmpegDecodesEveryTileWithLibde265sSamples() throws {
        let before = shim_heif_ffmpeg_pictures_decoded()
        let ffmpeg = try decodePrimary(Int32(SHIM_HEIF_HEVC_FFMPEG))
        XCTAssertGreaterThanOrEqual(shim_heif_ffmpeg_pictures_decoded() - before, 48, "the tiles went through FFmpeg")
        let libde265 = try decodePrimary(Int32(SHIM_HEIF_HEVC_LIBDE265))
        XCTAssertEqual(ffmpeg.count, libde265.count)
        let differing = zip(ffmpeg, libde265).filter { $0 != $1 }.count
        XCTAssertEqual(differing, 0, "samples that differ from libde265's")
    }

    /// A decode FFmpeg fails (here its plugin fails every tile) runs again
    /// with libde265: the picture is there all the same, libde265's own.
    func testAFailedFFmpegDecodeIsDecodedAgainByLibde265() throws {
        let retried = try decodePrimary(Int32(SHIM_HEIF_HEVC_FFMPEG_FAILING))
        let libde265 = try decodePrimary(Int32(SHIM_HEIF_HEVC_LIBDE265))
        XCTAssertEqual(retried.count, 768 * 1024 * 3)
        XCTAssertTrue(retried == libde265, "the retry's picture is libde265's")
    }

    /// The plugin's framing: each 4-byte length becomes a start code; a
    /// length of 0, or one past the end, refuses the bytes.
    func testLengthPrefixedNALUnitsBecomeAnnexB() {
        var good: [UInt8] = [0, 0, 0, 2, 0x40, 0x01, 0, 0, 0, 1, 0x26]
        XCTAssertEqual(shim_hevc_length_prefixed_to_annexb(&good, good.count), 0)
        XCTAssertEqual(good, [0, 0, 0, 1, 0x40, 0x01, 0, 0, 0, 1, 0x26])
        for var bad: [UInt8] in [[0, 0, 0, 3, 0x40, 0x01], [0, 0, 0, 0], [0, 0, 0, 0, 0x40], [0, 0, 0, 1, 0x40, 0, 0], [0, 0, 1]] {
            XCTAssertEqual(shim_hevc_length_prefixed_to_annexb(&bad, bad.count), -1, "\(bad)")
        }
    }

    /// An image that is one HEVC picture (libheif's encoder, x265's
    /// wavefronts), not a grid: FFmpeg decodes it on the decode's two
    /// threads (`heif_ffmpeg_picture_threads`), and the picture is still
    /// libde265's, sample for sample.
    func testAOnePictureHEICDecodedOnTwoThreadsHasLibde265sSamples() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("heif-one-picture-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("one.heic").path
        let (width, height) = (1536, 1024)
        // Gradients with a ripple: every CTU row has something to code.
        let rgb = TestImages.rgb(width: width, height: height) { x, y in
            (UInt8(x * 255 / width), UInt8(y * 255 / height), UInt8((x * 7 + y * 13) % 256))
        }
        XCTAssertEqual(test_write_heic(path, rgb, Int32(width), Int32(height), 1, nil, 0, 0, 1, 0), 0)
        let before = shim_heif_ffmpeg_pictures_decoded()
        let ffmpeg = try decodePrimary(Int32(SHIM_HEIF_HEVC_FFMPEG), path: path, width: 768, height: 512, threads: 2)
        XCTAssertEqual(shim_heif_ffmpeg_pictures_decoded() - before, 1, "one picture, through FFmpeg")
        let libde265 = try decodePrimary(Int32(SHIM_HEIF_HEVC_LIBDE265), path: path, width: 768, height: 512, threads: 2)
        XCTAssertEqual(ffmpeg.count, 768 * 512 * 3)
        XCTAssertTrue(ffmpeg == libde265, "samples that differ from libde265's")
    }
}
