import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

final class ReportWriterTests: XCTestCase {

    /// Ids, sources, messages and format names are hostile: nothing from the
    /// manifest can open a tag, close an attribute or start a URL scheme.
    func testHostileManifestTextIsEscaped() throws {
        let hostileId = "<script>alert(\"x\")</script>\n'quoted' & <img src=x onerror=alert(1)>.jpg"
        let items = [
            ManifestItem(id: hostileId, source: hostileId, status: .ok, bytes: 10, format: "<b>jpeg</b>", width: 10, height: 20,
                         outputs: [ManifestOutput(size: "256", path: "256/javascript:alert(1)/\"><script>x.jpg", width: 5, height: 10,
                                                  bytes: 3, format: "jp\"eg", sha256: "")], ms: 1),
            ManifestItem(id: "bad\u{0}\u{1b}<script>", source: "https://example.test/<script>", status: .failed,
                         error: ErrorRecord(code: "<decode>", message: "</td></tr></table><script>alert(2)</script>"), ms: 1),
        ]
        let manifest = Manifest(tool: .init(version: "<v>", libvips: "8\"14"), startedAt: "<s>", finishedAt: "\"f",
                                settings: OutputSettings(), items: items)
        let html = try WrittenReport.html(manifest)
        ReportHTML.assertSelfContained(html, urlsInText: true)
        XCTAssertTrue(html.contains("<small>https://example.test/&lt;script&gt;</small>"))
        XCTAssertFalse(html.contains("<img src=x"))
        XCTAssertFalse(html.contains("</table><script>"))
        XCTAssertTrue(html.contains(">&lt;b&gt;jpeg&lt;/b&gt;</text>"))
        XCTAssertFalse(html.contains("\u{0}"))
        XCTAssertFalse(html.contains("\u{1b}"))
        XCTAssertTrue(html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;\n&#39;quoted&#39; &amp; &lt;img src=x onerror=alert(1)&gt;.jpg"))
        XCTAssertTrue(html.contains("&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;&lt;script&gt;alert(2)&lt;/script&gt;"))
        // The path is percent-encoded: no scheme, no way out of the attribute.
        XCTAssertEqual(ReportHTML.imageSources(in: html), ["256/javascript%3Aalert%281%29/%22%3E%3Cscript%3Ex.jpg"])
        // The only tags are the page's own.
        let tags = Set(ReportHTML.tagNames(in: html))
        XCTAssertTrue(tags.isSubset(of: Self.allowedTags), "unexpected tags: \(tags.subtracting(Self.allowedTags))")
    }

    func testEmptyRunRendersWithoutCharts() throws {
        let manifest = Manifest(tool: .init(libvips: "8.14.1"), startedAt: "", finishedAt: "", settings: OutputSettings(), items: [])
        let html = try WrittenReport.html(manifest)
        ReportHTML.assertSelfContained(html)
        XCTAssertTrue(html.contains("No thumbnails in this run."))
        XCTAssertTrue(html.contains("No failures"))
        XCTAssertFalse(html.contains("nan"))
        XCTAssertFalse(html.contains("inf"))
    }

    /// 100,000 items: small enough to open, grid and failures in chunks the
    /// browser can skip.
    func testHundredThousandItemsStayCompact() throws {
        let made = ContinuousClock.now
        let manifest = SyntheticManifest.make(items: 100_000)
        let statistics = Statistics(manifest: manifest)
        print("synthetic manifest and statistics of 100,000 items in \(ContinuousClock.now - made)")
        let start = ContinuousClock.now
        let html = try WrittenReport.html(manifest, statistics: statistics)
        let bytes = html.utf8.count
        print("manifest and report of 100,000 items: \(bytes / 1_000_000) MB of report in \(ContinuousClock.now - start)")
        XCTAssertLessThan(bytes, 25_000_000)
        // The patterns are checked on hostile input above; here the plain
        // strings, which are quick on 20 MB.
        ReportHTML.assertSelfContained(html, patterns: false)
        let shown = statistics.counts.ok + statistics.counts.unchanged + statistics.counts.duplicate
        XCTAssertEqual(ReportHTML.tiles(in: html), shown)
        XCTAssertEqual(ReportHTML.count("<ol class=\"grid chunk\"", in: html), (shown + 499) / 500)
        XCTAssertEqual(ReportHTML.count("<tr><td>", in: html), statistics.counts.failed)
        // The first 10,000 thumbnails are lazy images, the rest tile backgrounds
        // (100,000 lazy images would keep a browser busy for a long time).
        XCTAssertEqual(ReportHTML.count("<img src=\"256/archive/", in: html), ReportStyle.imageElementLimit)
        XCTAssertEqual(ReportHTML.count("loading=lazy", in: html), ReportStyle.imageElementLimit)
        XCTAssertEqual(ReportHTML.count("<div class=t style=\"background-image:url(256/archive/", in: html), shown - ReportStyle.imageElementLimit)
        // Charts stay small whatever the number of items.
        let charts = html[html.range(of: "<section id=charts>")!.lowerBound..<html.range(of: "<section id=failures>")!.lowerBound]
        XCTAssertLessThan(charts.utf8.count, 400_000)
        if let path = ProcessInfo.processInfo.environment["THUMBS_REPORT_DUMP"] {
            try? Data(html.utf8).write(to: URL(fileURLWithPath: path))
        }
    }

    /// Past `ReportStyle.gridLimit` thumbnails the grid stops with a note;
    /// the summary, charts and failures still count every item.
    func testGridIsCappedWithANote() throws {
        let manifest = SyntheticManifest.make(items: ReportStyle.gridLimit + 3000)
        let statistics = Statistics(manifest: manifest)
        let shown = statistics.counts.ok + statistics.counts.unchanged + statistics.counts.duplicate
        XCTAssertGreaterThan(shown, ReportStyle.gridLimit)
        let html = try WrittenReport.html(manifest, statistics: statistics)
        XCTAssertEqual(ReportHTML.tiles(in: html), ReportStyle.gridLimit)
        XCTAssertTrue(html.contains("The grid shows the first 100,000 of \(ReportFormat.int(shown)) thumbnails."))
        XCTAssertEqual(ReportHTML.count("<tr><td>", in: html), statistics.counts.failed)
        XCTAssertEqual(ReportHTML.count("<ol class=\"grid chunk\"", in: html), ReportStyle.gridLimit / ReportStyle.chunkSize)
        XCTAssertEqual(ReportHTML.count("<ol", in: html), ReportHTML.count("</ol>", in: html))
    }

    /// A folder of near-identical frames makes one huge group: the report
    /// shows a bounded part of it.
    func testTheReportBoundsAHugeGroup() throws {
        let items = (0..<80).map { index -> ManifestItem in
            var item = ManifestItem(id: "frame-\(index).jpg", source: "frame-\(index).jpg", status: .ok, width: 64, height: 48,
                                    outputs: [ManifestOutput(size: "256", path: "256/frame-\(index).jpg", width: 64, height: 48,
                                                             bytes: 10, format: "jpeg", sha256: "")])
            item.phash = "0123456789abcdef"
            item.color = "#102030"
            return item
        }
        var grouped = items
        let summary = LookalikeReference.apply(to: &grouped, distance: 3)
        XCTAssertEqual(summary, LookalikeGroups.Summary(groups: 1, images: 80))
        let manifest = Manifest(tool: .init(libvips: "8.14.1"), startedAt: "", finishedAt: "", settings: OutputSettings(),
                                run: RunCounters(similar: 3), items: grouped)
        let html = try WrittenReport.html(manifest)
        let section = html.components(separatedBy: "<section id=lookalikes>")[1].components(separatedBy: "</section>")[0]
        XCTAssertEqual(section.components(separatedBy: "<li>").count - 1, 1 + ReportStyle.lookalikeMemberLimit)
        XCTAssertTrue(section.contains("and 29 more look-alikes of frame-0.jpg"))
    }

    // MARK: Helpers

    static let allowedTags: Set<String> = [
        "html", "head", "meta", "title", "style", "body", "main", "header", "div", "h1", "h2", "h3", "p", "nav", "a", "span",
        "section", "small", "b", "i", "figure", "figcaption", "h4", "svg", "line", "text", "circle", "rect", "title", "table", "colgroup",
        "col", "thead", "tbody", "tr", "th", "td", "code", "ol", "li", "img", "footer", "dl", "dt", "dd",
    ]
}
