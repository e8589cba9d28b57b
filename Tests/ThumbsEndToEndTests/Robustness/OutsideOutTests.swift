import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Issue 14, point 2: nothing is ever created, replaced or deleted outside
/// OUT, not even through a symbolic link to a folder inside OUT, with or
/// without `--prune`. Each test compares a snapshot of a folder outside OUT
/// (names, kinds, contents, times) before and after.
final class OutsideOutTests: TemporaryFolderTestCase {
    var source: String { root + "/in" }
    var out: String { root + "/out" }
    var outside: String { root + "/outside" }
    let fm = FileManager.default

    override func setUp() {
        super.setUp()
        TestImages.write(source + "/a.jpg", width: 320, height: 240)
        TestImages.write(source + "/sub/b.jpg", width: 300, height: 200)
        TestImages.write(source + "/sub/c.jpg", width: 200, height: 300)
        // Files outside OUT with the names a run would write or prune.
        for path in ["a.jpg", "b.jpg", "c.jpg", "sub/b.jpg", "sub/c.jpg", "victim.jpg"] {
            try! fm.createDirectory(atPath: ((outside + "/" + path) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try! Data("precious \(path)\n".utf8).write(to: URL(fileURLWithPath: outside + "/" + path))
        }
    }

    func link(_ path: String, to target: String) throws {
        try fm.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: path, withDestinationPath: target)
    }

    func testSizeFolderLinkedOutsideFailsItsItemsAndWritesNothingThere() async throws {
        try link(out + "/256", to: outside)
        let before = FolderSnapshot(outside)
        let outcome = try await runThumbs([source], out: out) { $0.maxFailures = .percent(100) }
        XCTAssertEqual(FolderSnapshot(outside), before)
        XCTAssertEqual(outcome.status, .success)
        let manifest = try readManifest(out)
        XCTAssertEqual(manifest.items.count, 3)
        for item in manifest.items {
            XCTAssertEqual(item.status, .failed, item.id)
            XCTAssertEqual(item.error?.code, "io", item.id)
            let message = item.error?.message ?? ""
            XCTAssertTrue(message.hasPrefix("cannot write \(out)/256/"), message)
            XCTAssertTrue(message.contains(": 256 in the output folder is a symbolic link"), message)
            XCTAssertTrue(message.contains("replace it with a real folder"), message)
        }
        XCTAssertEqual(try fm.destinationOfSymbolicLink(atPath: out + "/256"), outside, "the link itself is left alone")
        XCTAssertEqual(try fm.contentsOfDirectory(atPath: out + "/.thumbs/tmp"), [], "no temporary file is left")
    }

    func testSubfolderLinkedOutsideFailsOnlyTheItemsBelowIt() async throws {
        try fm.createDirectory(atPath: out + "/256", withIntermediateDirectories: true)
        try link(out + "/256/sub", to: outside)
        let before = FolderSnapshot(outside)
        let outcome = try await runThumbs([source], out: out) { $0.maxFailures = .percent(100) }
        XCTAssertEqual(FolderSnapshot(outside), before)
        let manifest = try XCTUnwrap(outcome.manifest)
        XCTAssertEqual(manifest.item("a.jpg")?.status, .ok)
        XCTAssertEqual(TestImages.header(out + "/256/a.jpg")?.width, 256)
        for id in ["sub/b.jpg", "sub/c.jpg"] {
            let item = try XCTUnwrap(manifest.item(id))
            XCTAssertEqual(item.status, .failed)
            XCTAssertEqual(item.error?.code, "io")
            XCTAssertTrue(item.error?.message.contains("256/sub in the output folder is a symbolic link") ?? false, item.error?.message ?? "")
        }
    }

    func testPruneNeverDeletesThroughALinkedFolder() async throws {
        let first = try await runThumbs([source], out: out)
        XCTAssertEqual(first.statistics?.counts.ok, 3)
        // The sources below sub/ go away, and OUT/256/sub becomes a link to a
        // folder holding files of the same names.
        try fm.removeItem(atPath: source + "/sub")
        try fm.removeItem(atPath: out + "/256/sub")
        try link(out + "/256/sub", to: outside)
        let before = FolderSnapshot(outside)

        // Two of three gone: past the default --max-prune, which is not what this tests.
        let second = try await runThumbs([source], out: out) { $0.prune = true; $0.maxPrune = .percent(100) }
        XCTAssertEqual(FolderSnapshot(outside), before, "prune deleted through the link")
        XCTAssertEqual(second.status, .success)
        XCTAssertEqual(second.manifest?.gone, ["sub/b.jpg", "sub/c.jpg"])
        XCTAssertEqual(second.manifest?.item("a.jpg")?.status, .unchanged)
        XCTAssertEqual(try fm.destinationOfSymbolicLink(atPath: out + "/256/sub"), outside)
    }

    func testPruneOfAWholeLinkedSizeFolderDeletesNothingOutside() async throws {
        _ = try await runThumbs([source], out: out)
        try fm.removeItem(atPath: source + "/a.jpg")
        try fm.removeItem(atPath: source + "/sub")
        try fm.removeItem(atPath: out + "/256")
        try link(out + "/256", to: outside)
        let before = FolderSnapshot(outside)
        TestImages.write(source + "/new.jpg", width: 64, height: 64)

        let second = try await runThumbs([source], out: out) { options in
            options.prune = true
            options.maxFailures = .percent(100)
        }
        XCTAssertEqual(FolderSnapshot(outside), before)
        XCTAssertEqual(second.manifest?.item("new.jpg")?.status, .failed, "its thumbnail would go through the link")
        XCTAssertEqual(second.manifest?.gone?.count, 3)
    }

    func testPruneRefusesManifestPathsThatLeaveOut() async throws {
        _ = try await runThumbs([source], out: out)
        // A manifest edited (or forged) to name files outside OUT.
        var manifest = try readManifest(out)
        for index in manifest.items.indices where manifest.items[index].id.hasPrefix("sub/") {
            manifest.items[index].outputs[0].path = manifest.items[index].id == "sub/b.jpg"
                ? "../outside/victim.jpg" : "256/../../outside/c.jpg"
        }
        try JSONCoding.encode(manifest).write(to: URL(fileURLWithPath: out + "/manifest.json"))
        try fm.removeItem(atPath: source + "/sub")
        let before = FolderSnapshot(outside)

        let second = try await runThumbs([source], out: out) { $0.prune = true }
        XCTAssertEqual(FolderSnapshot(outside), before)
        XCTAssertEqual(second.manifest?.gone, ["sub/b.jpg", "sub/c.jpg"])
    }

    func testALinkToAFileAtAFinalNameIsReplacedNotWrittenThrough() async throws {
        try fm.createDirectory(atPath: out + "/256", withIntermediateDirectories: true)
        try link(out + "/256/a.jpg", to: outside + "/victim.jpg")
        try link(out + "/manifest.json", to: outside + "/a.jpg")
        let before = FolderSnapshot(outside)
        let outcome = try await runThumbs([source], out: out)
        XCTAssertEqual(outcome.status, .success)
        XCTAssertEqual(FolderSnapshot(outside), before)
        var info = stat()
        XCTAssertEqual(lstat(out + "/256/a.jpg", &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFREG, "the link was replaced by the thumbnail")
        XCTAssertEqual(lstat(out + "/manifest.json", &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFREG)
    }

    func testStateFolderLinkedOutsideIsRefusedBeforeAnythingIsWritten() async throws {
        try fm.createDirectory(atPath: outside + "/tmp", withIntermediateDirectories: true)
        try Data("a stale temporary file, or so it seems\n".utf8).write(to: URL(fileURLWithPath: outside + "/tmp/x.tmp"))
        try link(out + "/.thumbs", to: outside)
        let before = FolderSnapshot(outside)
        do {
            _ = try await runThumbs([source], out: out)
            XCTFail("the run used a state folder that is a link")
        } catch let error as RunError {
            XCTAssertEqual(error.exitCode, .fatal)
            XCTAssertTrue(error.message.contains(".thumbs in the output folder is a symbolic link"), error.message)
        }
        XCTAssertEqual(FolderSnapshot(outside), before, "lock, temporary files or the sweep touched the link's target")
    }

    func testJournalLinkedOutsideIsNotWrittenThrough() async throws {
        try fm.createDirectory(atPath: out + "/.thumbs", withIntermediateDirectories: true)
        try link(out + "/.thumbs/journal.ndjson", to: outside + "/victim.jpg")
        let before = FolderSnapshot(outside)
        // The run must get as far as the journal and then either refuse it
        // (exit 3, naming it) or replace the link by a journal of its own and
        // finish; a run that fails earlier for another reason tests nothing.
        do {
            let outcome = try await runThumbs([source], out: out)
            XCTAssertEqual(outcome.status, .success)
            XCTAssertEqual(outcome.manifest?.items.map(\.status), [.ok, .ok, .ok])
        } catch let error as RunError {
            XCTAssertEqual(error.exitCode, .fatal, error.message)
            // Refused when OUT is opened (its own files are checked first) or
            // when the journal is opened: either way the journal is named.
            XCTAssertTrue(error.message.contains("\(out): .thumbs/journal.ndjson is a symbolic link")
                          || error.message.contains("cannot write the journal \(out)/.thumbs/journal.ndjson"), error.message)
            XCTAssertEqual(try fm.destinationOfSymbolicLink(atPath: out + "/.thumbs/journal.ndjson"), outside + "/victim.jpg",
                           "the link itself is left alone")
        }
        XCTAssertEqual(FolderSnapshot(outside), before)
    }

    func testMergeNeverWritesThroughALinkedFolder() async throws {
        // Two shards, then a merge into an OUT whose size folder is a link.
        for index in 0..<2 {
            _ = try await runThumbs([source], out: root + "/shard\(index)") { $0.shard = Shard(index: index, count: 2) }
        }
        try link(out + "/256", to: outside)
        let before = FolderSnapshot(outside)
        let merge = ThumbsMerge(manifests: [root + "/shard0/manifest.json", root + "/shard1/manifest.json"], outputDirectory: out, copy: true)
        do {
            _ = try merge.run()
            XCTFail("the merge wrote through a link")
        } catch {
            XCTAssertTrue(error.message.contains("symbolic link"), error.message)
        }
        XCTAssertEqual(FolderSnapshot(outside), before)
    }
}
