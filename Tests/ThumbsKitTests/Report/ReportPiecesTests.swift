import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// The report is written in pieces, never held whole: the pieces add up to
/// the page `render()` makes, and a large report comes in several.
final class ReportPiecesTests: XCTestCase {
    func testPiecesAddUpToTheWholePage() throws {
        for count in [0, 3, 5_000] {
            let manifest = SyntheticManifest.make(items: count)
            let report = ReportWriter(manifest: manifest, statistics: Statistics(manifest: manifest))
            var pieces: [String] = []
            report.write(pieces: { pieces.append($0) })
            XCTAssertEqual(pieces.joined(), report.render(), "\(count) items")
            XCTAssertTrue(pieces.dropLast().allSatisfy { $0.utf8.count >= ReportWriter.pieceSize }, "only the last piece is short")
            if count == 5_000 { XCTAssertGreaterThan(pieces.count, 1) }
        }
    }

    func testTheReportFileIsThePage() throws {
        let root = TestImages.temporaryDirectory(name)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let manifest = SyntheticManifest.make(items: 4_000)
        let report = ReportWriter(manifest: manifest, statistics: Statistics(manifest: manifest))
        let out = try OutputDirectory(path: root, synchronise: false)
        try out.writeReport(report)
        XCTAssertEqual(try String(contentsOfFile: root + "/report.html", encoding: .utf8), report.render())
    }
}
