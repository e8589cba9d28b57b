import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Whole runs over a folder that holds videos (Tests/Fixtures/video): the
/// manifest's `video` object, stats.json's `video` decoder, a duplicate
/// copy, broken files failing alone, a re-run finding everything unchanged,
/// and HDR clips tone-mapped to values computed here from the clips' own
/// signal levels (scripts/video-hdr-patches.py), not by the code under test.
final class VideoRunTests: TemporaryFolderTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/video")

    private func copy(_ names: [String: String], to folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (name, target) in names {
            try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent(name).path, toPath: folder + "/" + target)
        }
    }

    func testAFolderWithVideos() async throws {
        let source = root + "/in"
        try copy(["h264.mp4": "clip.mp4", "rotated.mp4": "upright.mp4", "hevc.mov": "hevc.mov", "black-start.mp4": "fade.mp4"],
                 to: source)
        try copy(["h264.mp4": "same-clip.mp4", "audio-only.mp4": "song.mp4", "truncated.mp4": "broken.mov"], to: source + "/more")
        TestImages.write(source + "/photo.jpg", width: 320, height: 240)
        let outcome = try await runThumbs([source], out: root + "/out") {
            $0.size([128])
            $0.maxFailures = .count(2)
        }
        XCTAssertEqual(outcome.status, .success)
        let manifest = try readManifest(root + "/out")
        let clip = try XCTUnwrap(manifest.item("clip.mp4"))
        XCTAssertEqual(clip.status, .ok)
        XCTAssertEqual(clip.format, "mp4")
        XCTAssertEqual([clip.width, clip.height], [160, 90])
        XCTAssertEqual(clip.video, VideoFacts(durationSeconds: 3, codec: "h264", fps: 10, frameAtSeconds: 1))
        XCTAssertEqual(TestImages.header(root + "/out/128/clip.jpg").map { [$0.width, $0.height] }, [128, 72])
        // Turned by its display matrix: shown upright.
        let upright = try XCTUnwrap(manifest.item("upright.mp4"))
        XCTAssertEqual([upright.width, upright.height], [90, 160])
        XCTAssertEqual(TestImages.header(root + "/out/128/upright.jpg").map { [$0.width, $0.height] }, [72, 128])
        XCTAssertEqual(upright.orientation, 8)
        // Its matrix turns it a quarter anticlockwise, as `ffmpeg -i upright.mp4
        // out.png` shows it: the stored frame's right edge is the top. Over a
        // grid, the upright poster matches the unturned one turned that way,
        // and not turned the other way.
        var anticlockwise = 0.0, clockwise = 0.0
        for x in stride(from: 0.0, to: 0.8, by: 0.2) {
            for y in stride(from: 0.0, to: 0.8, by: 0.2) {
                for band in 0..<3 {
                    let shown = TestImages.mean(root + "/out/128/upright.jpg", band: band, x: x, y: y, w: 0.2, h: 0.2)
                    anticlockwise += abs(shown - TestImages.mean(root + "/out/128/clip.jpg", band: band, x: 0.8 - y, y: x, w: 0.2, h: 0.2))
                    clockwise += abs(shown - TestImages.mean(root + "/out/128/clip.jpg", band: band, x: y, y: 0.8 - x, w: 0.2, h: 0.2))
                }
            }
        }
        XCTAssertLessThan(anticlockwise * 3, clockwise, "turned the wrong way")
        XCTAssertLessThan(anticlockwise / 48, 12, "mean difference per region and band")
        XCTAssertEqual(manifest.item("hevc.mov")?.video?.codec, "hevc")
        XCTAssertEqual(manifest.item("hevc.mov")?.format, "mov")
        // The black start is skipped: the poster has a picture.
        XCTAssertEqual(manifest.item("fade.mp4")?.video?.frameAtSeconds, 1.5)
        let brightness = (0..<3).map { TestImages.mean(root + "/out/128/fade.jpg", band: $0, x: 0, y: 0, w: 1, h: 1) }
        XCTAssertGreaterThan(brightness.reduce(0, +) / 3, 60, "the poster frame is dark: \(brightness)")
        // Same bytes: decoded once, facts and outputs of their own.
        let same = try XCTUnwrap(manifest.item("more/same-clip.mp4"))
        XCTAssertEqual(same.status, .duplicate)
        XCTAssertEqual(same.video, clip.video)
        XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/out/128/more/same-clip.jpg"))
        // Broken ones fail alone, with what is wrong.
        let song = try XCTUnwrap(manifest.item("more/song.mp4"))
        XCTAssertEqual(song.status, .failed)
        XCTAssertTrue(song.error?.message.contains("no video stream") ?? false, "\(String(describing: song.error))")
        let broken = try XCTUnwrap(manifest.item("more/broken.mov"))
        XCTAssertEqual(broken.error?.code, "decode")
        XCTAssertTrue(broken.error?.message.contains("moov atom not found") ?? false, "\(String(describing: broken.error))")
        XCTAssertEqual(manifest.item("photo.jpg")?.video, nil)
        // stats.json: the decode path and the formats.
        let stats = try JSONDecoder().decode(Statistics.self, from: Data(contentsOf: URL(fileURLWithPath: root + "/out/stats.json")))
        XCTAssertEqual(stats.decoders["video"], 4)
        XCTAssertEqual(stats.formats.input["mp4"], 4, "clip, upright, fade and the duplicate")
        XCTAssertEqual(stats.formats.input["mov"], 1)

        // report.html: video tiles carry a play mark and the duration; photos do not.
        let report = try String(contentsOfFile: root + "/out/report.html", encoding: .utf8)
        // (Tiles of look-alike groups come twice.)
        XCTAssertGreaterThanOrEqual(report.components(separatedBy: "<span class=play>▶ 0:03</span>").count - 1, 4, "clip, upright, fade, same-clip")
        XCTAssertGreaterThanOrEqual(report.components(separatedBy: "<span class=play>▶ 0:02</span>").count - 1, 1, "hevc.mov")
        let photoTile = try XCTUnwrap(report.range(of: "<b>photo.jpg</b>"))
        let tileStart = try XCTUnwrap(report.range(of: "<li", options: .backwards, range: report.startIndex..<photoTile.lowerBound))
        XCTAssertFalse(report[tileStart.lowerBound..<photoTile.lowerBound].contains("play"), "a photo with a play mark")
        XCTAssertEqual(ReportWriter.duration(0.1), "0:01")
        XCTAssertEqual(ReportWriter.duration(759.2), "12:40")
        XCTAssertEqual(ReportWriter.duration(3729), "1:02:09")

        // A second run: nothing decoded again, the facts kept.
        let again = try await runThumbs([source], out: root + "/out") {
            $0.size([128])
            $0.maxFailures = .count(2)
        }
        XCTAssertEqual(again.status, .success)
        let second = try readManifest(root + "/out")
        XCTAssertEqual(second.item("clip.mp4")?.status, .unchanged)
        XCTAssertEqual(second.item("clip.mp4")?.video, clip.video)
        XCTAssertEqual(second.item("more/same-clip.mp4")?.status, .unchanged)
    }

    /// sRGB byte of a linear value (IEC 61966-2-1).
    private func srgb(_ linear: Double) -> Double {
        let v = min(1, max(0, linear))
        return 255 * (v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055)
    }

    /// The HDR clips' patches (scripts/video-hdr-patches.py): a dark grey
    /// below the tone curve's knee keeps its light relative to reference
    /// white (203 nits, BT.2408); reference white lands near SDR white; the
    /// peak is white; BT.2020 red stays red. Neutral stays neutral.
    func testHDRPatchesLandWhereTheirLightSays() async throws {
        let source = root + "/in"
        try copy(["hdr-pq.mp4": "pq.mp4", "hdr-hlg.mp4": "hlg.mp4"], to: source)
        let outcome = try await runThumbs([source], out: root + "/out") {
            $0.size([128])
            $0.output.format = .png
        }
        XCTAssertEqual(outcome.status, .success)
        // PQ's dark patch is 10 nits; HLG's is signal 0.25: scene light
        // 0.25²/3, displayed at 1000 nits × Ys^0.2 (BT.2100's OOTF, γ 1.2).
        let hlgDark = 1000 * pow(0.25 * 0.25 / 3, 1.2)
        for (name, darkNits) in [("pq", 10.0), ("hlg", hlgDark)] {
            let file = root + "/out/128/\(name).png"
            func patch(_ x: Double, _ y: Double) -> [Double] {
                (0..<3).map { TestImages.mean(file, band: $0, x: x, y: y, w: 0.25, h: 0.25) }
            }
            let dark = patch(0.125, 0.125), white = patch(0.625, 0.125), peak = patch(0.125, 0.625), red = patch(0.625, 0.625)
            for (label, p) in [("dark", dark), ("white", white), ("peak", peak)] {
                XCTAssertLessThan(p.max()! - p.min()!, 3, "\(name) \(label) is tinted: \(p)")
            }
            XCTAssertEqual(dark[1], srgb(darkNits / 203), accuracy: 4, "\(name) dark: \(dark)")
            XCTAssertTrue((200...245).contains(white[1]), "\(name) reference white: \(white)")
            XCTAssertGreaterThan(peak[1], 250, "\(name) peak: \(peak)")
            XCTAssertGreaterThan(red[0], 150, "\(name) red: \(red)")
            XCTAssertLessThan(red[1], 20, "\(name) red: \(red)")
            XCTAssertLessThan(red[2], red[0] / 2, "\(name) red: \(red)")
        }
        let manifest = try readManifest(root + "/out")
        XCTAssertEqual(manifest.item("pq.mp4")?.video?.hdr, "pq")
        XCTAssertEqual(manifest.item("hlg.mp4")?.video?.hdr, "hlg")
    }

    /// An SDR clip and its PQ and HLG twins made by FFmpeg's zscale
    /// (scripts/make-video-fixtures.sh; the HLG one with BT.2100's OOTF on
    /// luminance, agamma=0): each twin's poster frame keeps at least 0.85 of
    /// the SDR frame's colourfulness, its brightness within 0.9 to 1.1
    /// times, and each of the seven bars its hue within 5 degrees (issue 36).
    func testPQAndHLGTwinsLookLikeTheirSDRClip() async throws {
        let source = root + "/in"
        try copy(["twin-sdr.mp4": "sdr.mp4", "twin-pq.mp4": "pq.mp4", "twin-hlg.mp4": "hlg.mp4"], to: source)
        let outcome = try await runThumbs([source], out: root + "/out") {
            $0.size([320])
            $0.output.format = .png
        }
        XCTAssertEqual(outcome.status, .success)
        func bars(_ name: String) -> [[Double]] {
            (0..<7).map { bar in
                (0..<3).map {
                    TestImages.mean(root + "/out/320/\(name).png", band: $0, x: 0.125 + (Double(bar) + 0.2) * 0.75 / 7, y: 0.1,
                                    w: 0.6 * 0.75 / 7, h: 0.4)
                }
            }
        }
        let sdr = bars("sdr")
        for name in ["pq", "hlg"] {
            let twin = bars(name)
            let colourfulness = HDRTwinTests.colourfulness(twin) / HDRTwinTests.colourfulness(sdr)
            XCTAssertGreaterThanOrEqual(colourfulness, 0.85, "\(name): \(twin) against \(sdr)")
            let brightness = twin.joined().reduce(0, +) / sdr.joined().reduce(0, +)
            XCTAssertEqual(brightness, 1, accuracy: 0.1, "\(name): \(twin) against \(sdr)")
            for (made, wanted) in zip(twin, sdr) {
                guard let wantedHue = HDRTwinTests.hue(wanted) else { continue }
                let madeHue = try XCTUnwrap(HDRTwinTests.hue(made), "\(name): \(made) became grey")
                var difference = abs(madeHue - wantedHue).truncatingRemainder(dividingBy: 360)
                if difference > 180 { difference = 360 - difference }
                XCTAssertLessThanOrEqual(difference, 5, "\(name): \(made) against \(wanted)")
            }
        }
    }
}
