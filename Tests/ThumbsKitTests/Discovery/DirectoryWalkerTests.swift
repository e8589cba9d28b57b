import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

final class DirectoryWalkerTests: XCTestCase {
    func testWalkIsSortedSkipsHiddenAndRecognisesByContent() throws {
        let root = TestImages.temporaryDirectory()
        TestImages.write(root + "/b.jpg", width: 8, height: 8)
        TestImages.write(root + "/a/z.png", width: 8, height: 8)
        TestImages.write(root + "/a/y.jpg", width: 8, height: 8)
        TestImages.write(root + "/.hidden/x.jpg", width: 8, height: 8)
        TestImages.write(root + "/.dot.jpg", width: 8, height: 8)
        // A JPEG with a misleading name is an image; text named .txt is not.
        try FileManager.default.copyItem(atPath: root + "/b.jpg", toPath: root + "/disguised.dat")
        try "hello".write(toFile: root + "/notes.txt", atomically: true, encoding: .utf8)
        // Text named like an image is still an item (it will fail to decode).
        try "not an image".write(toFile: root + "/fake.jpg", atomically: true, encoding: .utf8)
        let (files, result) = try DirectoryWalker().collect(root)
        XCTAssertEqual(files.map(\.relativePath), ["a/y.jpg", "a/z.png", "b.jpg", "disguised.dat", "fake.jpg"])
        XCTAssertEqual(result.ignored, 1)
    }

    func testSymlinkedFoldersAreNotFollowedAndLoopsAreReported() throws {
        let root = TestImages.temporaryDirectory()
        TestImages.write(root + "/real/p.jpg", width: 8, height: 8)
        try FileManager.default.createSymbolicLink(atPath: root + "/real/loop", withDestinationPath: root)
        try FileManager.default.createSymbolicLink(atPath: root + "/link.jpg", withDestinationPath: root + "/real/p.jpg")
        try FileManager.default.createSymbolicLink(atPath: root + "/self.jpg", withDestinationPath: root + "/self.jpg")
        let (files, result) = try DirectoryWalker().collect(root)
        XCTAssertEqual(files.map(\.relativePath), ["link.jpg", "real/p.jpg", "self.jpg"])
        XCTAssertNil(files[0].problem)
        XCTAssertNotNil(files[2].problem)
        // Issue 39, point 5: the link to a folder is counted and named.
        XCTAssertEqual(result.ignored, 1)
        XCTAssertEqual(result.specialFiles.map(\.relativePath), ["real/loop"])
        XCTAssertEqual(result.specialFiles.map(\.reason), ["a link to a folder; not followed"])
    }

    func testMissingSourceIsAUsageError() {
        XCTAssertThrowsError(try DirectoryWalker().collect("/nonexistent/thumbs")) { error in
            XCTAssertEqual((error as? RunError)?.exitCode, .usage)
        }
    }

    func testSniffer() {
        XCTAssertEqual(ImageSniffer.format(of: [0xFF, 0xD8, 0xFF, 0xE0]), "jpeg")
        XCTAssertEqual(ImageSniffer.format(of: Array("GIF89a....".utf8)), "gif")
        XCTAssertEqual(ImageSniffer.format(of: Array("RIFF\0\0\0\0WEBPVP8 ".utf8)), "webp")
        XCTAssertEqual(ImageSniffer.format(of: Array("<?xml version=\"1.0\"?><svg xmlns=".utf8)), "svg")
        XCTAssertEqual(ImageSniffer.format(of: [0, 0, 0, 0x1C] + Array("ftypavif".utf8)), "avif")
        XCTAssertNil(ImageSniffer.format(of: Array("hello world".utf8)))
        XCTAssertNil(ImageSniffer.format(of: []))
        XCTAssertTrue(ImageSniffer.isNamedLikeImage("a.JPG"))
        XCTAssertFalse(ImageSniffer.isNamedLikeImage("a.txt"))
        XCTAssertFalse(ImageSniffer.isNamedLikeImage(".jpg"))
    }
}

/// Issue 27, points 2 and 8: what the walk cannot read or will not open is
/// reported, never dropped.
final class DirectoryWalkerTraceTests: XCTestCase {
    func testAFolderThatVanishesDuringTheWalkIsUnreadableNotEmpty() throws {
        // The walk listed `2024`, then it was gone when the walk opened it
        // (an unmount, a rename): the step it takes for every folder.
        let root = TestImages.temporaryDirectory()
        var result = DirectoryWalker.Result()
        var files: [FoundFile] = []
        DirectoryWalker().walk(directory: Array((root + "/2024").utf8), relative: "2024", into: &result) { files.append($0) }
        XCTAssertEqual(result.unreadable.map(\.relativePath), ["2024"])
        XCTAssertEqual(result.unreadable.first?.reason, "it vanished while the folder was walked")
        XCTAssertEqual(files, [])
    }

    func testSpecialFilesAreIgnoredCountedAndNamed() throws {
        let root = TestImages.temporaryDirectory()
        TestImages.write(root + "/a.jpg", width: 8, height: 8)
        XCTAssertEqual(mkfifo(root + "/fifo.jpg", 0o644), 0)
        try FileManager.default.createSymbolicLink(atPath: root + "/zero.png", withDestinationPath: "/dev/zero")
        let (files, result) = try DirectoryWalker().collect(root)
        XCTAssertEqual(files.map(\.relativePath), ["a.jpg"])
        XCTAssertEqual(result.ignored, 2)
        XCTAssertEqual(result.specialFiles.map(\.relativePath), ["fifo.jpg", "zero.png"])
        XCTAssertEqual(result.specialFiles.map(\.reason), ["a FIFO; never opened", "a link to a character device; never opened"])
    }

    func testUnreadableIdsCoverWhatLiesBelowThem() {
        var unreadable = UnreadableSources()
        unreadable.add(UnreadablePath(relativePath: "2024/raw", path: "/p/2024/raw", reason: "x"), id: "2024/raw")
        XCTAssertTrue(unreadable.covers("2024/raw"))
        XCTAssertTrue(unreadable.covers("2024/raw/a.dng"))
        XCTAssertTrue(unreadable.covers("2024/raw/deep/b.dng"))
        XCTAssertFalse(unreadable.covers("2024/raw2/a.dng"))
        XCTAssertFalse(unreadable.covers("2024/a.jpg"))
        XCTAssertFalse(unreadable.covers("2024"))
        var whole = UnreadableSources()
        whole.add(UnreadablePath(relativePath: "", path: "/p", reason: "x"), id: "")
        XCTAssertTrue(whole.covers("anything/at/all.jpg"))
        XCTAssertFalse(UnreadableSources().covers("a.jpg"))
    }
}
