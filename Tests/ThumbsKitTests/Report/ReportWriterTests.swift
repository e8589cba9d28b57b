import Foundation
import XCTest
@testable import ThumbsKit

final class ReportWriterTests: XCTestCase {
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
        Self.assertSelfContained(html)
        XCTAssertTrue(html.hasPrefix("<!doctype html>"))
        XCTAssertTrue(html.contains("<section id=summary>"))
        // Charts are inline SVG: the scatter has one dot per image size.
        XCTAssertEqual(Self.count("<svg", in: html), 7)
        XCTAssertTrue(html.contains("Decoded by"))
        XCTAssertEqual(Self.count("<circle class=dot", in: html), 3)
        XCTAssertTrue(html.contains("no downloads"))
        // Every thumbnail, lazily, by relative path, with its sizes.
        XCTAssertEqual(Self.tiles(in: html), 3)
        XCTAssertEqual(Self.count("loading=lazy decoding=async", in: html), 3)
        XCTAssertTrue(html.contains("<img src=\"64/landscape.jpg\" width=64 height=48 "), html)
        XCTAssertTrue(html.contains("<b>nested/square.webp</b><i>100×100 → 64×64</i>"))
        for src in Self.imageSources(in: html) {
            XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/" + src), "\(src) does not exist")
        }
        // The failures table names the broken file and its code.
        let failures = try XCTUnwrap(html.range(of: "<section id=failures>"))
        let failuresSection = html[failures.lowerBound...].prefix(2000)
        XCTAssertTrue(failuresSection.contains("<code>broken.jpg</code>"))
        XCTAssertTrue(failuresSection.contains("<span class=code>"))
    }

    /// Ids, sources, messages and format names are hostile: nothing from the
    /// manifest can open a tag, close an attribute or start a URL scheme.
    func testHostileManifestTextIsEscaped() {
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
        let html = ReportWriter(manifest: manifest, statistics: Statistics(manifest: manifest)).render()
        Self.assertSelfContained(html, urlsInText: true)
        XCTAssertTrue(html.contains("<small>https://example.test/&lt;script&gt;</small>"))
        XCTAssertFalse(html.contains("<img src=x"))
        XCTAssertFalse(html.contains("</table><script>"))
        XCTAssertTrue(html.contains(">&lt;b&gt;jpeg&lt;/b&gt;</text>"))
        XCTAssertFalse(html.contains("\u{0}"))
        XCTAssertFalse(html.contains("\u{1b}"))
        XCTAssertTrue(html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;\n&#39;quoted&#39; &amp; &lt;img src=x onerror=alert(1)&gt;.jpg"))
        XCTAssertTrue(html.contains("&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;&lt;script&gt;alert(2)&lt;/script&gt;"))
        // The path is percent-encoded: no scheme, no way out of the attribute.
        XCTAssertEqual(Self.imageSources(in: html), ["256/javascript%3Aalert%281%29/%22%3E%3Cscript%3Ex.jpg"])
        // The only tags are the page's own.
        let tags = Set(Self.tagNames(in: html))
        XCTAssertTrue(tags.isSubset(of: Self.allowedTags), "unexpected tags: \(tags.subtracting(Self.allowedTags))")
    }

    func testEmptyRunRendersWithoutCharts() {
        let manifest = Manifest(tool: .init(libvips: "8.14.1"), startedAt: "", finishedAt: "", settings: OutputSettings(), items: [])
        let html = ReportWriter(manifest: manifest, statistics: Statistics(manifest: manifest)).render()
        Self.assertSelfContained(html)
        XCTAssertTrue(html.contains("No thumbnails in this run."))
        XCTAssertTrue(html.contains("No failures"))
        XCTAssertFalse(html.contains("nan"))
        XCTAssertFalse(html.contains("inf"))
    }

    /// 100,000 items: rendered in a few seconds even in a debug build, small
    /// enough to open, grid and failures in chunks the browser can skip.
    func testHundredThousandItemsStayCompact() {
        let made = ContinuousClock.now
        let manifest = SyntheticManifest.make(items: 100_000)
        let statistics = Statistics(manifest: manifest)
        print("synthetic manifest and statistics of 100,000 items in \(ContinuousClock.now - made)")
        let start = ContinuousClock.now
        let html = ReportWriter(manifest: manifest, statistics: statistics).render()
        let elapsed = ContinuousClock.now - start
        let bytes = html.utf8.count
        print("report of 100,000 items: \(bytes / 1_000_000) MB in \(elapsed)")
        XCTAssertLessThan(bytes, 25_000_000)
        XCTAssertLessThan(elapsed, .seconds(15), "rendering 100,000 items took \(elapsed)")
        // The patterns are checked on hostile input above; here the plain
        // strings, which are quick on 20 MB.
        Self.assertSelfContained(html, patterns: false)
        let shown = statistics.counts.ok + statistics.counts.unchanged + statistics.counts.duplicate
        XCTAssertEqual(Self.tiles(in: html), shown)
        XCTAssertEqual(Self.count("<ol class=\"grid chunk\"", in: html), (shown + 499) / 500)
        XCTAssertEqual(Self.count("<tr><td>", in: html), statistics.counts.failed)
        // The first 10,000 thumbnails are lazy images, the rest tile backgrounds
        // (100,000 lazy images would keep a browser busy for a long time).
        XCTAssertEqual(Self.count("<img src=\"256/archive/", in: html), ReportStyle.imageElementLimit)
        XCTAssertEqual(Self.count("loading=lazy", in: html), ReportStyle.imageElementLimit)
        XCTAssertEqual(Self.count("<div class=t style=\"background-image:url(256/archive/", in: html), shown - ReportStyle.imageElementLimit)
        // Charts stay small whatever the number of items.
        let charts = html[html.range(of: "<section id=charts>")!.lowerBound..<html.range(of: "<section id=failures>")!.lowerBound]
        XCTAssertLessThan(charts.utf8.count, 400_000)
        if let path = ProcessInfo.processInfo.environment["THUMBS_REPORT_DUMP"] {
            try? Data(html.utf8).write(to: URL(fileURLWithPath: path))
        }
    }

    // MARK: Helpers

    static let allowedTags: Set<String> = [
        "html", "head", "meta", "title", "style", "body", "main", "header", "div", "h1", "h2", "h3", "p", "nav", "a", "span",
        "section", "small", "b", "i", "figure", "figcaption", "h4", "svg", "line", "text", "circle", "rect", "title", "table", "colgroup",
        "col", "thead", "tbody", "tr", "th", "td", "code", "ol", "li", "img", "footer", "dl", "dt", "dd",
    ]

    /// No scripts, nothing loaded from elsewhere. `urlsInText` allows URLs
    /// as text (a failed list entry's source), never in an attribute.
    static func assertSelfContained(_ html: String, urlsInText: Bool = false, patterns: Bool = true,
                                    file: StaticString = #filePath, line: UInt = #line) {
        // Lower-cased unless the page is huge (then it is the writer's own
        // markup, lower case already, and the hostile cases are tested apart).
        let lower = patterns ? html.lowercased() : html
        var banned = ["<script", "@import", "<link", "<iframe", "<object", "<embed", "@font-face", "javascript:", "url(data:"]
        if !urlsInText { banned += ["http://", "https://"] }
        for text in banned {
            XCTAssertEqual(count(text, in: lower), 0, "report contains \(text)", file: file, line: line)
        }
        guard patterns else { return }
        // No URL in an attribute, no event handler attribute (onerror=, onload=…).
        XCTAssertNil(lower.range(of: #"(=|url\()\s*["']?\s*(https?:|//|data:)"#, options: .regularExpression), "URL attribute", file: file, line: line)
        XCTAssertNil(lower.range(of: #"<[^>]*\son[a-z]+\s*="#, options: .regularExpression), "event handler attribute", file: file, line: line)
    }

    /// Tiles of the thumbnail grid.
    static func tiles(in html: String) -> Int {
        count("<li>", in: html) + count("<li class=dup>", in: html)
    }

    /// Occurrences of `needle` (memchr and memcmp: quick on a 20 MB page,
    /// even in a debug build).
    static func count(_ needle: String, in haystack: String) -> Int {
        var text = haystack, pattern = needle
        return text.withUTF8 { hay in
            pattern.withUTF8 { pin in
                guard let base = hay.baseAddress, let p = pin.baseAddress, pin.count > 0 else { return 0 }
                var n = 0
                var offset = 0
                while hay.count - offset >= pin.count,
                      let hit = memchr(base + offset, Int32(p.pointee), hay.count - offset - pin.count + 1) {
                    let at = UnsafeRawPointer(hit) - UnsafeRawPointer(base)
                    if memcmp(base + at, p, pin.count) == 0 {
                        n += 1
                        offset = at + pin.count
                    } else {
                        offset = at + 1
                    }
                }
                return n
            }
        }
    }

    static func imageSources(in html: String) -> [String] {
        html.components(separatedBy: "<img src=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
    }

    static func tagNames(in html: String) -> [String] {
        html.components(separatedBy: "<").dropFirst().compactMap { part in
            let name = part.prefix { $0.isLetter || $0.isNumber }
            return name.isEmpty ? nil : name.lowercased()
        }
    }
}
