import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// List formats, URL guessing, meta, Link headers, Retry-After: no network.
final class ListParserTests: XCTestCase {
    private func parse(_ text: String, urlField: String? = nil, base: String? = nil) throws -> [ListEntry] {
        try ListParser.parse(Data(text.utf8), urlField: urlField, base: base.flatMap(URL.init(string:)))
    }

    private func parseError(_ text: String) -> String? {
        do {
            _ = try ListParser.parse(Data(text.utf8), urlField: nil, base: nil)
            return nil
        } catch {
            return error.message
        }
    }

    func testPicsumListUsesDownloadURLAndKeepsFields() throws {
        let entries = try parse("""
            [{"id":"0","author":"Alejandro Escamilla","width":5000,"height":3333,
              "url":"https://unsplash.com/photos/yC-Yzbqy7PY","download_url":"https://picsum.photos/id/0/5000/3333"},
             {"id":"1","author":"B","width":10,"height":20,"url":"https://unsplash.com/x","download_url":"https://picsum.photos/id/1/10/20"}]
            """)
        XCTAssertEqual(entries.count, 2)
        XCTAssertEqual(entries[0].id, "0")
        XCTAssertEqual(entries[0].url, "https://picsum.photos/id/0/5000/3333")
        XCTAssertEqual(entries[0].meta["author"], .string("Alejandro Escamilla"))
        XCTAssertEqual(entries[0].meta["width"], .number(5000))
        XCTAssertEqual(entries[1].itemID(position: 2), "1")
    }

    func testUnsplashObjectsUseRegularURLAndFlattenMeta() throws {
        let entries = try parse("""
            {"total":1,"results":[{"id":"abc","width":4000,"height":3000,"likes":12,"downloads":345,"description":null,
              "urls":{"raw":"https://i/raw","full":"https://i/full","regular":"https://i/regular","small":"https://i/small","thumb":"https://i/thumb"},
              "user":{"name":"Ann","profile_image":{"small":"https://i/p"}},"links":{"html":"https://u/abc"}}]}
            """)
        XCTAssertEqual(entries.count, 1)
        XCTAssertEqual(entries[0].url, "https://i/regular")
        XCTAssertEqual(entries[0].meta.fields, [
            "id": .string("abc"), "width": .number(4000), "height": .number(3000),
            "likes": .number(12), "downloads": .number(345), "author": .string("Ann"),
        ])
        let small = try parse("""
            [{"id":"abc","urls":{"regular":"https://i/regular","small":"https://i/small"}}]
            """, urlField: "urls.small")
        XCTAssertEqual(small[0].url, "https://i/small")
        let missing = try parse("[{\"id\":\"abc\",\"download_url\":\"https://i/x\"}]", urlField: "urls.small")
        XCTAssertNil(missing[0].url, "--url-field names the field: no falling back to a guess")
    }

    func testNDJSONTextAndStrings() throws {
        let ndjson = try parse("{\"id\":\"a\",\"download_url\":\"http://h/a.jpg\"}\n\n{\"id\":7,\"url\":\"http://h/b.png\"}\n")
        XCTAssertEqual(ndjson.map(\.id), ["a", "7"])
        XCTAssertEqual(ndjson.map(\.url), ["http://h/a.jpg", "http://h/b.png"])

        let text = try parse("# photos\r\nhttp://h/one.jpg\r\n\r\n  https://h/dir/two.webp?x=1  \n")
        XCTAssertEqual(text.map(\.url), ["http://h/one.jpg", "https://h/dir/two.webp?x=1"])
        XCTAssertEqual(text.map { $0.itemID(position: 0) }, ["one.jpg", "two.webp"])

        let strings = try parse("[\"http://h/a.jpg\", \"/rel/b.jpg\"]", base: "http://list.host/lists/l.json")
        XCTAssertEqual(strings.map(\.url), ["http://h/a.jpg", "http://list.host/rel/b.jpg"])

        XCTAssertEqual(try parse("").count, 0)
        XCTAssertEqual(try parse("  \n[]\n").count, 0)
        XCTAssertEqual(try parse("{\"results\": []}").count, 0)
    }

    func testWhatDoesNotParse() {
        XCTAssertTrue(parseError("<!doctype html><html><body>hi</body></html>")?.contains("HTML") ?? false)
        XCTAssertTrue(parseError("[{\"id\": 1,")?.contains("not valid JSON") ?? false)
        XCTAssertTrue(parseError("{\"id\": 1, \"name\": \"x\"}")?.contains("no array of photos") ?? false)
        XCTAssertTrue(parseError("just some words\nand more")?.contains("neither JSON nor a list of URLs") ?? false)
        XCTAssertTrue(parseError("\u{0}\u{1}binary")?.contains("binary") ?? false)
        XCTAssertTrue(parseError("42")?.contains("neither JSON") ?? false)
    }

