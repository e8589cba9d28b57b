import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// `--similar`'s default on a real photograph: a 10 % brighter copy is a
/// look-alike (issue 22; the default comes from bench/lookalikes_real.py).
final class SimilarDefaultTests: TemporaryFolderTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/lookalikes")

    /// The photo and its brighter copy are 4 bits apart (Tests/Fixtures/
    /// lookalikes/README.md): grouped at the default, where 3 missed them.
    func testTheDefaultGroupsABrighterCopyOfARealPhoto() async throws {
        let source = root + "/in"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        for name in ["DSCN0038-1-original.jpg", "DSCN0038-2-brighter.jpg"] {
            try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent(name).path, toPath: source + "/" + name)
        }
        _ = try await runThumbs([source], out: root + "/out")
        let manifest = try readManifest(root + "/out")
        XCTAssertNil(manifest.item("DSCN0038-1-original.jpg")?.similarTo, "the first of the group carries nothing")
        let copy = try XCTUnwrap(manifest.item("DSCN0038-2-brighter.jpg"))
        XCTAssertEqual(copy.similarTo?.id, "DSCN0038-1-original.jpg", "a 10 % brighter copy is a look-alike at the default --similar")
        XCTAssertEqual(manifest.run?.similar, LookalikeGrouping.defaultDistance)
    }
}
