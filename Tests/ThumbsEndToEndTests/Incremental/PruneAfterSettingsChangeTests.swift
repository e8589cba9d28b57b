import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Issue 39, point 1: `--prune` after a settings change or `--force`. The
/// last run's records stay known (not reused), so the outputs no item of
/// this run produces are removed: a gone source's, and those of a size or
/// format no longer asked for; `--max-prune` guards all of it, and without
/// `--prune` one line says how many stay.
final class PruneAfterSettingsChangeTests: TemporaryFolderTestCase {
    var source: String { root + "/in" }
    var out: String { root + "/out" }
    let names = ["a", "b", "c", "d"]

    override func setUp() {
        super.setUp()
        for (i, name) in names.enumerated() { TestImages.write(source + "/\(name).jpg", width: 40 + i, height: 30) }
    }

    func files(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: out + "/" + folder)) ?? []).sorted()
    }

    func testAFormatChangeWithPruneRemovesTheOldJPEGsBesideTheNewWebPs() async throws {
        _ = try await runThumbs([source], out: out) { $0.size([32]) }
        XCTAssertEqual(files("32"), ["a.jpg", "b.jpg", "c.jpg", "d.jpg"])
        // Every item's JPEG would go: more than the default --max-prune 50%.
        let refused = try await runThumbs([source], out: out) { $0.size([32]); $0.output.format = .webp; $0.prune = true }
        XCTAssertEqual(refused.status, .fatal)
        XCTAssertEqual(files("32").filter { $0.hasSuffix(".jpg") }.count, 4, "a refused prune deletes nothing")
        XCTAssertEqual(refused.manifest?.items.map(\.status), [.ok, .ok, .ok, .ok])
        XCTAssertEqual(refused.manifest?.kept?.flatMap { $0.outputs.map(\.path) }, names.map { "32/\($0).jpg" },
                       "the JPEGs stay on record after the refusal")
        // Allowed, the next run (same settings now) still knows the JPEGs.
        let allowed = try await runThumbs([source], out: out) {
            $0.size([32]); $0.output.format = .webp; $0.prune = true; $0.maxPrune = .percent(100)
        }
        XCTAssertEqual(allowed.status, .success)
        XCTAssertEqual(files("32"), ["a.webp", "b.webp", "c.webp", "d.webp"])
        XCTAssertEqual(allowed.manifest?.items.map(\.status), [.unchanged, .unchanged, .unchanged, .unchanged])
        XCTAssertEqual(allowed.manifest?.kept ?? [], [])
    }

    func testASizeChangeSaysWhatStaysAndALaterPruneRemovesIt() throws {
        try AssertExecuteCommand([source, "--out", out, "--size", "32", "--progress", "never"])
        try FileManager.default.removeItem(atPath: source + "/d.jpg")
        let changed = try AssertExecuteCommand([source, "--out", out, "--size", "48", "--progress", "never"])
        let text = changed.stdout + changed.stderr
        let lines = text.split(separator: "\n").filter { $0.contains("--prune") }
        XCTAssertEqual(lines.count, 1, text)
        XCTAssertTrue(lines.first?.contains("1 sources gone since the last run; 4 outputs that no item of this run produces stay in OUT") ?? false,
                      text)
        XCTAssertEqual(files("32"), ["a.jpg", "b.jpg", "c.jpg", "d.jpg"], "without --prune nothing is deleted")
        XCTAssertEqual(files("48"), ["a.jpg", "b.jpg", "c.jpg"])
        // A later run, settings unchanged, still knows the 32/ tree and d.jpg.
        try AssertExecuteCommand([source, "--out", out, "--size", "48", "--prune", "--max-prune", "100%", "--progress", "never"])
        XCTAssertEqual(files("32"), [])
        XCTAssertEqual(files("48"), ["a.jpg", "b.jpg", "c.jpg"])
        XCTAssertEqual(try readManifest(out).kept ?? [], [])
    }

    func testForceStillPrunesTheSourcesGone() async throws {
        _ = try await runThumbs([source], out: out) { $0.size([32]) }
        try FileManager.default.removeItem(atPath: source + "/b.jpg")
        let forced = try await runThumbs([source], out: out) { $0.size([32]); $0.force = true; $0.prune = true }
        XCTAssertEqual(forced.status, .success)
        XCTAssertEqual(forced.manifest?.gone, ["b.jpg"])
        XCTAssertEqual(forced.manifest?.items.map(\.status), [.ok, .ok, .ok], "--force reuses no record")
        XCTAssertEqual(files("32"), ["a.jpg", "c.jpg", "d.jpg"])
    }
}
