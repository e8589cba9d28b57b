import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Sets of manifests that are not the complete shards of one run are refused
/// with a message that says what is wrong, and nothing is written.
final class ShardMergeRefusalTests: TemporaryFolderTestCase {
    private var photos = ""

    override func setUp() {
        super.setUp()
        photos = root + "/photos"
        ShardFixture.makeSmallFolder(photos)
    }

    private func manifests(_ outs: [String]) -> [String] { outs.map { $0 + "/manifest.json" } }

    private func assertRefused(
        _ manifests: [String], copy: Bool = false, code: ExitStatus = .usage, _ fragments: String...,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let out = root + "/merged"
        do {
            _ = try ThumbsMerge(manifests: manifests, outputDirectory: out, copy: copy).run()
            XCTFail("merge of \(manifests) was not refused", file: file, line: line)
        } catch {
            XCTAssertEqual(error.exitCode, code, error.message, file: file, line: line)
            for fragment in fragments {
                XCTAssertTrue(error.message.contains(fragment), "'\(error.message)' does not say '\(fragment)'", file: file, line: line)
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/manifest.json"), "a refused merge wrote a manifest", file: file, line: line)
    }

    func testMissingShard() async throws {
        let outs = try await ShardFixture.runShards([photos], count: 4, into: root)
        assertRefused(manifests([outs[0], outs[1], outs[3]]), "shard 2/4 is missing", "3 of 4 given")
        assertRefused(manifests([outs[3]]), "shards 0/4, 1/4, 2/4 are missing")
    }

    func testDuplicatedShard() async throws {
        let outs = try await ShardFixture.runShards([photos], count: 2, into: root)
        // The same manifest twice, also spelled differently.
        assertRefused(manifests([outs[0], outs[1], outs[0]]), "given twice")
        assertRefused(manifests(outs) + [outs[1] + "/../shard-1/manifest.json"], "given twice")
        // Two folders that both hold shard 1/2.
        try FileManager.default.copyItem(atPath: outs[1], toPath: root + "/copy-of-1")
        assertRefused(manifests(outs + [root + "/copy-of-1"]), "shard 1/2 is given twice", outs[1], root + "/copy-of-1")
    }

    func testShardsOfDifferentSettings() async throws {
        let first = try await runThumbs([photos], out: root + "/a") { $0.shard = Shard(index: 0, count: 2) }
        XCTAssertNotNil(first.manifest)
        _ = try await runThumbs([photos], out: root + "/b") { options in
            options.shard = Shard(index: 1, count: 2)
            options.output.quality = 70
            options.output.format = .webp
        }
        assertRefused(manifests([root + "/a", root + "/b"]), "other settings", "--format jpeg vs webp", "--quality 80 vs 70")
    }

    func testShardsOfDifferentCounts() async throws {
        let two = try await ShardFixture.runShards([photos], count: 2, into: root + "/two")
        let three = try await ShardFixture.runShards([photos], count: 3, into: root + "/three")
        assertRefused(manifests([two[0], three[1], three[2]]), "sets of different sizes")
    }

    func testOverlappingItems() async throws {
        let outs = try await ShardFixture.runShards([photos], count: 2, into: root)
        var first = try readManifest(outs[0]), second = try readManifest(outs[1])
        let stray = try XCTUnwrap(first.items.first)
        second.items.append(stray)
        try JSONCoding.encode(second).write(to: URL(fileURLWithPath: outs[1] + "/manifest.json"))
        assertRefused(manifests(outs), "item '\(stray.id)' is in both shard 0/2", "shard 1/2", "overlap")

        // An item in a shard its id does not hash to: shards of another partition.
        second.items.removeLast()
        first.items.removeFirst()
        try JSONCoding.encode(first).write(to: URL(fileURLWithPath: outs[0] + "/manifest.json"))
        var moved = stray
        moved.outputs = []
        second.items.append(moved)
        try JSONCoding.encode(second).write(to: URL(fileURLWithPath: outs[1] + "/manifest.json"))
        assertRefused(manifests(outs), "item '\(stray.id)' is in shard 1/2", "belongs to shard 0/2")
    }

    func testManifestThatIsNotAShard() async throws {
        let outs = try await ShardFixture.runShards([photos], count: 2, into: root)
        _ = try await runThumbs([photos], out: root + "/whole")
        assertRefused(manifests(outs + [root + "/whole"]), "is not a shard", "--shard")
        assertRefused(manifests([root + "/whole"]), "none of the manifests is a shard")
    }

    func testInterruptedShard() async throws {
        let outs = try await ShardFixture.runShards([photos], count: 2, into: root)
        var manifest = try readManifest(outs[1])
        manifest.interrupted = true
        try JSONCoding.encode(manifest).write(to: URL(fileURLWithPath: outs[1] + "/manifest.json"))
        assertRefused(manifests(outs), "shard 1/2", "was interrupted", "run that shard again")
    }

    func testMissingThumbnailAndRunningShard() async throws {
        let outs = try await ShardFixture.runShards([photos], count: 2, into: root)
        // A shard still running holds its folder's lock.
        do {
            let running = try OutputDirectory(path: outs[0])
            assertRefused(manifests(outs), code: .fatal, outs[0] + "/manifest.json", "is still going", "wait for that shard to finish")
            withExtendedLifetime(running) {}
        }
        // A thumbnail a shard lists has gone.
        let victim = try XCTUnwrap(readManifest(outs[1]).items.first?.outputs.first)
        try FileManager.default.removeItem(atPath: outs[1] + "/" + victim.path)
        assertRefused(manifests(outs), code: .fatal, victim.path, "is missing", "run that shard again")
        assertRefused(manifests(outs), copy: true, code: .fatal, "is missing")
    }

    /// A shard still running holds its folder's lock while it rewrites its
    /// manifest: the merge takes the locks before it reads anything, so it
    /// says the shard is running (exit 3), not that the half-written
    /// manifest is damaged (exit 2), nor that a first run's folder has none.
    func testARunningShardIsRefusedBeforeItsManifestIsRead() async throws {
        let outs = try await ShardFixture.runShards([photos], count: 2, into: root)
        let whole = try Data(contentsOf: URL(fileURLWithPath: outs[0] + "/manifest.json"))
        do {
            let running = try OutputDirectory(path: outs[0])  // the run's own lock, held as a run holds it
            // Half-way through writing its manifest.
            try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: outs[0] + "/manifest.json"))
            assertRefused(manifests(outs), code: .fatal, outs[0] + "/manifest.json", "still going")
            // A first run, before its manifest exists; the folder given for it.
            try FileManager.default.removeItem(atPath: outs[0] + "/manifest.json")
            assertRefused(outs, code: .fatal, outs[0] + "/manifest.json", "still going")
            withExtendedLifetime(running) {}
        }
        // Once it has finished, its (now missing) manifest is what is wrong.
        assertRefused(outs, code: .usage, "is a folder without a manifest.json")
    }