    func testRemoteURLChecks() {
        XCTAssertNil(RemoteURL.problem("https://h/x.jpg"))
        XCTAssertTrue(RemoteURL.problem("ftp://h/x.jpg")?.contains("only http and https") ?? false)
        XCTAssertTrue(RemoteURL.problem("file:///etc/passwd")?.contains("only http and https") ?? false)
        XCTAssertNotNil(RemoteURL.problem("relative/x.jpg"))
        XCTAssertNotNil(RemoteURL.problem(""))
        XCTAssertEqual(RemoteURL.lastSegment(of: "http://h/a/my%20photo.jpg?w=1"), "my photo.jpg")
        XCTAssertEqual(RemoteURL.lastSegment(of: "http://h/"), "h")
        XCTAssertEqual(ListEntry(url: nil).itemID(position: 4), "entry-4")
    }

    func testLinkHeader() {
        let picsum = "<https://picsum.photos/v2/list?page=3&limit=30>; rel=\"next\", <https://picsum.photos/v2/list?page=1&limit=30>; rel=\"prev\""
        XCTAssertEqual(LinkHeader.target(rel: "next", in: [picsum], base: nil), "https://picsum.photos/v2/list?page=3&limit=30")
        XCTAssertEqual(LinkHeader.target(rel: "prev", in: [picsum], base: nil), "https://picsum.photos/v2/list?page=1&limit=30")
        XCTAssertEqual(LinkHeader.target(rel: "next", in: ["</p?a=1,2>; title=\"x, y\"; rel=\"last next\""], base: URL(string: "http://h/l")),
                       "http://h/p?a=1,2")
        XCTAssertEqual(LinkHeader.target(rel: "next", in: ["<http://a>; rel=prev", "<http://b>; REL=Next"], base: nil), "http://b")
        XCTAssertNil(LinkHeader.target(rel: "next", in: ["<http://a>; rel=\"prev\""], base: nil))
        XCTAssertNil(LinkHeader.target(rel: "next", in: [], base: nil))
    }

    func testRetryAfterAndBackoff() {
        XCTAssertEqual(RetryPolicy.retryAfter("3"), 3)
        XCTAssertEqual(RetryPolicy.retryAfter(" 0 "), 0)
        let now = Date(timeIntervalSince1970: 1_000_000_000)
        XCTAssertEqual(RetryPolicy.retryAfter("Sun, 09 Sep 2001 01:46:50 GMT", now: now) ?? -1, 10, accuracy: 0.001)
        XCTAssertEqual(RetryPolicy.retryAfter("Sunday, 09-Sep-01 01:46:45 GMT", now: now) ?? -1, 5, accuracy: 0.001)
        XCTAssertEqual(RetryPolicy.retryAfter("Sun Sep  9 01:46:42 2001", now: now) ?? -1, 2, accuracy: 0.001)
        XCTAssertEqual(RetryPolicy.retryAfter("Sun, 09 Sep 2001 01:40:00 GMT", now: now), 0, "a date in the past means now")
        XCTAssertNil(RetryPolicy.retryAfter("soon"))

        let policy = RetryPolicy(retries: 5)
        for attempt in 1...8 {
            let delay = policy.delay(afterAttempt: attempt, retryAfter: nil)
            let full = min(30, 0.5 * pow(2, Double(attempt - 1)))
            XCTAssertGreaterThanOrEqual(delay, full / 2)
            XCTAssertLessThanOrEqual(delay, full)
        }
        XCTAssertGreaterThanOrEqual(policy.delay(afterAttempt: 1, retryAfter: 7), 7, "Retry-After is a floor")
    }

    /// `MetaFieldLimit`: 64 KiB of UTF-8 per field name and value, cut
    /// before a character that would be split, the cut fields listed.
    func testMetaFieldsAreCutAt64KiBOnACharacterBoundary() throws {
        let limit = MetaFieldLimit.maxBytes
        XCTAssertEqual(limit, 65_536)
        let exact = String(repeating: "x", count: limit)
        XCTAssertEqual(MetaFieldLimit.cut(exact), exact)
        XCTAssertEqual(MetaFieldLimit.cut(exact + "y"), exact)
        // A 4-byte character across the limit is left out whole.
        let emoji = String(repeating: "x", count: limit - 2) + "😀" + "z"
        XCTAssertEqual(MetaFieldLimit.cut(emoji), String(repeating: "x", count: limit - 2))
        let threes = String(repeating: "€", count: limit)  // 3 bytes each
        XCTAssertEqual(MetaFieldLimit.cut(threes).utf8.count, limit - limit % 3)

        let longName = String(repeating: "k", count: limit + 10)
        let entries = try parse("""
            [{"url": "https://e.com/1.jpg", "note": "\(exact)y", "title": "t", "\(longName)": 1, "likes": 3}]
            """)
        let meta = entries[0].meta.fields
        XCTAssertEqual(meta["note"], .string(exact))
        XCTAssertEqual(meta["title"], .string("t"))
        XCTAssertEqual(meta["likes"], .number(3))
        XCTAssertEqual(meta[String(repeating: "k", count: limit)], .number(1))
        XCTAssertEqual(meta["_truncated"], .array([.string(String(repeating: "k", count: limit)), .string("note")]))
        XCTAssertNil(try parse("[{\"url\": \"https://e.com/1.jpg\", \"note\": \"\(exact)\"}]")[0].meta["_truncated"])
    }
}
