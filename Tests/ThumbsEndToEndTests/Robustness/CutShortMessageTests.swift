import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Issue 39, §6: a file that is cut short, or packed, is failed with one
/// line that says so, not with a decoder's words that read like a failing
/// disk or a format puzzle. The files are the project's fixtures (Tests/
/// Fixtures), cut here.
final class CutShortMessageTests: XCTestCase {
    private static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    private func write(_ fixture: String, keeping count: (Data) -> Int, to path: String) throws {
        let bytes = try Data(contentsOf: Self.fixtures.appendingPathComponent(fixture))
        try bytes.prefix(count(bytes)).write(to: URL(fileURLWithPath: path))
    }

    /// The offset just past the `moov` box of an MP4 whose `moov` comes first.
    private static func endOfMoov(_ bytes: Data) -> Int {
        var at = 0
        while at + 8 <= bytes.count {
            let size = bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            if bytes[at + 4..<at + 8] == Data("moov".utf8) { return at + size }
            guard size >= 8 else { break }
            at += size
        }
        XCTFail("no moov box")
        return bytes.count
    }

    func testCutShortAndPackedFilesSayWhatIsWrongWithThem() async throws {
        let root = TestImages.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let source = root + "/in"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        try write("raw/CanonRaw.cr2", keeping: { $0.count / 2 }, to: source + "/half.cr2")
        try write("heif/heic-orientation-6.heic", keeping: { $0.count * 6 / 10 }, to: source + "/half.heic")
        try write("video/h264.mp4", keeping: Self.endOfMoov, to: source + "/index-only.mov")
        // A JPEG saved gzip-compressed under its own name.
        TestImages.write(root + "/photo.jpg", width: 40, height: 30)
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        gzip.arguments = ["gzip", "-n", root + "/photo.jpg"]
        try gzip.run()
        gzip.waitUntilExit()
        try FileManager.default.moveItem(atPath: root + "/photo.jpg.gz", toPath: source + "/packed.jpg")

        let outcome = try await runThumbs([source], out: root + "/out") {
            $0.size([64])
            $0.maxFailures = .percent(100)
        }
        let manifest = try XCTUnwrap(outcome.manifest)
        func message(_ id: String) -> String { manifest.item(id)?.error?.message ?? "(\(id) did not fail)" }

        let raw = message("half.cr2")
        XCTAssertTrue(raw.contains("CR2 file: it is cut short or damaged"), raw)
        XCTAssertFalse(raw.hasSuffix("Input/output error"), raw)
        let heic = message("half.heic")
        XCTAssertTrue(heic.contains("the file is cut short"), heic)
        XCTAssertFalse(heic.contains("bad seek"), heic)
        XCTAssertFalse(heic.contains("(2.100)"), heic)
        let video = message("index-only.mov")
        XCTAssertTrue(video.contains("the file is cut short: its index lists 30 frames of the video stream (h264)"), video)
        XCTAssertFalse(video.contains("no packets"), video)
        let packed = message("packed.jpg")
        XCTAssertTrue(packed.contains("it is gzip-compressed data, it starts 1f 8b 08 00"), packed)
        XCTAssertEqual(manifest.item("packed.jpg")?.error?.code, "unsupported")
    }
}
