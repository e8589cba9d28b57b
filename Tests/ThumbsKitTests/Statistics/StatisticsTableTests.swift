import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

final class StatisticsTableTests: XCTestCase {

    func testDownloadsAndListFields() {
        let manifest = SyntheticManifest.make(items: 2_000)
        var stats = Statistics(manifest: manifest)
        stats.source = ["likes": Summary([1.0, 5, 9], includeTotal: true)]
        let text = StatisticsTable(stats).render()
        XCTAssertTrue(text.contains("  HTTP 404"), text)
        XCTAssertTrue(text.contains("  requests"), text)
        XCTAssertTrue(text.contains("list fields"), text)
        XCTAssertTrue(text.contains("2,000"), text)
        let likes = text.split(separator: "\n").first { $0.hasPrefix("  likes") }
        XCTAssertNotNil(likes)
        XCTAssertTrue(likes?.hasSuffix(" 15") == true, String(likes ?? ""))
    }

    func testNumberFormatting() {
        XCTAssertEqual(StatisticsTable.number(1234567.891, digits: 2), "1,234,567.89")
        XCTAssertEqual(StatisticsTable.number(-1234, digits: 0), "-1,234")
        XCTAssertEqual(StatisticsTable.number(999, digits: 0), "999")
        XCTAssertEqual(StatisticsTable.number(-0.001, digits: 1), "0.0")
        XCTAssertEqual(StatisticsTable.bytes(999), "999 B")
        XCTAssertEqual(StatisticsTable.bytes(1_234_567), "1.2 MB (1,234,567)")
    }
}
