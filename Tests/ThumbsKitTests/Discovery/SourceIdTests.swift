import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Issue 27, point 6: ids are unique within a run whatever a list says, and
/// the suffix that makes one unique never takes an id that already exists.
final class SourceIdTests: XCTestCase {
    func ids(_ given: [String]) throws -> [String] {
        try SourceFinaliser.finalised(given.map { SourceItem(id: $0, source: "https://x.test/\($0)", origin: .remote(url: "https://x.test/\($0)", meta: .empty)) })
            .map(\.id)
    }

    func testASuffixNeverCollidesWithAnIdTheListHas() {
        XCTAssertEqual(try ids(["dup", "dup", "dup#2"]), ["dup", "dup#3", "dup#2"])
        XCTAssertEqual(try ids(["dup#2", "dup", "dup"]), ["dup#2", "dup", "dup#3"])
        XCTAssertEqual(try ids(["a", "a", "a#2", "a#3", "a"]), ["a", "a#4", "a#2", "a#3", "a#5"])
        // A suffixed id repeated gets its own suffix, unique too.
        XCTAssertEqual(try ids(["a#2", "a", "a", "a#2"]), ["a#2", "a", "a#3", "a#2#2"])
    }

    func testTheCommonCaseKeepsTheIdsOfEarlierVersions() {
        // Manifests written before this rule hold `x#2`, `x#3`: they stay.
        XCTAssertEqual(try ids(["x", "x", "x", "y"]), ["x", "x#2", "x#3", "y"])
    }

    func testIdsAreUniqueAtScale() throws {
        let given = (0..<20_000).map { "id\($0 % 500)" } + (0..<500).map { "id\($0)#2" }
        let result = try ids(given)
        XCTAssertEqual(Set(result).count, result.count)
        XCTAssertEqual(Array(result.suffix(500)), (0..<500).map { "id\($0)#2" }, "ids the list has are never renamed")
    }
}
