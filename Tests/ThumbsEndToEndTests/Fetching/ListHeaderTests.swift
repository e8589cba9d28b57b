import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Issue 24, lists behind an API key: `--header`, `--header @FILE` and
/// THUMBS_HEADER go with every page of the list's own origin and nowhere
/// else, and no secret (headers, `client_id=` in the list URL) is written
/// to any output, log or message. Runs the built binary, so that its real
/// stdout and stderr are searched.
final class ListHeaderTests: TemporaryFolderTestCase {
    private static let images = ImageStore()
    static let authorization = "Client-ID s3cr3t-from-file-1f7a"
    static let fromEnvironment = "env-s3cr3t-93bd"
    static let fromArgument = "arg-s3cr3t-5e21"
    static let listKey = "key-in-url-77c4"
    static var secrets: [String] { [authorization, fromEnvironment, fromArgument, listKey] }

    private func start(_ route: @escaping @Sendable (TestRequest, String) -> TestResponse) async throws -> TestHTTPServer {
        let base = BaseBox()
        let server = try await TestHTTPServer.start { route($0, base.value) }
        base.value = server.base
        addTeardownBlock { await server.stop() }
        return server
    }

    private static func authorised(_ request: TestRequest) -> Bool {
        request.headers.first(name: "Authorization") == authorization
            && request.headers.first(name: "X-Env-Key") == fromEnvironment
            && request.headers.first(name: "X-Arg-Key") == fromArgument
    }

