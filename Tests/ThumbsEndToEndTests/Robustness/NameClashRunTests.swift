import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Issue 14, point 5, through runs: a file and a folder that want the same
/// output name keep their distinct names from one run to the next.
final class NameClashRunTests: XCTestCase {
    func testFolderBesideAFileRunsTwiceWithTheSameNames() async throws {
        let root = TestImages.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        TestImages.write(root + "/in/a.png", width: 300, height: 200)
        TestImages.write(root + "/in/a.jpg/b.jpg", width: 200, height: 300)
        TestImages.write(root + "/in/c.jpg", width: 100, height: 100)
        TestImages.write(root + "/in/c.jpg.d/c.webp", width: 120, height: 90)

        let first = try await runThumbs([root + "/in"], out: root + "/out")
        XCTAssertEqual(first.status, .success, "\(first.manifest?.items.compactMap(\.error) ?? [])")
        let manifest = try XCTUnwrap(first.manifest)
        XCTAssertEqual(manifest.items.map(\.status), [.ok, .ok, .ok, .ok])
        let paths = manifest.items.flatMap { $0.outputs.map(\.path) }
        XCTAssertEqual(Set(paths).count, 4)
        XCTAssertEqual(manifest.item("a.jpg/b.jpg")?.outputs.first?.path, "256/a.jpg/b.jpg")
        XCTAssertEqual(manifest.item("a.png")?.outputs.first?.path, "256/a_png.jpg")
        for path in paths {
            XCTAssertNotNil(TestImages.header(root + "/out/" + path), path)
        }
        let second = try await runThumbs([root + "/in"], out: root + "/out")
        XCTAssertEqual(second.manifest?.items.map(\.status), [.unchanged, .unchanged, .unchanged, .unchanged])
        XCTAssertEqual(second.manifest?.items.flatMap { $0.outputs.map(\.path) }, paths)
    }
}
