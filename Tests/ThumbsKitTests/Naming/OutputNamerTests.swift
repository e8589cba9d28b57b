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
        // Pinned: the same name on every machine and in every process (a
        // hash seeded per process would change it between runs).
        XCTAssertEqual(name, String(repeating: "é", count: 55) + "-2748e235")
        XCTAssertEqual(OutputNamer.sanitise(long + "x"), String(repeating: "é", count: 55) + "-24bc3f37")
    }

    func testCollisionsGetDistinctDeterministicNames() {
        let names = OutputNamer.assign(stems: ["a", "a", "A", "b", "a_png"], extensions: ["jpg", "png", "jpg", "gif", "jpg"])
        // Pinned, not compared with a second call in the same process.
        XCTAssertEqual(names, ["a", "a_png", "A_jpg", "b", "a_png_jpg"])
        XCTAssertEqual(Set(names.map { $0.lowercased() }).count, names.count, "\(names)")
        XCTAssertEqual(OutputNamer.assign(stems: ["x", "x", "x", "x"], extensions: ["jpg", "jpg", "png", "jpg"]),
                       ["x", "x_jpg", "x_png", "x_jpg_2"])
    }

    func testStem() {
        XCTAssertEqual(OutputNamer.stem(of: "a/b/c.jpg"), "a/b/c")
        XCTAssertEqual(OutputNamer.stem(of: "a.b/c"), "a.b/c")
        XCTAssertEqual(OutputNamer.stem(of: ".hidden"), ".hidden")
        XCTAssertEqual(OutputNamer.stem(of: "x.tar.gz"), "x.tar")
    }
}

/// Issue 39: an output name works in a URL as it is.
final class ServableOutputNameTests: XCTestCase {
    func testFragmentQueryAndEscapeCharactersBecomeUnderscores() {
        XCTAssertEqual(OutputNamer.sanitise("dup#2"), "dup_2")
        XCTAssertEqual(OutputNamer.sanitise("case_jpg?k=9"), "case_jpg_k=9")
        XCTAssertEqual(OutputNamer.sanitise("100%/a%41"), "100_/a_41")
        // What a browser encodes on its own, without changing the path, stays.
        XCTAssertEqual(OutputNamer.sanitise("a b/été+(1)"), "a b/été+(1)")
    }

    func testNamesMadeEqualByTheMappingStayDistinct() {
        let names = OutputNamer.assign(stems: ["a#b", "a_b", "a?b", "A%B"], extensions: ["jpg", "jpg", "png", "jpg"])
        XCTAssertEqual(names, ["a_b", "a_b_jpg", "a_b_png", "A_B_jpg_2"])
    }
}
