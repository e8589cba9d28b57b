import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// `thumbs merge` as it streams, on shard manifests made up here (each item
/// in the shard its id hashes to, tiny files for outputs): the merged
/// manifest is the run's items in the run's order with the run's rules for
/// duplicates and look-alikes applied across shards, and stats.json is what
/// `Statistics` computes from that manifest, with and without a recorded
/// order; the index under OUT/.thumbs/ is gone afterwards.
final class StreamingMergeTests: TemporaryFolderTestCase {
    /// Writes the shards of `items` (the run's items, in its order) and
    /// returns their folders.
    private func writeShards(_ items: [ManifestItem], count: Int, recordOrder: Bool) throws -> [String] {
        var folders: [String] = []
        for index in 0..<count {
            let folder = root + "/shard-\(index)"
            let mine = items.filter { ShardPartition.shard(of: $0.id, count: count) == index }
            for item in mine {
                for output in item.outputs {
                    let path = folder + "/" + output.path
                    try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                    try Data("thumbnail of \(item.id)".utf8).write(to: URL(fileURLWithPath: path))
                }
            }
            var run = RunCounters(ignored: 1, wallSeconds: Double(index + 1), similar: 6)
            if recordOrder { run.shardOrder = ShardOrder.of(items.map(\.id), count: count) }
            let manifest = Manifest(tool: .init(libvips: "8.14.1"), startedAt: "2024-05-01T10:00:0\(index).000Z",
                                    finishedAt: "2024-05-01T10:01:0\(index).000Z", settings: OutputSettings(),
                                    shard: Shard(index: index, count: count), run: run, items: mine)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try ManifestWriter.encode(manifest).write(to: URL(fileURLWithPath: folder + "/manifest.json"))
            folders.append(folder)
        }
        return folders
    }

    /// 300 items in walk order: bytes shared across shards (duplicates,
    /// an existing duplicate, a failed and an unchanged copy), pHashes that
    /// make chains of look-alikes across shards, failures.
    private func runItems() -> [ManifestItem] {
        var rng = SplitMix64(state: 5)
        var items: [ManifestItem] = []
        var hashes: [UInt64] = []
        for i in 0..<300 {
            let id = String(format: "d%02d/img-%04d.jpg", i / 40, i)
            var hash = rng.next()
            if i > 0 && i % 4 == 0 {
                hash = hashes[Int(rng.next() % UInt64(i))]
                for _ in 0..<Int(rng.next() % 5) { hash ^= 1 << (rng.next() % 64) }
            }
            hashes.append(hash)
            let sha = i % 10 == 3 ? "shared-\(i % 3)" : "sha-\(i)"
            var status: ItemStatus = .ok
            if i % 37 == 5 { status = .failed }
            if i == 133 { status = .unchanged }
            if i == 13 { status = .duplicate }
            var item = ManifestItem(id: id, source: "/p/" + id, status: status, sha256: sha, format: "jpeg",
                                    width: 600 + i, height: 400 + i % 50, ms: Double(i % 17) + 0.5)
            if status == .failed {
                item.error = ErrorRecord(code: "decode", message: "bad")
            } else {
                let bytes = Data("thumbnail of \(id)".utf8)
                item.outputs = [ManifestOutput(size: "256", path: "256/" + id, width: 64, height: 48, bytes: Int64(bytes.count),
                                               format: "jpeg", sha256: SHA256Hex.of(bytes))]
                item.phash = String(format: "%016llx", hash)
            }
            if status == .duplicate { item.duplicateOf = "somewhere" }
            items.append(item)
        }
        return items
    }

