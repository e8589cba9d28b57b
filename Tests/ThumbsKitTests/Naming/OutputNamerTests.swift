import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

final class OutputNamerTests: XCTestCase {
    func testSanitiseKeepsOrdinaryPaths() {
        XCTAssertEqual(OutputNamer.sanitise("a/b/photo"), "a/b/photo")
        XCTAssertEqual(OutputNamer.sanitise("Ünïcode café/été"), "Ünïcode café/été")
    }

    func testSanitiseNeverLeavesOut() {
        XCTAssertEqual(OutputNamer.sanitise("../../etc/passwd"), "etc/passwd")
        XCTAssertEqual(OutputNamer.sanitise("/abs/path"), "abs/path")
        XCTAssertEqual(OutputNamer.sanitise("a/./b/../c"), "a/b/c")
        XCTAssertEqual(OutputNamer.sanitise("..\\..\\win"), "win")
        XCTAssertEqual(OutputNamer.sanitise(".."), "item")
        XCTAssertEqual(OutputNamer.sanitise(""), "item")
        XCTAssertEqual(OutputNamer.sanitise(".hidden"), "_hidden")
        XCTAssertEqual(OutputNamer.sanitise("nul\u{0}byte\nnewline"), "nul_byte_newline")
        for hostile in ["../x", "/x", "a/../../x", "..", "./../.", "\u{0}", "a/\u{0}/.."] {
            let name = OutputNamer.sanitise(hostile)
            XCTAssertFalse(name.hasPrefix("/"), hostile)
            XCTAssertFalse(name.split(separator: "/").contains(".."), hostile)
            XCTAssertFalse(name.contains("\u{0}"), hostile)
        }
    }

    func testLongSegmentsAreCutWithAStableHash() {
        let long = String(repeating: "é", count: 300)
        let name = OutputNamer.sanitise(long)
        XCTAssertLessThanOrEqual(name.utf8.count, 120)
        XCTAssertEqual(name, OutputNamer.sanitise(long))
        XCTAssertNotEqual(name, OutputNamer.sanitise(long + "x"))
    }

    func testCollisionsGetDistinctDeterministicNames() {
        let names = OutputNamer.assign(stems: ["a", "a", "A", "b", "a_png"], extensions: ["jpg", "png", "jpg", "gif", "jpg"])
        XCTAssertEqual(names[0], "a")
        XCTAssertEqual(names[1], "a_png")
        XCTAssertEqual(names[2], "A_jpg")
        XCTAssertEqual(names[3], "b")
        XCTAssertEqual(Set(names.map { $0.lowercased() }).count, names.count, "\(names)")
        XCTAssertEqual(names, OutputNamer.assign(stems: ["a", "a", "A", "b", "a_png"], extensions: ["jpg", "png", "jpg", "gif", "jpg"]))
    }

    func testStem() {
        XCTAssertEqual(OutputNamer.stem(of: "a/b/c.jpg"), "a/b/c")
        XCTAssertEqual(OutputNamer.stem(of: "a.b/c"), "a.b/c")
        XCTAssertEqual(OutputNamer.stem(of: ".hidden"), ".hidden")
        XCTAssertEqual(OutputNamer.stem(of: "x.tar.gz"), "x.tar")
    }
}
