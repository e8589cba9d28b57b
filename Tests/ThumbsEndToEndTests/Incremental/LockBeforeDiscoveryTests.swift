import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// OUT is locked before the sources are discovered: a second run into a
/// held OUT exits 3 at once, for photo lists too (README: "a second run into
/// the same folder exits 3 at once"), without a single request.
final class LockBeforeDiscoveryTests: XCTestCase {
    func testAListRunIntoAHeldOutStopsBeforeAnyRequest() async throws {
        let server = try await TestHTTPServer.start { _ in .json(#"[{"id": "1", "download_url": "http://127.0.0.1:1/1.jpg"}]"#) }
        addTeardownBlock { await server.stop() }
        let out = TestImages.temporaryDirectory()
        let holder = try OutputDirectory(path: out)
        do {
            _ = try await runThumbs(["\(server.base)/v2/list"], out: out)
            XCTFail("the second run must not start")
        } catch let error as RunError {
            XCTAssertEqual(error.exitCode, .fatal)
            XCTAssertTrue(error.message.contains("another thumbs run"), error.message)
        }
        XCTAssertEqual(server.requests.count, 0, "the list was requested: \(server.requests.map(\.path))")
        withExtendedLifetime(holder) {}
    }

    /// The server does answer: the same run goes ahead once OUT is free.
    func testTheSameListRunGoesAheadOnceOutIsFree() async throws {
        let server = try await TestHTTPServer.start { _ in .json("[]") }
        addTeardownBlock { await server.stop() }
        let out = TestImages.temporaryDirectory()
        do {
            let holder = try OutputDirectory(path: out)
            withExtendedLifetime(holder) {}
        }
        let outcome = try await runThumbs(["\(server.base)/v2/list"], out: out)
        XCTAssertEqual(outcome.status, .success)
        XCTAssertEqual(server.requests.map(\.path), ["/v2/list"])
    }

    /// A missing file SOURCE stays a usage error that creates nothing, even
    /// though OUT is now locked before discovery.
    func testAMissingSourceCreatesNoOut() async throws {
        let root = TestImages.temporaryDirectory()
        let out = root + "/out"
        do {
            _ = try await runThumbs([root + "/missing"], out: out)
            XCTFail("a missing source must stop the run")
        } catch let error as RunError {
            XCTAssertEqual(error.exitCode, .usage)
            XCTAssertEqual(error.message, "source \(root)/missing does not exist")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }
}
