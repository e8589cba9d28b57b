import Foundation
import ThumbsTestSupport
import XCTest

/// FFmpeg's libraries and libheif are not linked: `CLoadOnUse` opens them
/// when an item first needs one. A run over JPEGs opens neither; a video
/// opens FFmpeg and a HEIC opens libheif, and both still decode. glibc's
/// loader names every object it opens on stderr under `LD_DEBUG=files`, the
/// executable's own libraries at start as well as those opened later.
final class LoadOnUseLibrariesTests: TemporaryFolderTestCase {
    private static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    private func run(_ folder: String, out: String) throws -> ThumbsProcess.Result {
        var environment = ProcessInfo.processInfo.environment
        environment["LD_DEBUG"] = "files"
        return try ThumbsProcess.capture(["run", folder, "--out", out, "--progress", "never"], environment: environment)
    }

    /// The sonames the run's process opened, of those named.
    private func opened(_ result: ThumbsProcess.Result, _ names: [String]) -> Set<String> {
        var found = Set<String>()
        for line in result.stderr.split(whereSeparator: \.isNewline) where line.contains("file=") {
            for name in names where line.contains("file=\(name).so") || line.contains("/\(name).so") {
                found.insert(name)
            }
        }
        return found
    }

    private let loadedOnUse = ["libavformat", "libavcodec", "libswscale", "libheif"]

    private func folder(_ name: String, with fixture: String) throws -> String {
        let dir = root + "/" + name
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let source = Self.fixtures.appendingPathComponent(fixture).path
        try FileManager.default.copyItem(atPath: source, toPath: dir + "/" + (fixture as NSString).lastPathComponent)
        return dir
    }

    func testARunOverJPEGsOpensNeitherFFmpegNorLibheif() throws {
        try ThumbsProcess.requireExecutable()
        TestImages.write(root + "/jpeg/a.jpg", width: 64, height: 48)
        let result = try run(root + "/jpeg", out: root + "/out-jpeg")
        XCTAssertEqual(result.status, 0, result.stdout)
        XCTAssertEqual(opened(result, loadedOnUse), [], "a JPEG run opened libraries it does not need")
    }

    func testAVideoOpensFFmpegAndAHEICOpensLibheif() throws {
        try ThumbsProcess.requireExecutable()
        let video = try run(try folder("video", with: "video/h264.mp4"), out: root + "/out-video")
        XCTAssertEqual(video.status, 0, video.stdout)  // 0: every item ok
        XCTAssertTrue(opened(video, loadedOnUse).isSuperset(of: ["libavformat", "libavcodec", "libswscale"]))

        let heic = try run(try folder("heic", with: "heif/heic-orientation-6.heic"), out: root + "/out-heic")
        XCTAssertEqual(heic.status, 0, heic.stdout)
        XCTAssertTrue(opened(heic, loadedOnUse).contains("libheif"))
    }
}
