import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Issue 39, point 5: a folder thumbs creates has its parent flushed, so
/// that a power cut does not lose the folder with the thumbnails in it.
final class NewFolderFlushTests: TemporaryFolderTestCase {
    /// The folders flushed (`DurableSteps`) while `body` runs, below `real`.
    private func flushedFolders(below real: String, _ body: () throws -> Void) rethrows -> [String] {
        let recorded = FlushedPaths()
        DurableSteps.watch { step in
            if case .synchronise(let path) = step, path == real || path.hasPrefix(real + "/") { recorded.append(path) }
        }
        defer { DurableSteps.watch(nil) }
        try body()
        return recorded.paths
    }

    func testAFolderMadeInsideOUTHasItsParentFlushed() throws {
        let real = URL(fileURLWithPath: root).resolvingSymlinksInPath().path
        try FileManager.default.createDirectory(atPath: real + "/out", withIntermediateDirectories: true)
        let flushed = try flushedFolders(below: real) {
            _ = try ContainedPath("256/2024/a.jpg", under: real + "/out", create: true)
        }
        XCTAssertEqual(flushed, [real + "/out", real + "/out/256"])
        // Folders already there are not flushed again.
        let again = try flushedFolders(below: real) {
            _ = try ContainedPath("256/2024/b.jpg", under: real + "/out", create: true)
        }
        XCTAssertEqual(again, [])
    }

    func testMakeDirectoriesFlushesTheParentOfEachFolderItMakes() {
        let real = URL(fileURLWithPath: root).resolvingSymlinksInPath().path
        let flushed = flushedFolders(below: real) {
            XCTAssertNil(makeDirectories(real + "/x/y"))
        }
        XCTAssertEqual(flushed, [real, real + "/x"])
    }
}

private final class FlushedPaths: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    var paths: [String] { lock.withLock { list } }
    func append(_ path: String) { lock.withLock { list.append(path) } }
}
