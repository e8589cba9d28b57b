import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// A merge's failures table goes through a file: read back, it is the text
/// written, in pieces that never cut a UTF-8 character.
final class ReportSpoolTests: TemporaryFolderTestCase {
    func testFileSpoolGivesBackTheTextInWholeCharacters() throws {
        var written = ""
        let path = root + "/spool.tmp"
        do {
            let spool = try ReportSpool(file: path)
            for i in 0..<40_000 {
                // 1-, 2-, 3- and 4-byte characters, so piece ends fall inside them.
                let piece = "<tr><td>é\(i)写真😀</td></tr>\n"
                spool.append(piece)
                written += piece
            }
            var pieces: [String] = []
            spool.replay { pieces.append($0) }
            XCTAssertNil(spool.failure)
            XCTAssertGreaterThan(pieces.count, 3)
            XCTAssertEqual(pieces.joined(), written)
            XCTAssertTrue(pieces.allSatisfy { !$0.contains("\u{FFFD}") }, "no character cut in two")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "the spool's file goes with it")
    }
}
