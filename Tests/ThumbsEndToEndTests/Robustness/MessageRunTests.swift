import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Issue 14 through runs: a format behind a blocked loader is named with
/// the option that enables it; an unreadable previous manifest is announced once.
final class MessageRunTests: XCTestCase {
    func testBlockedLoaderNamesTheFormatAndTheOption() async throws {
        let root = TestImages.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/in", withIntermediateDirectories: true)
        try Data(TestImages.bmp(width: 40, height: 30)).write(to: URL(fileURLWithPath: root + "/in/everyday.bmp"))

        let blocked = try await runThumbs([root + "/in"], out: root + "/blocked") { $0.maxFailures = .percent(100) }
        let item = try XCTUnwrap(blocked.manifest?.item("everyday.bmp"))
        XCTAssertEqual(item.status, .failed)
        XCTAssertEqual(item.error?.code, "unsupported")
        let message = item.error?.message ?? ""
        XCTAssertTrue(message.hasPrefix("BMP image: "), message)
        XCTAssertTrue(message.contains("untrusted"), message)
        XCTAssertTrue(message.contains("--allow-untrusted"), message)
        XCTAssertTrue(message.contains("magickload"), message)
        XCTAssertFalse(message.contains("operation is blocked"), message)
        XCTAssertEqual(blocked.statistics?.counts.failed, 1)

        let allowed = try await runThumbs([root + "/in"], out: root + "/allowed") { $0.allowUntrusted = true }
        XCTAssertEqual(allowed.manifest?.item("everyday.bmp")?.status, .ok, allowed.manifest?.items.first?.error?.message ?? "")
        XCTAssertEqual(allowed.manifest?.item("everyday.bmp")?.width, 40)
    }

    /// Content the sniffer does not know, in a file named like an image,
    /// fails unread ("not an image"),
    /// except under `--allow-untrusted`, where it goes to libvips' loaders
    /// (ImageMagick among them), which give their own verdict.
    func testUnknownContentReachesTheLoadersOnlyWhenUntrustedAreAllowed() async throws {
        let root = TestImages.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/in", withIntermediateDirectories: true)
        try Data(repeating: 0x5A, count: 4096).write(to: URL(fileURLWithPath: root + "/in/scan.jpg"))

        let plain = try await runThumbs([root + "/in"], out: root + "/plain") { $0.maxFailures = .percent(100) }
        let refused = try XCTUnwrap(plain.manifest?.item("scan.jpg")?.error)
        XCTAssertEqual(refused.code, "unsupported")
        XCTAssertTrue(refused.message.contains("not an image: "), refused.message)

        let allowed = try await runThumbs([root + "/in"], out: root + "/allowed") {
            $0.maxFailures = .percent(100)
            $0.allowUntrusted = true
        }
        let tried = try XCTUnwrap(allowed.manifest?.item("scan.jpg"))
        XCTAssertEqual(tried.status, .failed)
        XCTAssertFalse(tried.error?.message.contains("not an image: ") ?? true, tried.error?.message ?? "")
        XCTAssertNotNil(tried.sha256, "a source handed to the loaders was read and hashed")
    }

    func testUnreadablePreviousManifestIsAnnouncedOnce() throws {
        try ThumbsProcess.requireExecutable()
        let root = TestImages.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        for i in 0..<3 { TestImages.write(root + "/in/img\(i).jpg", width: 100 + i, height: 80) }
        let arguments = ["run", root + "/in", "--out", root + "/out", "--progress", "never"]
        XCTAssertEqual(try ThumbsProcess.run(arguments).status, 0)

        for garbage in [Data("{\"schema\": \"thumbs/manifest\", \"items\": [".utf8), Data([0xFF, 0x00, 0x13, 0x37])] {
            try garbage.write(to: URL(fileURLWithPath: root + "/out/manifest.json"))
            let result = try ThumbsProcess.run(arguments)
            XCTAssertEqual(result.status, 0, result.stderr)
            let warnings = result.stderr.components(separatedBy: "the previous manifest could not be read").count - 1
            XCTAssertEqual(warnings, 1, result.stderr)
            XCTAssertTrue(result.stderr.contains("every image is processed again"), result.stderr)
            let manifest = try readManifest(root + "/out")
            XCTAssertEqual(manifest.items.map(\.status), [.ok, .ok, .ok], "everything was redone")
        }
        // A readable manifest: not a word.
        let quiet = try ThumbsProcess.run(arguments)
        XCTAssertFalse(quiet.stderr.contains("previous manifest"), quiet.stderr)
    }
}
