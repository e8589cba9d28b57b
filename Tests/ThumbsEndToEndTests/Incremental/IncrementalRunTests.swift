import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Issue 4, points 1 to 3 in-process: re-runs, duplicates, the lock and
/// interruptions.
final class IncrementalRunTests: TemporaryFolderTestCase {
    var source: String { root + "/in" }
    var out: String { root + "/out" }

    override func setUp() {
        super.setUp()
        for i in 0..<6 {
            TestImages.write(source + "/img\(i).jpg", width: 320 + i * 16, height: 240)
        }
    }

    func statuses(_ manifest: Manifest?) -> [String: ItemStatus] {
        Dictionary(uniqueKeysWithValues: (manifest?.items ?? []).map { ($0.id, $0.status) })
    }

    func modificationDate(_ path: String) -> Date? {
        try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
    }

    func testSecondRunSkipsUnchangedAndRedoesWhatChanged() async throws {
        let first = try await runThumbs([source], out: out)
        XCTAssertEqual(Set(statuses(first.manifest).values), [.ok])
        let stamp = modificationDate(out + "/256/img0.jpg")

        let second = try await runThumbs([source], out: out)
        XCTAssertEqual(Set(statuses(second.manifest).values), [.unchanged])
        XCTAssertEqual(second.statistics?.counts.unchanged, 6)
        XCTAssertEqual(modificationDate(out + "/256/img0.jpg"), stamp, "an unchanged item's output is not rewritten")
        XCTAssertEqual(second.manifest?.items.map(\.outputs), first.manifest?.items.map(\.outputs))
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/.thumbs/journal.ndjson"), "a finished run removes its journal")

        // A changed source, a deleted output and a damaged output are redone.
        TestImages.write(source + "/img1.jpg", width: 100, height: 100)
        try FileManager.default.removeItem(atPath: out + "/256/img2.jpg")
        var damaged = try Data(contentsOf: URL(fileURLWithPath: out + "/256/img3.jpg"))
        damaged[damaged.count / 2] ^= 0xFF
        try damaged.write(to: URL(fileURLWithPath: out + "/256/img3.jpg"))
        let third = try await runThumbs([source], out: out)
        let s = statuses(third.manifest)
        XCTAssertEqual(s["img1.jpg"], .ok)
        XCTAssertEqual(s["img2.jpg"], .ok)
        XCTAssertEqual(s["img3.jpg"], .ok)
        XCTAssertEqual(s["img0.jpg"], .unchanged)
        XCTAssertEqual(third.manifest?.item("img1.jpg")?.width, 100)
        XCTAssertEqual(TestImages.header(out + "/256/img2.jpg")?.width, 256)
        let repaired = try Data(contentsOf: URL(fileURLWithPath: out + "/256/img3.jpg"))
        XCTAssertEqual(SHA256Hex.of(repaired), first.manifest?.item("img3.jpg")?.outputs.first?.sha256)

        // A setting that changes outputs redoes everything; so does --force.
        let requality = try await runThumbs([source], out: out) { $0.output.quality = 60 }
        XCTAssertEqual(Set(statuses(requality.manifest).values), [.ok])
        let forced = try await runThumbs([source], out: out) { $0.output.quality = 60; $0.force = true }
        XCTAssertEqual(Set(statuses(forced.manifest).values), [.ok])
        let settled = try await runThumbs([source], out: out) { $0.output.quality = 60 }
        XCTAssertEqual(Set(statuses(settled.manifest).values), [.unchanged])
    }