    /// `--copy` copies only regular files inside each shard's folder whose
    /// bytes are those its manifest records: a link (to a file with the very
    /// bytes, so no hash could tell), a link on the way, or a changed
    /// thumbnail refuses the set (exit 2) before anything is written.
    func testCopyRefusesLinksAndChangedThumbnails() async throws {
        let outs = try await ShardFixture.runShards([photos], count: 2, into: root)
        let victim = try XCTUnwrap(readManifest(outs[1]).items.first?.outputs.first)
        let path = outs[1] + "/" + victim.path
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let outsideFile = root + "/outside.jpg"
        try original.write(to: URL(fileURLWithPath: outsideFile))
        let merged = root + "/merged"

        // The thumbnail is a link to an outside file with the same bytes.
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: outsideFile)
        XCTAssertNoThrow(try ThumbsMerge(manifests: manifests(outs), outputDirectory: root + "/by-reference").run(),
                         "without --copy nothing is opened, so the merge goes through")
        assertRefused(manifests(outs), copy: true, code: .usage, victim.path, "is a symbolic link", "regular files")
        XCTAssertFalse(FileManager.default.fileExists(atPath: merged), "a refused --copy made its folder")

        // The size folder on the way is a link to a faithful copy of it.
        try FileManager.default.removeItem(atPath: path)
        try original.write(to: URL(fileURLWithPath: path))
        let sizeFolder = outs[1] + "/" + String(victim.path.split(separator: "/")[0])
        try FileManager.default.moveItem(atPath: sizeFolder, toPath: root + "/outside-size")
        try FileManager.default.createSymbolicLink(atPath: sizeFolder, withDestinationPath: root + "/outside-size")
        assertRefused(manifests(outs), copy: true, code: .usage, "is a symbolic link")
        XCTAssertFalse(FileManager.default.fileExists(atPath: merged))
        try FileManager.default.removeItem(atPath: sizeFolder)
        try FileManager.default.moveItem(atPath: root + "/outside-size", toPath: sizeFolder)

        // Same size, one byte changed.
        var changed = original
        changed[changed.count / 2] ^= 0x01
        try changed.write(to: URL(fileURLWithPath: path))
        assertRefused(manifests(outs), copy: true, code: .usage, path, "is not the file its manifest records")
        XCTAssertFalse(FileManager.default.fileExists(atPath: merged))

        // Restored: the copy goes through, and every file in it is regular.
        try original.write(to: URL(fileURLWithPath: path))
        _ = try ThumbsMerge(manifests: manifests(outs), outputDirectory: merged, copy: true).run()
        for output in try readManifest(merged).items.flatMap(\.outputs) {
            let attributes = try FileManager.default.attributesOfItem(atPath: merged + "/" + output.path)
            XCTAssertEqual(attributes[.type] as? FileAttributeType, .typeRegular, output.path)
        }
    }

    /// Shards whose runs found different items (another source, a list that
    /// changed between them) cannot make one run's order: refused.
    func testShardsOfRunsThatFoundDifferentItems() async throws {
        let outs = try await ShardFixture.runShards([photos], count: 2, into: root)
        var manifest = try readManifest(outs[1])
        let order = try XCTUnwrap(manifest.run?.shardOrder)
        XCTAssertEqual(order.split(separator: ",").count, 6, "every item of the run, in shard 1's manifest too")
        manifest.run?.shardOrder = order + ",1"
        try JSONCoding.encode(manifest).write(to: URL(fileURLWithPath: outs[1] + "/manifest.json"))
        assertRefused(manifests(outs), "found different items in their run", "run every shard again")
    }

    func testOutMustNotBeAShardFolder() async throws {
        let outs = try await ShardFixture.runShards([photos], count: 2, into: root)
        do {
            _ = try ThumbsMerge(manifests: manifests(outs), outputDirectory: outs[1]).run()
            XCTFail("merge into a shard's folder was not refused")
        } catch {
            XCTAssertEqual(error.exitCode, .usage)
            XCTAssertTrue(error.message.contains("is the folder of shard 1/2"), error.message)
        }
        XCTAssertNotNil(try readManifest(outs[1]).shard, "the shard's manifest was overwritten")
    }
}
