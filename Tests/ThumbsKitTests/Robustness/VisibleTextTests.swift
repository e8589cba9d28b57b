import Foundation
import XCTest
@testable import ThumbsKit

/// Issue 14, point 6: bidi controls in ids (U+202E and friends) are shown as
/// `<U+202E>` in report.html and on the terminal, never obeyed, never as an
/// entity that still acts; other control characters never reach a terminal.
final class VisibleTextTests: XCTestCase {
    static let bidi: [Unicode.Scalar] = [
        "\u{202A}", "\u{202B}", "\u{202C}", "\u{202D}", "\u{202E}",
        "\u{2066}", "\u{2067}", "\u{2068}", "\u{2069}", "\u{200E}", "\u{200F}", "\u{061C}",
    ]

    func testEveryBidiControlIsWrittenOut() {
        for scalar in Self.bidi {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            let code = "<U+" + String(repeating: "0", count: 4 - hex.count) + hex + ">"
            XCTAssertEqual(VisibleText.forTerminal("a\(scalar)b"), "a\(code)b")
            var html = ""
            html.appendEscaped("a\(scalar)b")
            XCTAssertEqual(html, "a&lt;\(code.dropFirst().dropLast())&gt;b")
        }
        XCTAssertEqual(VisibleText.forTerminal("photo\u{202E}gpj.exe"), "photo<U+202E>gpj.exe")
        // Ordinary text, right-to-left scripts and emoji are left alone.
        for text in ["plain.jpg", "写真 café", "שלום.jpg", "صورة.png", "👩‍👩‍👧.jpg", "a\u{200D}b"] {
            XCTAssertEqual(VisibleText.forTerminal(text), text)
            var html = ""
            html.appendEscaped(text)
            XCTAssertEqual(html, text)
        }
    }

    func testControlCharactersNeverReachTheTerminal() {
        XCTAssertEqual(VisibleText.forTerminal("a\u{1B}[31mred\rb\nc\td\u{7F}\u{85}\u{9B}"),
                       "a<U+001B>[31mred<U+000D>b<U+000A>c<U+0009>d<U+007F><U+0085><U+009B>")
        // In HTML, C1 controls (which have no fast-path lead byte below 0x20)
        // are replaced too.
        var html = ""
        html.appendEscaped("x\u{85}y\u{9B}z")
        XCTAssertEqual(html, "x\u{FFFD}y\u{FFFD}z")
    }

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
        for scalar in Self.bidi {
            XCTAssertFalse(html.unicodeScalars.contains(scalar), "U+\(String(scalar.value, radix: 16)) reached the page")
            let hex = String(scalar.value, radix: 16)
            XCTAssertNil(html.range(of: "&#x\(hex);", options: .caseInsensitive))
            XCTAssertNil(html.range(of: "&#\(scalar.value);"))
        }
        // The thumbnail is still found: the URL carries the real name, encoded.
        XCTAssertTrue(html.contains("photo%E2%80%AEgpj.exe.jpg"))
    }

    func testTerminalShowsBidiAndControlCharactersAsText() throws {
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

    /// `thumbs verify` lines name items too: a bidi control shows as text there.
    func testVerifyFindingsShowBidiControls() {
        let finding = VerifyFinding(.missingOutput, id: "evil\u{202E}gnp.exe", path: nil, "no file\nat all")
        XCTAssertTrue(finding.line.contains("evil<U+202E>gnp.exe: no file\\nat all"), finding.line)
        XCTAssertFalse(finding.line.unicodeScalars.contains("\u{202E}"))
    }
}