    func testHeadersGoToEveryPageOfTheListOriginOnlyAndAreNeverWritten() async throws {
        let image = Self.images.jpeg(width: 64, height: 48)
        // Another origin: images, and a page that the list redirects to.
        let other = try await start { request, _ in
            switch request.path {
            case "/b.jpg": return .image(image)
            case "/page3": return .json("[]")
            default: return .notFound
            }
        }
        let list = try await start { request, base in
            switch request.path {
            case "/list":
                guard Self.authorised(request) else { return .text("no key", status: .unauthorized) }
                let page = Int(request.query["page"] ?? "1") ?? 1
                let next = page == 1 ? "\(base)/list?page=2&client_id=\(Self.listKey)" : "\(base)/moved"
                let entries = page == 1
                    ? #"[{"id":"a","download_url":"\#(base)/a.jpg"},{"id":"b","download_url":"\#(other.base)/b.jpg"}]"#
                    : #"[{"id":"gone","download_url":"\#(base)/gone.jpg"},{"id":"c","download_url":"\#(base)/a.jpg?c"}]"#
                return .json(entries, headers: [("Link", "<\(next)>; rel=\"next\"")])
            case "/moved":
                // A redirect to another origin: the headers stay behind.
                return .redirect("\(other.base)/page3")
            case "/a.jpg": return .image(image)
            default: return .notFound
            }
        }
        let headerFile = root + "/headers.txt"
        try "# the list's API key\nAuthorization: \(Self.authorization)\r\n\n".write(toFile: headerFile, atomically: true, encoding: .utf8)
        let out = root + "/out"
        var environment = ProcessInfo.processInfo.environment
        environment["THUMBS_HEADER"] = "X-Env-Key: \(Self.fromEnvironment)"
        try ThumbsProcess.requireExecutable()
        let result = try ThumbsProcess.capture([
            "run", "\(list.base)/list?page=1&client_id=\(Self.listKey)", "--out", out, "--size", "32",
            "--header", "@\(headerFile)", "--header", "X-Arg-Key: \(Self.fromArgument)",
            "--verbose", "--log-format", "json", "--progress", "never", "--retries", "0",
        ], environment: environment)
        // One image fails (404): the run says so, and exits 1.
        XCTAssertEqual(result.status, 1, result.stderr)

        // Every page of the list's origin had every header; nothing else did.
        let pages = list.requests(to: "/list")
        XCTAssertEqual(pages.map { $0.query["page"] }, ["1", "2"])
        XCTAssertTrue(pages.allSatisfy(Self.authorised), "a page of the list went without its headers")
        let moved = try XCTUnwrap(list.requests(to: "/moved").first)
        XCTAssertTrue(Self.authorised(moved), "the next link of the list's own origin gets the headers")
        let leaked = (list.requests.filter { $0.path != "/list" && $0.path != "/moved" } + other.requests)
            .filter { request in ["Authorization", "X-Env-Key", "X-Arg-Key"].contains { request.headers.first(name: $0) != nil } }
        XCTAssertEqual(leaked.map(\.path), [], "headers sent to an image or across a redirect to another origin")
        XCTAssertEqual(other.requests(to: "/page3").count, 1)
        XCTAssertEqual(list.requests(to: "/a.jpg").count, 2)

        // No secret anywhere: stdout, stderr, and every file in OUT.
        var texts = ["stdout": result.stdout, "stderr": result.stderr]
        let walker = FileManager.default.enumerator(atPath: out)
        while let name = walker?.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: out + "/" + name, isDirectory: &isFolder), !isFolder.boolValue {
                texts[name] = String(decoding: try Data(contentsOf: URL(fileURLWithPath: out + "/" + name)), as: UTF8.self)
            }
        }
        XCTAssertTrue(texts.keys.contains("manifest.json") && texts.keys.contains("report.html") && texts.keys.contains("stats.json"))
        for (name, text) in texts {
            for secret in Self.secrets where text.contains(secret) {
                XCTFail("\(name) holds the secret \(secret): \(text.components(separatedBy: "\n").filter { $0.contains(secret) }.prefix(3))")
            }
        }
        // The key in the list URL shows as `client_id=…` in the logs.
        XCTAssertTrue(result.stderr.contains("client_id=…"), result.stderr)
        let manifest = try readManifest(out)
        XCTAssertEqual(manifest.item("gone")?.error?.code, "download")
    }

    func testMalformedHeadersAreUsageErrorsThatNeverShowTheValue() throws {
        try ThumbsProcess.requireExecutable()
        let secret = "pasted-s3cr3t-0d9e"
        for bad in ["Authorization Bearer \(secret)", "Bad Name \(secret): x", "Host: \(secret)", "X-Key:", "X-Key: a\u{7}\(secret)"] {
            let result = try ThumbsProcess.capture(["run", root, "--out", root + "/out", "--header", bad])
            XCTAssertEqual(result.status, 2, "\(bad): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("--header"), result.stderr)
            XCTAssertFalse(result.stderr.contains(secret), result.stderr)
        }
        var environment = ProcessInfo.processInfo.environment
        environment["THUMBS_HEADER"] = "Authorization \(secret)"
        let fromEnvironment = try ThumbsProcess.capture(["run", root, "--out", root + "/out"], environment: environment)
        XCTAssertEqual(fromEnvironment.status, 2)
        XCTAssertTrue(fromEnvironment.stderr.contains("THUMBS_HEADER"), fromEnvironment.stderr)
        XCTAssertFalse(fromEnvironment.stderr.contains(secret))
        let missing = try ThumbsProcess.capture(["run", root, "--out", root + "/out", "--header", "@\(root)/none.txt"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("none.txt"), missing.stderr)
    }

    func testParsingAndRedaction() throws {
        let headers = try ListHeaders.parse(arguments: ["X-A:  one two ", "x-b:3"], environment: "# c\nX-C: 4\r\n\nX-D:\t5")
        XCTAssertEqual(headers, [RequestHeader(name: "X-A", value: "one two"), RequestHeader(name: "x-b", value: "3"),
                                 RequestHeader(name: "X-C", value: "4"), RequestHeader(name: "X-D", value: "5")])
        XCTAssertEqual("\(headers[0])", "X-A: …")
        XCTAssertEqual(RemoteURL.redacted("https://api.unsplash.com/photos?client_id=abc&page=2"),
                       "https://api.unsplash.com/photos?client_id=…&page=2")
        XCTAssertEqual(RemoteURL.redacted("cannot read https://h/x?page=1&API_KEY=zz: HTTP 500 (https://h/y?key=q#f)"),
                       "cannot read https://h/x?page=1&API_KEY=… HTTP 500 (https://h/y?key=…#f)")
        XCTAssertEqual(RemoteURL.redacted("https://h/x?monkey=1&keyboard=2"), "https://h/x?monkey=1&keyboard=2")
        XCTAssertEqual(RemoteURL.origin(of: "HTTP://Example.com/a"), RemoteURL.origin(of: "http://example.com:80/b?c"))
        XCTAssertNotEqual(RemoteURL.origin(of: "https://example.com/a"), RemoteURL.origin(of: "http://example.com/a"))
        XCTAssertNotEqual(RemoteURL.origin(of: "http://example.com:8080/a"), RemoteURL.origin(of: "http://example.com/a"))
    }
}
