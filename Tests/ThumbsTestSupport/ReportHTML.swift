import Foundation
import XCTest

/// Reading report.html in tests: what it must never contain, and counts of
/// its tiles, images and tags.
public enum ReportHTML {
    /// No scripts, nothing loaded from elsewhere. `urlsInText` allows URLs
    /// as text (a failed list entry's source), never in an attribute.
    public static func assertSelfContained(_ html: String, urlsInText: Bool = false, patterns: Bool = true,
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
    public static func tiles(in html: String) -> Int {
        count("<li>", in: html) + count("<li class=dup>", in: html)
    }

    /// Occurrences of `needle` (memchr and memcmp: quick on a 20 MB page,
    /// even in a debug build).
    public static func count(_ needle: String, in haystack: String) -> Int {
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

    public static func imageSources(in html: String) -> [String] {
        html.components(separatedBy: "<img src=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
    }

    public static func tagNames(in html: String) -> [String] {
        html.components(separatedBy: "<").dropFirst().compactMap { part in
            let name = part.prefix { $0.isLetter || $0.isNumber }
            return name.isEmpty ? nil : name.lowercased()
        }
    }
}
