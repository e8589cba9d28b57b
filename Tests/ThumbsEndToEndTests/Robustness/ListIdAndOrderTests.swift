import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Issue 27 point 6 (ids are unique whatever the list says) and issue 26
/// §1 (items come in the order of the sources on the command line), with a
/// real list file and a real loopback server.
final class ListIdAndOrderTests: TemporaryFolderTestCase {
    private static let images = ImageStore()

    /// Answers `/img/W.jpg` with a W×40 JPEG, so each URL's image is known
    /// by its width.
    private func startServer() async throws -> TestHTTPServer {
        let server = try await TestHTTPServer.start { request in
            guard request.path.hasPrefix("/img/"), let width = Int(request.path.dropFirst(5).dropLast(4)) else { return .notFound }
            return .image(Self.images.jpeg(width: width, height: 40))
        }
        addTeardownBlock { await server.stop() }
        return server
    }

    private func writeList(_ entries: [(id: String, width: Int)], base: String, to path: String) throws {
        let objects = entries.map { "{\"id\": \"\($0.id)\", \"download_url\": \"\(base)/img/\($0.width).jpg\"}" }
        try Data(("[" + objects.joined(separator: ", ") + "]").utf8).write(to: URL(fileURLWithPath: path))
    }

    func testRepeatedListIdsNeverTakeAnIdTheListAlreadyHas() async throws {
        let server = try await startServer()
        let list = root + "/list.json"
        try writeList([("dup", 50), ("dup", 60), ("dup#2", 70), ("dup", 80)], base: server.base, to: list)
        let out = root + "/out"
        let first = try await runThumbs([list], out: out) { $0.size([32]) }
        let items = try XCTUnwrap(first.manifest?.items)
        XCTAssertEqual(items.map(\.id), ["dup", "dup#3", "dup#2", "dup#4"])
        XCTAssertEqual(items.map(\.width), [50, 60, 70, 80], "each id keeps its own entry's image")
        XCTAssertEqual(Set(items.flatMap { $0.outputs.map(\.path) }).count, 4, "four distinct outputs")

        // Deterministic: the second run finds every item as it left it, and
        // downloads none of them again.
        func imageRequests() -> Int { [50, 60, 70, 80].map { server.requests(to: "/img/\($0).jpg").count }.reduce(0, +) }
        XCTAssertEqual(imageRequests(), 4)
        let second = try await runThumbs([list], out: out) { $0.size([32]) }
        XCTAssertEqual(second.manifest?.items.map(\.id), ["dup", "dup#3", "dup#2", "dup#4"])
        XCTAssertEqual(second.manifest?.items.map(\.status), [.unchanged, .unchanged, .unchanged, .unchanged])
        XCTAssertEqual(imageRequests(), 4, "an image was fetched again")
    }

    func testItemsComeInTheOrderOfTheSourcesListsAndFoldersInterleaved() async throws {
        let server = try await startServer()
        TestImages.write(root + "/first/a.jpg", width: 64, height: 48)
        TestImages.write(root + "/last/z.jpg", width: 64, height: 48)
        let list = root + "/list.json"
        try writeList([("p1", 50), ("p2", 60)], base: server.base, to: list)
        let out = root + "/out"
        let outcome = try await runThumbs([root + "/first", list, root + "/last"], out: out) { $0.size([32]) }
        XCTAssertEqual(outcome.manifest?.items.map(\.id), ["first/a.jpg", "p1", "p2", "last/z.jpg"])
        XCTAssertEqual(try readManifest(out).items.map(\.id), ["first/a.jpg", "p1", "p2", "last/z.jpg"])

        // Two lists around a folder: each list's entries stay together.
        let list2 = root + "/more.json"
        try writeList([("q1", 70)], base: server.base, to: list2)
        let mixed = try await runThumbs([list2, root + "/first", list], out: root + "/out2") { $0.size([32]) }
        XCTAssertEqual(mixed.manifest?.items.map(\.id), ["q1", "a.jpg", "p1", "p2"])
    }
}
