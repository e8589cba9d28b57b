import CVideoShim
import Foundation
import XCTest
@testable import ThumbsKit

/// Poster frames of the clips in Tests/Fixtures/video (made by
/// scripts/make-video-fixtures.sh): displayed size and rotation, duration,
/// codec, frame rate and the frame's time, and the hostile ones failing
/// with a clear message.
final class VideoThumbnailerTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/video")

    static func path(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    private func poster(_ name: String, maxPixels: Int = 100_000_000) throws -> VideoThumbnailer.Poster {
        let file = try SourceFile(path: Self.path(name))
        return try VideoThumbnailer.decode(file, settings: nil, limits: DecodeLimits(maxPixels: maxPixels))
    }

    private func failure(_ name: String, maxPixels: Int = 100_000_000) -> ItemError? {
        do {
            _ = try poster(name, maxPixels: maxPixels)
            XCTFail("\(name) gave a poster frame")
            return nil
        } catch {
            return error as? ItemError
        }
    }

    func testEveryContainerGivesItsFrameAndFacts() throws {
        // name, format, displayed size, codec, fps, poster time (first
        // keyframe at or after min(1 s, 10% of the duration)).
        let expected: [(String, String, Int, Int, String, Double, Double, Double)] = [
            ("h264.mp4", "mp4", 160, 90, "h264", 10, 3, 1),
            ("hevc.mov", "mov", 160, 96, "hevc", 25, 2, 1),
            ("vp9.webm", "webm", 160, 90, "vp9", 10, 3, 1),
            ("h264.mkv", "mkv", 160, 90, "h264", 10, 3, 1),
            ("mpeg4.avi", "avi", 160, 90, "mpeg4", 10, 3, 1),
            ("h264.m2ts", "m2ts", 160, 90, "h264", 10, 3, 1),
        ]
        for (name, format, width, height, codec, fps, duration, at) in expected {
            let poster = try poster(name)
            XCTAssertEqual(poster.image.info.format, format, name)
            XCTAssertEqual(poster.image.info.width, width, name)
            XCTAssertEqual(poster.image.info.height, height, name)
            XCTAssertEqual(poster.image.info.orientation, 1, name)
            XCTAssertEqual(poster.image.decoder, .video, name)
            XCTAssertEqual(poster.facts.codec, codec, name)
            XCTAssertEqual(poster.facts.fps, fps, accuracy: 0.01, name)
            XCTAssertEqual(poster.facts.durationSeconds, duration, accuracy: 0.15, name)
            XCTAssertEqual(poster.facts.frameAtSeconds, at, accuracy: 0.01, name)
            XCTAssertNil(poster.facts.hdr, name)
        }
    }

    /// The container's duration, as players and ffprobe's `format.duration`
    /// give it, not the video stream's (3 s here); the poster frame is still
    /// placed on the stream's.
    func testTheDurationIsTheContainers() throws {
        let poster = try poster("longer-container.mp4")
        XCTAssertEqual(poster.facts.durationSeconds, 3.6, accuracy: 0.001)
        XCTAssertEqual(poster.facts.frameAtSeconds, 1, accuracy: 0.01)
        // Where the container gives none, the stream's (no-duration.mkv
        // has none at all, tested below).
        XCTAssertEqual(try self.poster("h264.mp4").facts.durationSeconds, 3, accuracy: 0.001)
    }

    func testTheDisplayMatrixTurnsTheFrame() throws {
        // Stored 160×90 with ffmpeg's `rotate=90` tag, which its display
        // matrix records as a quarter turn anticlockwise (ffprobe: rotation
        // 90; `ffmpeg -i` shows it so): EXIF 8, shown 90×160.
        let poster = try poster("rotated.mp4")
        XCTAssertEqual(poster.image.info.orientation, 8)
        XCTAssertEqual(poster.image.info.width, 90)
        XCTAssertEqual(poster.image.info.height, 160)
    }

    func testABlackStartMovesOnToTheFirstKeyframeWithAPicture() throws {
        // Keyframes every 0.5 s; black until 1.5 s.
        let poster = try poster("black-start.mp4")
        XCTAssertEqual(poster.facts.frameAtSeconds, 1.5, accuracy: 0.01)
    }

    func testAOneFrameClipGivesThatFrame() throws {
        let poster = try poster("one-frame.mp4")
        XCTAssertEqual(poster.facts.frameAtSeconds, 0)
        XCTAssertEqual(poster.image.info.width, 160)
    }

    /// Small thumbnails: the frame is scaled down as it is converted (as a
    /// JPEG is shrunk on load), while the item keeps the displayed size.
    func testTheFrameIsConvertedNoLargerThanTheSizesNeed() throws {
        var settings = OutputSettings()
        settings.sizes = [ThumbSize(width: 32, height: 32)]
        for (name, pixels) in [("h264.mp4", [40, 23]), ("rotated.mp4", [40, 23])] {
            let file = try SourceFile(path: Self.path(name))
            let poster = try VideoThumbnailer.decode(file, settings: settings, limits: DecodeLimits())
            guard case .pixels(let decoded) = poster.image.stage else { return XCTFail("no pixels") }
            XCTAssertEqual([decoded.width, decoded.height], pixels, "stored 160×90 at 1/4 still covers 32×18")
            XCTAssertEqual(poster.image.info.width * poster.image.info.height, 160 * 90, name)
        }
        settings.sizes = [ThumbSize(width: 1000, height: 1000)]
        let full = try VideoThumbnailer.decode(SourceFile(path: Self.path("h264.mp4")), settings: settings, limits: DecodeLimits())
        guard case .pixels(let decoded) = full.image.stage else { return XCTFail("no pixels") }
        XCTAssertEqual([decoded.width, decoded.height], [160, 90])
    }

    func testAClipWithNoDurationTakesItsFirstKeyframe() throws {
        let poster = try poster("no-duration.mkv")
        XCTAssertEqual(poster.facts.durationSeconds, 0)
        XCTAssertEqual(poster.facts.frameAtSeconds, 0)
        XCTAssertEqual(poster.image.info.width, 160)
    }

    /// A video is hashed by streaming and held nowhere: the digest of all
    /// its bytes, none held, and no size cap.
    func testVideosAreHashedByStreamingWithoutASizeCap() throws {
        let path = Self.path("h264.mp4")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let streamed = try SourceBytes(hashing: SourceFile(path: path), interrupt: nil)
        XCTAssertEqual(streamed.sha256(), SHA256Hex.of(Data(bytes)))
        XCTAssertEqual(streamed.count, bytes.count)
        XCTAssertEqual(streamed.file.peakBytesHeld, 0)
        let limits = SourceLimits(maxPixels: 1_000_000)
        XCTAssertNoThrow(try limits.check(SourceHeader(format: "mp4"), size: 5 << 30, name: "big.mp4"))
    }

    func testHDRClipsSayWhichTransfer() throws {
        XCTAssertEqual(try poster("hdr-pq.mp4").facts.hdr, "pq")
        XCTAssertEqual(try poster("hdr-hlg.mp4").facts.hdr, "hlg")
    }

    func testHostileFilesFailWithAClearMessage() {
        let cases: [(String, ItemError.Code, String)] = [
            ("audio-only.mp4", .unsupported, "no video stream"),
            ("hundred-streams.mkv", .unsupported, "101 streams"),
            ("truncated.mp4", .decode, "moov atom not found"),
            ("header-only.mov", .decode, "cannot read the container"),
        ]
        for (name, code, words) in cases {
            guard let error = failure(name) else { continue }
            XCTAssertEqual(error.code, code, "\(name): \(error.message)")
            XCTAssertTrue(error.message.contains(words), "\(name): \(error.message)")
        }
    }

    func testMaxPixelsRefusesTheFrameBeforeDecoding() throws {
        guard let error = failure("h264.mp4", maxPixels: 160 * 90 - 1) else { return }
        XCTAssertEqual(error.code, .tooLarge)
        XCTAssertTrue(error.message.contains("160×90"), error.message)
        // Refused on the stream's header: not a packet read, not a frame decoded.
        let fd = open(Self.path("h264.mp4"), O_RDONLY)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        let size = lseek(fd, 0, SEEK_END)
        var limits = shim_video_limits(max_pixels: 160 * 90 - 1, max_packets: 100, max_packet_bytes: 1 << 20, max_candidates: 4, threads: 1, shrink_for: nil, context: nil)
        var frame = shim_video_frame()
        var message = [CChar](repeating: 0, count: 256)
        let result = shim_video_poster(fd, Int64(size), &limits, &frame, &message, message.count)
        XCTAssertEqual(Int(result), Int(SHIM_VIDEO_TOO_LARGE))
        XCTAssertEqual(frame.packets_read, 0)
        XCTAssertEqual(frame.frames_decoded, 0)
        XCTAssertNil(frame.pixels)
    }

    func testThePacketBudgetEndsTheWalk() throws {
        // Two packets allowed: the keyframe at 1 s (packet 11) is never reached,
        // and the walk stops with the one at 0 s instead of reading on.
        let fd = open(Self.path("h264.mp4"), O_RDONLY)
        defer { close(fd) }
        let size = lseek(fd, 0, SEEK_END)
        var limits = shim_video_limits(max_pixels: 0, max_packets: 2, max_packet_bytes: 1 << 20, max_candidates: 4, threads: 1, shrink_for: nil, context: nil)
        var frame = shim_video_frame()
        var message = [CChar](repeating: 0, count: 256)
        let result = shim_video_poster(fd, Int64(size), &limits, &frame, &message, message.count)
        defer { free(frame.pixels) }
        XCTAssertLessThanOrEqual(frame.packets_read, 2)
        if Int(result) == Int(SHIM_VIDEO_OK) {
            XCTAssertEqual(frame.frame_time, 0)
        } else {
            XCTAssertTrue(String(cString: message).contains("packet budget"), String(cString: message))
        }
    }

    func testAFileCutAfterItsIndexGivesTheFrameItHoldsOrFails() {
        // The keyframe at 1 s lies past the cut: the one at 0 s serves.
        do {
            let poster = try poster("cut-after-index.mp4")
            XCTAssertEqual(poster.facts.frameAtSeconds, 0)
        } catch {
            XCTAssertEqual((error as? ItemError)?.code, .decode, "\(error)")
        }
    }
}
