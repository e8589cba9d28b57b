import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// The report is written in pieces, never held whole: the pieces make one
/// complete page with every thumbnail in source order and every failure,
/// and a large report comes in several pieces, only the last one short.
///
/// (`render()` joins the same pieces, so comparing the two proves nothing:
/// the content is checked against the manifest instead.)
final class ReportPiecesTests: XCTestCase {
    func testPiecesMakeTheWholePage() throws {
        let root = TestImages.temporaryDirectory(name)
        defer { try? FileManager.default.removeItem(atPath: root) }
        for count in [0, 3, 5_000] {
            let manifest = SyntheticManifest.make(items: count)
            let report = try WrittenReport.writer(manifest, out: try OutputDirectory(path: root + "/\(count)", synchronise: false))
            var pieces: [String] = []
            report.write(pieces: { pieces.append($0) })
            let page = pieces.joined()
            XCTAssertTrue(page.hasPrefix("<!doctype html>\n"), "\(count) items")
            XCTAssertTrue(page.hasSuffix("</footer>\n</main>\n</body>\n</html>\n"), "\(count) items")
            XCTAssertEqual(page.components(separatedBy: "<!doctype html>").count, 2, "one page, \(count) items")

            // Every thumbnail once, in source order; no failed item in the grid.
            let shown = manifest.items.filter { $0.status != .failed }
            var cursor = page.startIndex
            for item in shown {
                guard let found = page.range(of: "\"" + item.outputs[0].path + "\"", range: cursor..<page.endIndex)
                    ?? page.range(of: "url(" + item.outputs[0].path + ")", range: cursor..<page.endIndex)
                else {
                    XCTFail("\(item.id)'s thumbnail is missing or out of order (\(count) items)")
                    break
                }
                cursor = found.upperBound
            }
            let tiles = page.components(separatedBy: "<li>").count + page.components(separatedBy: "<li class=dup>").count - 2
            XCTAssertEqual(tiles, shown.count, "tiles, \(count) items")
            // Every failure in the failures table.
            for item in manifest.items where item.status == .failed {
                XCTAssertTrue(page.contains(item.error!.message), item.id)
            }

            XCTAssertTrue(pieces.dropLast().allSatisfy { $0.utf8.count >= ReportWriter.pieceSize }, "only the last piece is short")
            XCTAssertTrue(pieces.allSatisfy { $0.utf8.count < ReportWriter.pieceSize + 256 * 1024 }, "no piece holds the page")
            if count == 5_000 {
                XCTAssertGreaterThan(shown.count, 4_000)
                XCTAssertGreaterThan(pieces.count, 1)
            }
        }
    }

    func testTheReportFileIsThePage() throws {
        let root = TestImages.temporaryDirectory(name)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let manifest = SyntheticManifest.make(items: 4_000)
        let out = try OutputDirectory(path: root, synchronise: false)
        let report = try WrittenReport.writer(manifest, out: out)
        try out.writeReport(report)
        XCTAssertEqual(try String(contentsOfFile: root + "/report.html", encoding: .utf8), report.render())
    }
}
