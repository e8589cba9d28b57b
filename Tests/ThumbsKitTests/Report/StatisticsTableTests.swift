import Foundation
import XCTest
@testable import ThumbsKit

final class StatisticsTableTests: XCTestCase {
    func testTableOfARealRun() async throws {
        let dir = TestImages.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        TestImages.write(dir + "/src/a.jpg", width: 120, height: 80)
        TestImages.write(dir + "/src/b.png", width: 60, height: 90)
        try Data("junk".utf8).write(to: URL(fileURLWithPath: dir + "/src/c.jpg"))
        _ = try await runThumbs([dir + "/src"], out: dir + "/out") { $0.output.sizes = [ThumbSize(width: 32, height: 32)] }
        let manifest = try readManifest(dir + "/out")
        let text = StatisticsTable(Statistics(manifest: manifest), title: "manifest.json").render()

        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(lines.first, "manifest.json")
        XCTAssertTrue(lines.contains { $0.hasPrefix("  discovered") && $0.hasSuffix(" 3") }, text)
        XCTAssertTrue(lines.contains { $0.hasPrefix("  ok") && $0.hasSuffix(" 2") }, text)
        XCTAssertTrue(lines.contains { $0.hasPrefix("  failed") && $0.hasSuffix(" 1") }, text)
        XCTAssertTrue(lines.contains("downloads  none"), text)
        XCTAssertTrue(lines.contains { $0.hasPrefix("  input width") && $0.contains(" 2 ") && $0.contains("120") }, text)
        XCTAssertTrue(lines.contains { $0.hasPrefix("  jpeg") }, text)
        XCTAssertTrue(lines.contains { $0.hasPrefix("  png") }, text)
        XCTAssertTrue(text.contains("images/s"))
        // Right-aligned: within a block every row has the header's width or less,
        // and the numbers of the counts block end in one column.
        let counts = lines.drop { !$0.hasPrefix("images") }.prefix { !$0.isEmpty }.dropFirst()
        XCTAssertEqual(Set(counts.map(\.count)).count, 1, "\(counts)")
    }

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
