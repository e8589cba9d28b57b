import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// The report and the statistics table of a real run.
final class ReportRunTests: XCTestCase {
    /// A real run: the report it writes is one self-contained page with the
    /// summary, the charts, a lazy grid and the failures table.
    func testRunWritesSelfContainedReport() async throws {
        let dir = TestImages.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let src = dir + "/src", out = dir + "/out"
        TestImages.write(src + "/landscape.jpg", width: 160, height: 120)
        TestImages.write(src + "/portrait.png", width: 90, height: 150, alpha: true)
        TestImages.write(src + "/nested/square.webp", width: 100, height: 100)
        try Data("not really a jpeg".utf8).write(to: URL(fileURLWithPath: src + "/broken.jpg"))
        _ = try await runThumbs([src], out: out) { $0.output.sizes = [ThumbSize(width: 64, height: 64)] }

        let html = try String(contentsOfFile: out + "/report.html", encoding: .utf8)
        ReportHTML.assertSelfContained(html)
        XCTAssertTrue(html.hasPrefix("<!doctype html>"))
        XCTAssertTrue(html.contains("<section id=summary>"))
        // Charts are inline SVG: the scatter has one dot per image size.
        XCTAssertEqual(ReportHTML.count("<svg", in: html), 7)
        XCTAssertTrue(html.contains("Decoded by"))
        XCTAssertEqual(ReportHTML.count("<circle class=dot", in: html), 3)
        XCTAssertTrue(html.contains("no downloads"))
        // Every thumbnail, lazily, by relative path, with its sizes.
        XCTAssertEqual(ReportHTML.tiles(in: html), 3)
        XCTAssertEqual(ReportHTML.count("loading=lazy decoding=async", in: html), 3)
        XCTAssertTrue(html.contains("<img src=\"64/landscape.jpg\" width=64 height=48 "), html)
        XCTAssertTrue(html.contains("<b>nested/square.webp</b><i>100×100 → 64×64</i>"))
        for src in ReportHTML.imageSources(in: html) {
            XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/" + src), "\(src) does not exist")
        }
        // The failures table names the broken file and its code.
        let failures = try XCTUnwrap(html.range(of: "<section id=failures>"))
        let failuresSection = html[failures.lowerBound...].prefix(2000)
        XCTAssertTrue(failuresSection.contains("<code>broken.jpg</code>"))
        XCTAssertTrue(failuresSection.contains("<span class=code>"))
    }

    func testTableOfARealRun() async throws {
        let dir = TestImages.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        TestImages.write(dir + "/src/a.jpg", width: 120, height: 80)
        TestImages.write(dir + "/src/b.png", width: 60, height: 90)
        try Data("junk".utf8).write(to: URL(fileURLWithPath: dir + "/src/c.jpg"))
        _ = try await runThumbs([dir + "/src"], out: dir + "/out") { $0.output.sizes = [ThumbSize(width: 32, height: 32)] }
        let manifest = try readManifest(dir + "/out")
        let text = StatisticsTable(Statistics(manifest: manifest), title: "manifest.json").render()

        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(lines.first, "manifest.json")
        XCTAssertTrue(lines.contains { $0.hasPrefix("  discovered") && $0.hasSuffix(" 3") }, text)
        XCTAssertTrue(lines.contains { $0.hasPrefix("  ok") && $0.hasSuffix(" 2") }, text)
        XCTAssertTrue(lines.contains { $0.hasPrefix("  failed") && $0.hasSuffix(" 1") }, text)
        XCTAssertTrue(lines.contains("downloads  none"), text)
        XCTAssertTrue(lines.contains { $0.hasPrefix("  input width") && $0.contains(" 2 ") && $0.contains("120") }, text)
        XCTAssertTrue(lines.contains { $0.hasPrefix("  jpeg") }, text)
        XCTAssertTrue(lines.contains { $0.hasPrefix("  png") }, text)
        XCTAssertTrue(text.contains("images/s"))
        // Right-aligned: within a block every row has the header's width or less,
        // and the numbers of the counts block end in one column.
        let counts = lines.drop { !$0.hasPrefix("images") }.prefix { !$0.isEmpty }.dropFirst()
        XCTAssertEqual(Set(counts.map(\.count)).count, 1, "\(counts)")
    }
}
