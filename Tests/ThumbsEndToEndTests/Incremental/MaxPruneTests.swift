import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Issue 27, point 3: an unmounted disk does not wipe the thumbnails. A
/// prune that would remove the outputs of more of the last run's items than
/// `--max-prune` allows (50% by default) deletes nothing, says why in one
/// line, and exits 3 once the thumbnails and the manifest are written.
final class MaxPruneTests: TemporaryFolderTestCase {
    var mount: String { root + "/nas" }
    var out: String { root + "/out" }
    let names = ["a.jpg", "b.jpg", "c.jpg", "d.jpg"]

    override func setUp() {
        super.setUp()
        for (i, name) in names.enumerated() { TestImages.write(mount + "/" + name, width: 40 + i, height: 30) }
    }

    func outputs() -> [String] {
        names.filter { FileManager.default.fileExists(atPath: out + "/32/" + $0) }
    }

    /// The mount point is there, empty: the disk is not mounted.
    func unmount() throws {
        try FileManager.default.moveItem(atPath: mount, toPath: root + "/disk")
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: false)
    }

    func remount() throws {
        try FileManager.default.removeItem(atPath: mount)
        try FileManager.default.moveItem(atPath: root + "/disk", toPath: mount)
    }

    func testAnEmptyMountPointDeletesNothingAndExits3() throws {
        try AssertExecuteCommand([mount, "--out", out, "--size", "32", "--progress", "never"])
        XCTAssertEqual(outputs(), names)
        try unmount()
        let refused = try AssertExecuteCommand([mount, "--out", out, "--size", "32", "--prune", "--progress", "never"], exitCode: 3)
        XCTAssertEqual(outputs(), names, "the prune deleted thumbnails of an unmounted disk")
        let lines = refused.stderr.split(separator: "\n").filter { $0.contains("--max-prune") }
        XCTAssertEqual(lines.count, 1, refused.stderr)
        XCTAssertTrue(lines.first?.contains("4 of the last run's 4 items (100%) are gone") ?? false, refused.stderr)
        // The manifest is written, and keeps the records beside `gone`
        // (`kept`), not as items: the next run refuses again while the disk
        // is away ...
        let manifest = try readManifest(out)
        XCTAssertEqual(manifest.gone, names)
        XCTAssertEqual(manifest.items.map(\.id), [], "sources this run did not see are not its items")
        XCTAssertEqual(manifest.kept?.map(\.id), names)
        try AssertExecuteCommand([mount, "--out", out, "--size", "32", "--prune", "--progress", "never"], exitCode: 3)
        XCTAssertEqual(outputs(), names)
        // ... and finds every photo unchanged once it is back.
        try remount()
        try AssertExecuteCommand([mount, "--out", out, "--size", "32", "--prune", "--progress", "never"])
        XCTAssertEqual(try readManifest(out).items.map(\.status), [.unchanged, .unchanged, .unchanged, .unchanged])
        XCTAssertEqual(outputs(), names)
    }

    func testAPruneWithinTheLimitDeletesAndOneBeyondItDoesNot() async throws {
        _ = try await runThumbs([mount], out: out) { $0.size([32]) }
        // Two of four gone is 50%: within the default.
        for name in names.prefix(2) { try FileManager.default.removeItem(atPath: mount + "/" + name) }
        let within = try await runThumbs([mount], out: out) { $0.size([32]); $0.prune = true }
        XCTAssertEqual(within.status, .success)
        XCTAssertEqual(outputs(), ["c.jpg", "d.jpg"])

        // One of the two left, as a count: --max-prune 0 refuses it, 1 allows it.
        try FileManager.default.removeItem(atPath: mount + "/c.jpg")
        let refused = try await runThumbs([mount], out: out) { $0.size([32]); $0.prune = true; $0.maxPrune = .count(0) }
        XCTAssertEqual(refused.status, .fatal)
        XCTAssertEqual(outputs(), ["c.jpg", "d.jpg"])
        let allowed = try await runThumbs([mount], out: out) { $0.size([32]); $0.prune = true; $0.maxPrune = .count(1) }
        XCTAssertEqual(allowed.status, .success)
        XCTAssertEqual(outputs(), ["d.jpg"])
        XCTAssertEqual(allowed.manifest?.items.map(\.id), ["d.jpg"])
    }

    /// Issue 39, point 2: 3 of 4 sources gone and the prune refused. The
    /// gone ones are not also counted as discovered and unchanged; their
    /// records survive in `kept`, so the remounted photos are not made again.
    func testARefusedPruneCountsOnlyTheSourcesSeen() async throws {
        _ = try await runThumbs([mount], out: out) { $0.size([32]) }
        try unmount()
        TestImages.write(mount + "/d.jpg", width: 43, height: 30)
        let refused = try await runThumbs([mount], out: out) { $0.size([32]); $0.prune = true }
        XCTAssertEqual(refused.status, .fatal)
        XCTAssertEqual(outputs(), names, "nothing deleted")
        let counts = try XCTUnwrap(refused.statistics?.counts)
        XCTAssertEqual(counts.discovered, 1, "one source on disk")
        XCTAssertEqual(counts.ok + counts.unchanged + counts.duplicate + counts.failed, counts.discovered)
        let manifest = try XCTUnwrap(refused.manifest)
        XCTAssertEqual(manifest.items.map(\.id), ["d.jpg"])
        XCTAssertEqual(manifest.gone, ["a.jpg", "b.jpg", "c.jpg"])
        XCTAssertEqual(manifest.kept?.map(\.id), ["a.jpg", "b.jpg", "c.jpg"])
        let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/stats.json"))) as? [String: Any]
        XCTAssertEqual((stats?["counts"] as? [String: Any])?["discovered"] as? Int, 1, "stats.json counts what was seen")
        let report = try String(contentsOfFile: out + "/report.html", encoding: .utf8)
        XCTAssertFalse(report.contains("a.jpg"), "the report shows no source this run did not see")

        try FileManager.default.removeItem(atPath: mount)
        try FileManager.default.moveItem(atPath: root + "/disk", toPath: mount)
        let back = try await runThumbs([mount], out: out) { $0.size([32]); $0.prune = true }
        XCTAssertEqual(back.status, .success)
        // d.jpg on the disk is not the one written meanwhile: made again.
        XCTAssertEqual(back.manifest?.items.map(\.status), [.unchanged, .unchanged, .unchanged, .ok])
        XCTAssertEqual(back.manifest?.kept ?? [], [])
    }

    func testMaxPruneIsParsedLikeMaxFailures() throws {
        try AssertExecuteCommand([mount, "--out", out, "--max-prune", "lots"], exitCode: 2,
                                 stderr: ["--max-prune takes a count (5) or a percentage (5%), not 'lots'"])
        try AssertExecuteCommand([mount, "--out", out, "--max-prune", "150%"], exitCode: 2)
        XCTAssertEqual(RunOptions.Defaults.maxPrune, .percent(50))
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), "a usage error writes nothing")
    }
}