    func testMergedEqualsTheRunsRulesAppliedInOrder() throws {
        for recordOrder in [true, false] {
            let items = runItems()
            let folders = try writeShards(items, count: 5, recordOrder: recordOrder)
            let out = root + "/merged-\(recordOrder)"
            let outcome = try ThumbsMerge(manifests: folders, outputDirectory: out, copy: true).run()

            // What one run would have: duplicates (first ok leads), look-alikes.
            var expected = items
            ShardMergerRules.linkDuplicates(&expected)
            LookalikeReference.apply(to: &expected, distance: 6)
            let written = try readManifest(out)
            XCTAssertEqual(written.items.map(\.id), items.map(\.id), "order, recorded: \(recordOrder)")
            XCTAssertEqual(written.items, expected, "recorded order: \(recordOrder)")
            XCTAssertGreaterThan(expected.filter { $0.similarTo != nil }.count, 40)
            XCTAssertGreaterThan(expected.filter { $0.status == .duplicate }.count, 20)
            // A duplicate before its hash's first `ok` item points to that item.
            XCTAssertEqual(written.item("d00/img-0013.jpg")?.duplicateOf, "d01/img-0043.jpg")
            XCTAssertEqual(written.item("d03/img-0133.jpg")?.status, .unchanged)
            XCTAssertEqual(written.item("d03/img-0153.jpg")?.status, .failed)

            var whole = written
            whole.run = outcome.header.run
            let stats = try JSONDecoder().decode(Statistics.self, from: Data(contentsOf: URL(fileURLWithPath: out + "/stats.json")))
            // Counted here from the run's items, not by the accumulator
            // that wrote stats.json.
            func count(_ status: ItemStatus) -> Int { expected.filter { $0.status == status }.count }
            let seen = expected.filter { $0.status != .failed }
            XCTAssertEqual(stats.counts.discovered, 300)
            XCTAssertEqual([stats.counts.ok, stats.counts.unchanged, stats.counts.duplicate, stats.counts.failed],
                           [count(.ok), count(.unchanged), count(.duplicate), count(.failed)])
            XCTAssertEqual(stats.counts.ignored, 1, "the largest shard's ignored count: every shard walks the same tree")
            XCTAssertEqual(stats.formats.input, SortedMap(["jpeg": seen.count]))
            XCTAssertEqual(stats.formats.output, SortedMap(["jpeg": seen.count]))
            XCTAssertEqual(stats.bytes.output, seen.reduce(Int64(0)) { $0 + Int64("thumbnail of \($1.id)".utf8.count) })
            XCTAssertEqual(stats.dimensions.input.width.min, 600)
            XCTAssertEqual(stats.dimensions.input.width.count, seen.count)
            XCTAssertEqual(stats.time.wallSeconds, 5, "the longest of the 5 shards' wall times")
            XCTAssertEqual(stats, outcome.statistics)
            XCTAssertEqual(stats.similar, LookalikeGroups.summary(LookalikeGroups.assign(
                expected.map { $0.status == .failed ? nil : $0.phash.flatMap(PerceptualHash.parse) }, maxDistance: 6)))
            XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/.thumbs/" + MergeIndex.fileName), "the index is removed")
            XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/.thumbs/" + MergeIndex.checksFileName), "the checks' index is removed")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out + "/.thumbs").filter { $0.hasPrefix("lookalike") }, [])
            for folder in folders { try FileManager.default.removeItem(atPath: folder) }
        }
    }
}

/// The run's rule for identical bytes, written out plainly over items in
/// memory: per source hash the first `ok` item leads; every other `ok` and
/// `duplicate` item becomes its duplicate; `unchanged` and `failed` stay.
enum ShardMergerRules {
    static func linkDuplicates(_ items: inout [ManifestItem]) {
        var leaders: [String: String] = [:]
        for item in items where item.status == .ok {
            if let sha = item.sha256, leaders[sha] == nil { leaders[sha] = item.id }
        }
        for index in items.indices {
            guard let sha = items[index].sha256, let leader = leaders[sha], items[index].id != leader else { continue }
            if items[index].status == .ok || items[index].status == .duplicate {
                items[index].status = .duplicate
                items[index].duplicateOf = leader
            }
        }
    }
}
