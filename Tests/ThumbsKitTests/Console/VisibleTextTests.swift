import Foundation
import XCTest
import ThumbsTestSupport
@testable import ThumbsKit

/// Issue 14, point 6: bidi controls in ids (U+202E and friends) are shown as
/// `<U+202E>` in report.html and on the terminal, never obeyed, never as an
/// entity that still acts; other control characters never reach a terminal.
final class VisibleTextTests: XCTestCase {
    func testEveryBidiControlIsWrittenOut() {
        for scalar in TestText.bidiControls {
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

    /// `thumbs verify` lines name items too: a bidi control shows as text there.
    func testVerifyFindingsShowBidiControls() {
        let finding = VerifyFinding(.missingOutput, id: "evil\u{202E}gnp.exe", path: nil, "no file\nat all")
        XCTAssertTrue(finding.line.contains("evil<U+202E>gnp.exe: no file\\nat all"), finding.line)
        XCTAssertFalse(finding.line.unicodeScalars.contains("\u{202E}"))
    }
}
