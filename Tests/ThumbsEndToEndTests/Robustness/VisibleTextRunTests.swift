import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Issue 14, point 6, through a run: bidi controls in ids are shown as text
/// in report.html and on the terminal.
final class VisibleTextRunTests: XCTestCase {
    func testReportShowsBidiControlsAsText() async throws {
        let root = TestImages.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let good = "photo\u{202E}gpj.exe.jpg"
        let bad = "bad\u{2067}name\u{2069}\u{200F}.png"
        TestImages.write(root + "/in/" + good, width: 120, height: 80)
        try Data("not a picture".utf8).write(to: URL(fileURLWithPath: root + "/in/" + bad))
        _ = try await runThumbs([root + "/in"], out: root + "/out") { $0.maxFailures = .percent(100) }
        let html = try String(contentsOfFile: root + "/out/report.html", encoding: .utf8)
        XCTAssertTrue(html.contains("photo&lt;U+202E&gt;gpj.exe.jpg"), "the grid shows the control as text")
        XCTAssertTrue(html.contains("bad&lt;U+2067&gt;name&lt;U+2069&gt;&lt;U+200F&gt;.png"), "the failures table too")
        for scalar in TestText.bidiControls {
            XCTAssertFalse(html.unicodeScalars.contains(scalar), "U+\(String(scalar.value, radix: 16)) reached the page")
            let hex = String(scalar.value, radix: 16)
            XCTAssertNil(html.range(of: "&#x\(hex);", options: .caseInsensitive))
            XCTAssertNil(html.range(of: "&#\(scalar.value);"))
        }
        // The thumbnail is still found: the URL carries the real name, encoded.
        XCTAssertTrue(html.contains("photo%E2%80%AEgpj.exe.jpg"))
    }

    func testTerminalShowsBidiAndControlCharactersAsText() throws {
        try ThumbsProcess.requireExecutable()
        let root = TestImages.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/in", withIntermediateDirectories: true)
        let name = "evil\u{202E}gnp.\u{1B}[2Jexe.png"
        try Data("not a picture".utf8).write(to: URL(fileURLWithPath: root + "/in/" + name))
        let result = try ThumbsProcess.run(["run", root + "/in", "--out", root + "/out", "--progress", "never"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("evil<U+202E>gnp.<U+001B>[2Jexe.png"), result.stderr)
        XCTAssertFalse(result.stderr.unicodeScalars.contains("\u{202E}"), result.stderr)
        XCTAssertFalse(result.stderr.unicodeScalars.contains("\u{1B}"), result.stderr)
    }
}