    func testGoneSourcesAreReportedAndPruned() async throws {
        _ = try await runThumbs([source], out: out)
        try FileManager.default.removeItem(atPath: source + "/img4.jpg")
        let kept = try await runThumbs([source], out: out)
        XCTAssertEqual(kept.manifest?.gone, ["img4.jpg"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/256/img4.jpg"), "without --prune outputs stay")
        try FileManager.default.removeItem(atPath: source + "/img5.jpg")
        XCTAssertEqual(kept.manifest?.kept?.map(\.id), ["img4.jpg"], "a gone source stays on record until pruned")
        let pruned = try await runThumbs([source], out: out) { $0.prune = true }
        // img4.jpg, gone a run earlier, is still known: pruned with img5.jpg.
        XCTAssertEqual(pruned.manifest?.gone, ["img5.jpg", "img4.jpg"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/256/img5.jpg"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/256/img4.jpg"))
        XCTAssertEqual(pruned.manifest?.kept ?? [], [])
    }

    func testIdenticalBytesAreDecodedOnceAndGetTheirOwnFiles() async throws {
        try FileManager.default.copyItem(atPath: source + "/img0.jpg", toPath: source + "/copy-a.jpg")
        try FileManager.default.createDirectory(atPath: source + "/sub", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: source + "/img0.jpg", toPath: source + "/sub/copy-b.jpg")
        let outcome = try await runThumbs([source], out: out) { $0.output.sizes = [ThumbSize(width: 64, height: 64), ThumbSize(width: 128, height: 128)] }
        let manifest = try XCTUnwrap(outcome.manifest)
        let copies = manifest.items.filter { $0.sha256 == manifest.item("img0.jpg")?.sha256 }
        XCTAssertEqual(copies.count, 3)
        XCTAssertEqual(copies.filter { $0.status == .ok }.count, 1, "decoded once")
        let leader = try XCTUnwrap(copies.first { $0.status == .ok })
        for copy in copies where copy.status == .duplicate {
            XCTAssertEqual(copy.duplicateOf, leader.id)
            XCTAssertEqual(copy.outputs.map(\.sha256), leader.outputs.map(\.sha256))
            XCTAssertNotEqual(copy.outputs.map(\.path), leader.outputs.map(\.path))
            for output in copy.outputs {
                XCTAssertEqual(TestImages.header(out + "/" + output.path)?.width, output.width)
            }
        }
        XCTAssertEqual(outcome.statistics?.counts.duplicate, 2)
    }

    func testASecondRunIntoAHeldOutputFailsAtOnce() async throws {
        let holder = try OutputDirectory(path: out)
        do {
            _ = try await runThumbs([source], out: out)
            XCTFail("the second run must not start")
        } catch let error as RunError {
            XCTAssertEqual(error.exitCode, .fatal)
            XCTAssertTrue(error.message.contains("another thumbs run"), error.message)
        }
        withExtendedLifetime(holder) {}
    }

    func testExitCodes() async throws {
        try Data("broken".utf8).write(to: URL(fileURLWithPath: source + "/broken.jpg"))
        let strict = try await runThumbs([source], out: out)
        XCTAssertEqual(strict.status, .failures)
        let tolerant = try await runThumbs([source], out: out) { $0.maxFailures = .count(1) }
        XCTAssertEqual(tolerant.status, .success)
        let percent = try await runThumbs([source], out: out) { $0.maxFailures = .percent(10) }
        XCTAssertEqual(percent.status, .failures, "1 of 7 is more than 10%")
        do {
            _ = try await runThumbs([root + "/missing"], out: out)
            XCTFail("missing source")
        } catch let error as RunError {
            XCTAssertEqual(error.exitCode, .usage)
        }
        try Data().write(to: URL(fileURLWithPath: root + "/a-file"))
        do {
            _ = try await runThumbs([source], out: root + "/a-file/out")
            XCTFail("unwritable OUT")
        } catch let error as RunError {
            XCTAssertEqual(error.exitCode, .fatal)
            XCTAssertTrue(error.message.contains("cannot write"), error.message)
        }
    }

    func testAnInterruptedRunKeepsItsWorkAndTheNextOneFinishes() async throws {
        for i in 6..<30 {
            TestImages.write(source + "/more\(i).jpg", width: 200, height: 150)
        }
        var options = RunOptions(sources: [source], outputDirectory: out)
        options.jobs = 1
        options.progress = .never
        options.verbosity = .quiet
        let interrupt = InterruptSignal()
        interrupt.raise()  // as if Ctrl-C came at once: only the first window runs
        let interrupted = try await ThumbsRun(options: options, interrupt: interrupt).run()
        XCTAssertEqual(interrupted.status, .interrupted)
        let partial = try readManifest(out)
        XCTAssertEqual(partial.interrupted, true)
        XCTAssertGreaterThan(partial.items.count, 0)
        XCTAssertLessThan(partial.items.count, 30)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/.thumbs/journal.ndjson"))

        let resumed = try await runThumbs([source], out: out)
        XCTAssertEqual(resumed.status, .success)
        let manifest = try XCTUnwrap(resumed.manifest)
        XCTAssertEqual(manifest.items.count, 30)
        XCTAssertEqual(Set(manifest.items.map(\.id)).count, 30)
        XCTAssertNil(manifest.interrupted)
        let done = Set(partial.items.map(\.id))
        for item in manifest.items {
            XCTAssertEqual(item.status, done.contains(item.id) ? .unchanged : .ok, item.id)
        }
    }
}

final class DryRunTests: XCTestCase {
    func testDryRunWritesNothing() async throws {
        let root = TestImages.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        TestImages.write(root + "/in/a.jpg", width: 64, height: 64)
        let outcome = try await runThumbs([root + "/in"], out: root + "/out") { $0.dryRun = true }
        XCTAssertEqual(outcome.status, .success)
        XCTAssertNil(outcome.manifest)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/out"))
    }
}
