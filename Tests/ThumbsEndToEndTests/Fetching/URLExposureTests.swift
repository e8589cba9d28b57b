import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Issue 39, §6: what thumbs writes must neither give away the credentials
/// of a URL nor name outputs that a web server cannot serve as they are.
final class URLExposureTests: XCTestCase {
    private static let images = ImageStore()

    /// `http://user:pass@host/…` is requested as given, but its userinfo is
    /// written nowhere: not in the manifest (`source`, `download.url`,
    /// `meta`, messages), the report, stats.json or the log on stderr.
    func testCredentialsInURLsAreHiddenEverywhere() async throws {
        try ThumbsProcess.requireExecutable()
        let secret = "s3cr3t-pw"
        let server = try await startServer { request, base in
            let authority = base.replacingOccurrences(of: "http://", with: "http://reader:\(secret)@")
            switch request.path {
            case "/list.json":
                return .json("""
                    [{"id":"a","download_url":"\(authority)/a.jpg","page":"\(authority)/photos/a"},
                     {"id":"gone","download_url":"\(authority)/gone.jpg"}]
                    """)
            case "/a.jpg": return .image(Self.images.jpeg(width: 48, height: 32))
            default: return .notFound
            }
        }
        let list = server.base.replacingOccurrences(of: "http://", with: "http://reader:\(secret)@") + "/list.json"
        let out = TestImages.temporaryDirectory()
        let result = try ThumbsProcess.capture(["run", list, "--out", out, "--size", "32", "--progress", "never",
                                                "--retries", "0", "--verbose", "--log-format", "json"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(server.requests(to: "/a.jpg").count, 1)
        let hidden = server.base.replacingOccurrences(of: "http://", with: "http://…@")
        let manifest = try readManifest(out)
        let a = try XCTUnwrap(manifest.item("a"))
        XCTAssertEqual(a.source, hidden + "/a.jpg")
        XCTAssertEqual(a.download?.url, hidden + "/a.jpg")
        XCTAssertEqual(a.meta?["page"], .string(hidden + "/photos/a"))
        let gone = try XCTUnwrap(manifest.item("gone"))
        XCTAssertEqual(gone.status, .failed)
        XCTAssertTrue(gone.error?.message.contains(hidden + "/gone.jpg") == true, gone.error?.message ?? "")
        for file in ["manifest.json", "report.html", "stats.json"] {
            let text = try String(contentsOfFile: out + "/" + file, encoding: .utf8)
            XCTAssertFalse(text.contains(secret), "\(file) shows the password")
            XCTAssertFalse(text.contains("reader:"), "\(file) shows the user")
        }
        XCTAssertTrue(result.stderr.contains("/gone.jpg"), result.stderr)
        XCTAssertFalse(result.stderr.contains(secret), result.stderr)
        XCTAssertFalse(result.stdout.contains(secret), result.stdout)
    }

    /// `RemoteURL.withoutCredentials` on its own: every URL in a text, any
    /// scheme; nothing else changes.
    func testWithoutCredentialsHidesUserinfoOnly() {
        XCTAssertEqual(RemoteURL.withoutCredentials("https://u:p@h.example/a@b.jpg?x=1"), "https://…@h.example/a@b.jpg?x=1")
        XCTAssertEqual(RemoteURL.withoutCredentials("see http://token@h/a and ftp://x:y@z/b"), "see http://…@h/a and ftp://…@z/b")
        XCTAssertEqual(RemoteURL.withoutCredentials("https://h.example/a@b.jpg"), "https://h.example/a@b.jpg")
        XCTAssertEqual(RemoteURL.withoutCredentials("mail me@example.com"), "mail me@example.com")
        XCTAssertEqual(RemoteURL.redacted("http://u:p@h/a?client_id=K"), "http://…@h/a?client_id=…")
    }

    /// Output paths work in a URL as they are (`"/thumbs/" + path`, the
    /// README's snippet), checked against a real static file server
    /// (Python's `http.server`): ids with `#`, `?` and `%` keep them, their
    /// file names do not, and no two names collide.
    func testOutputPathsAreServedAsTheyAreByAStaticServer() async throws {
        let server = try await startServer { request, base in
            switch request.path {
            case "/list.json":
                // `dup` twice gives `dup#2`; `dup_2` is an id of its own.
                let ids = ["dup", "dup", "case_jpg?k=9", "50%", "50_", "a#b", "dup_2"]
                let entries = ids.enumerated().map { index, id in
                    "{\"id\":\(String(reflecting: id)),\"download_url\":\"\(base)/img/\(index)\"}"
                }
                return .json("[" + entries.joined(separator: ",") + "]")
            default:
                let n = Int(request.path.split(separator: "/").last ?? "") ?? 0
                return .image(Self.images.jpeg(width: 30 + n, height: 20))
            }
        }
        let out = TestImages.temporaryDirectory()
        let outcome = try await runThumbs(["\(server.base)/list.json"], out: out) { $0.size([32]) }
        XCTAssertEqual(outcome.status, .success)
        let manifest = try readManifest(out)
        XCTAssertEqual(manifest.items.map(\.id), ["dup", "dup#2", "case_jpg?k=9", "50%", "50_", "a#b", "dup_2"])
        let paths = manifest.items.flatMap(\.outputs).map(\.path)
        XCTAssertEqual(paths.count, 7)
        XCTAssertEqual(Set(paths.map { $0.lowercased() }).count, 7, "no two outputs share a name: \(paths)")
        for path in paths {
            XCTAssertNil(path.rangeOfCharacter(from: CharacterSet(charactersIn: "#?%")), path)
        }

        let files = try StaticFileServer.start(serving: out)
        defer { files.stop() }
        let session = try HTTPSession(options: RunOptions(sources: [], outputDirectory: out), console: .silent)
        for item in manifest.items {
            for output in item.outputs {
                let result = await session.get(files.base + "/" + output.path, accept: "*/*",
                                               into: .file(session.temporaryFile()), wantsImage: true)
                switch result {
                case .success(let response):
                    let expected = try Data(contentsOf: URL(fileURLWithPath: out + "/" + output.path))
                    let served = try Data(contentsOf: URL(fileURLWithPath: try XCTUnwrap(response.file)))
                    XCTAssertEqual(served, expected, "\(item.id): \(output.path)")
                case .failure(let failure):
                    XCTFail("\(item.id): \(output.path) is not served as it is: \(failure.message)")
                }
            }
        }
        _ = await session.finish()
    }
}

/// `python3 -m http.server` serving a folder on 127.0.0.1, stopped by its
/// process id with SIGKILL (started from the test process, it was seen to
/// outlive SIGTERM).
private struct StaticFileServer {
    let process: Process
    let base: String

    struct NotStarted: Error, CustomStringConvertible {
        var description: String
    }

    static func start(serving folder: String) throws -> StaticFileServer {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", folder]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // "Serving HTTP on 127.0.0.1 port 40213 (http://127.0.0.1:40213/) ..."
        var text = ""
        while !text.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let range = text.range(of: #"port (\d+)"#, options: .regularExpression),
              let port = Int(text[range].dropFirst(5)) else {
            kill(process.processIdentifier, SIGKILL)
            throw NotStarted(description: "python3 -m http.server did not start: \(text)")
        }
        return StaticFileServer(process: process, base: "http://127.0.0.1:\(port)")
    }

    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
