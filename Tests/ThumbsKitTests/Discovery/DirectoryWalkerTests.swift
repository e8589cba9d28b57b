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
        let result = try DirectoryWalker().walk(root)
        XCTAssertEqual(result.files.map(\.relativePath), ["a/y.jpg", "a/z.png", "b.jpg", "disguised.dat", "fake.jpg"])
        XCTAssertEqual(result.ignored, 1)
    }

    func testSymlinkedFoldersAreNotFollowedAndLoopsAreReported() throws {
        let root = TestImages.temporaryDirectory()
        TestImages.write(root + "/real/p.jpg", width: 8, height: 8)
        try FileManager.default.createSymbolicLink(atPath: root + "/real/loop", withDestinationPath: root)
        try FileManager.default.createSymbolicLink(atPath: root + "/link.jpg", withDestinationPath: root + "/real/p.jpg")
        try FileManager.default.createSymbolicLink(atPath: root + "/self.jpg", withDestinationPath: root + "/self.jpg")
        let result = try DirectoryWalker().walk(root)
        XCTAssertEqual(result.files.map(\.relativePath), ["link.jpg", "real/p.jpg", "self.jpg"])
        XCTAssertNil(result.files[0].problem)
        XCTAssertNotNil(result.files[2].problem)
    }

    func testMissingSourceIsAUsageError() {
        XCTAssertThrowsError(try DirectoryWalker().walk("/nonexistent/thumbs")) { error in
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
