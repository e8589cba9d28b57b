import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// The pieces of a merge that need no images: the partition, the order,
/// relative paths, duplicates across shards and the run counters.
final class MergeOrderTests: XCTestCase {
    func testPartitionIsAStableHashOfTheId() {
        // FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c: pinned, so shards made on
        // different machines or by different builds agree.
        XCTAssertEqual(ShardPartition.shard(of: "a", count: 1000), Int(UInt64(0xaf63_dc4c_8601_ec8c) % 1000))
        XCTAssertEqual(ShardPartition.shard(of: "photos/IMG_0001.jpg", count: 7), 3)
        let ids = (0..<500).map { "folder \($0 % 7)/IMG_\($0).jpg" }
        for count in 1...8 {
            let shards = (0..<count).map { Shard(index: $0, count: count)! }
            for id in ids {
                XCTAssertEqual(shards.filter { ShardPartition.contains(id, shard: $0) }.count, 1, "\(id) in \(count) shards")
            }
            // By id, not by position: the same in any order and any company.
            let forward = ids.map { ShardPartition.shard(of: $0, count: count) }
            let backward = ids.reversed().map { ShardPartition.shard(of: $0, count: count) }
            XCTAssertEqual(forward, backward.reversed())
        }
        // Spread over the shards, not all in one.
        let sizes = (0..<4).map { index in ids.filter { ShardPartition.shard(of: $0, count: 4) == index }.count }
        XCTAssertTrue(sizes.allSatisfy { $0 > 80 }, "\(sizes)")
    }

    func testWalkOrderIsTheDirectoryWalksOrder() throws {
        let root = TestImages.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let names = ["a.jpg", "a/b.jpg", "a-b.jpg", "a0.jpg", "a/b/c.jpg", "a/b.c/d.jpg", "A.jpg", "ab/c.jpg",
                     "b.jpg", "é.jpg", "z/ä.jpg", "z/a b.jpg", "10.jpg", "9.jpg", "a b/c.jpg"]
        for name in names {
            let path = root + "/" + name
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data("x".utf8).write(to: URL(fileURLWithPath: path))
        }
        let walked = try DirectoryWalker().collect(root).files.map(\.relativePath)
        XCTAssertEqual(walked.count, names.count)
        let sorted = names.sorted { MergeOrder.walkPrecedes(Array($0.utf8), Array($1.utf8)) }
        XCTAssertEqual(sorted, walked)
        // Plain byte order of whole paths differs: it puts "a-b.jpg" and
        // "a.jpg" before "a/b.jpg", where the walk enters the folder "a" first.
        XCTAssertNotEqual(names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }, walked)
    }

    /// Shards that recorded no order (older versions): a k-way merge by id,
    /// right for one folder and for lists sorted by id.
    func testMergeWithoutARecordedOrderKeepsEachShardsOrderAndInterleavesByWalkOrder() {
        func file(_ id: String) -> ManifestItem { ManifestItem(id: id, source: "/photos/" + id, status: .ok) }
        func remote(_ id: String) -> ManifestItem {
            ManifestItem(id: id, source: "https://example.com/\(id).jpg", status: .ok)
        }
        // The walk's order: the folder "a" sorts before "a-b.jpg" and "a.jpg".
        let all = ["a/b.jpg", "a/c.jpg", "a-b.jpg", "a.jpg", "b.jpg", "c/d/e.jpg", "c.jpg"].map(file)
        let shards = [[all[0], all[2], all[5]], [all[1], all[6]], [], [all[3], all[4]]]
        XCTAssertEqual(MergeOrder.merge(shards).map(\.id), all.map(\.id))

        // Lists first, in natural order of their ids (Picsum: 0, 1, 2, 10).
        let list = ["0", "1", "2", "10", "11", "100"].map(remote)
        let mixed = [[list[0], list[3], all[1]], [list[1], list[2], list[5], all[0]], [list[4], all[2]]]
        XCTAssertEqual(MergeOrder.merge(mixed).map(\.id), list.map(\.id) + ["a/b.jpg", "a/c.jpg", "a-b.jpg"])
    }

    /// With the order the shards recorded, any order of the run comes back:
    /// sources given out of sorted order, a list in its own order, lists
    /// and folders mixed.
    func testInterleaveFollowsTheRecordedOrder() {
        func file(_ id: String) -> ManifestItem { ManifestItem(id: id, source: "/photos/" + id, status: .ok) }
        func remote(_ id: String) -> ManifestItem { ManifestItem(id: id, source: "https://example.com/\(id).jpg", status: .ok) }
        // One run over `z/`, an Unsplash-like list, then `a/`.
        let run = [file("z/1.jpg"), file("z/2.jpg"), remote("Xk2"), remote("b7"), remote("10"), remote("9"), file("a/1.jpg"), file("a/2.jpg")]
        for count in [1, 2, 3, 5] {
            let order = ShardOrder.parse(ShardOrder.of(run.map(\.id), count: count), count: count)!
            XCTAssertEqual(order, run.map { ShardPartition.shard(of: $0.id, count: count) })
            let shards = (0..<count).map { index in run.filter { ShardPartition.shard(of: $0.id, count: count) == index } }
            XCTAssertEqual(MergeOrder.interleave(shards, order: order).map(\.id), run.map(\.id), "\(count) shards")
        }
    }

    func testShardOrderText() {
        // a.jpg, a and photos/IMG_0001.jpg fall in shards 1, 0 and 3 of 4.
        XCTAssertEqual(ShardOrder.of(["a.jpg", "a", "photos/IMG_0001.jpg"], count: 4), "1,0,3")
        XCTAssertEqual(ShardOrder.of([], count: 4), "")
        XCTAssertEqual(ShardOrder.parse("1,0,3", count: 4), [1, 0, 3])
        XCTAssertEqual(ShardOrder.parse("", count: 4), [])
        XCTAssertEqual(ShardOrder.parse("12,0", count: 13), [12, 0])
        for bad in ["1,,0", ",1", "1,", "4", "-1", "1;0", " 1", "99999999999999"] {
            XCTAssertNil(ShardOrder.parse(bad, count: 4), bad)
        }
    }

    func testNaturalOrder() {
        func less(_ a: String, _ b: String) -> Bool { MergeOrder.naturalPrecedes(Array(a.utf8), Array(b.utf8)) }
        XCTAssertTrue(less("2", "10"))
        XCTAssertTrue(less("img2", "img10"))
        XCTAssertTrue(less("1", "01"))
        XCTAssertFalse(less("01", "1"))
        XCTAssertTrue(less("a", "b"))
        XCTAssertTrue(less("a", "a1"))
        XCTAssertFalse(less("x", "x"))
    }

    func testRelativePaths() {
        XCTAssertEqual(RelativePath.relative(from: "/data/thumbs", to: "/data/shards/0/256/a.jpg"), "../shards/0/256/a.jpg")
        XCTAssertEqual(RelativePath.relative(from: "/data", to: "/data/shards/0/256/a.jpg"), "shards/0/256/a.jpg")
        XCTAssertEqual(RelativePath.relative(from: "/a/b/c", to: "/x/y.jpg"), "../../../x/y.jpg")
        XCTAssertEqual(RelativePath.relative(from: "/", to: "/x/y.jpg"), "x/y.jpg")
        XCTAssertEqual(RelativePath.absolute("/data/./shards/../thumbs/"), "/data/thumbs")
        XCTAssertTrue(RelativePath.isContained("256/a/b.jpg"))
        XCTAssertFalse(RelativePath.isContained("../x.jpg"))
        XCTAssertFalse(RelativePath.isContained("256/../../x.jpg"))
        XCTAssertFalse(RelativePath.isContained("/etc/passwd"))
        XCTAssertFalse(RelativePath.isContained("256//a.jpg"))
        XCTAssertFalse(RelativePath.isContained(""))
    }

    func testRunCountersAndTimestamps() {
        var downloads = DownloadCounters()
        downloads.requests = 12
        downloads.ok = 10
        downloads.pages = 2
        downloads.bytes = 1000
        downloads.byStatus = ["200": 10, "503": 2]
        let runs = [
            RunCounters(ignored: 3, wallSeconds: 4.5, downloads: downloads),
            RunCounters(ignored: 3, wallSeconds: 6.25, downloads: downloads),
        ]
        let merged = ShardMerger.counters(runs)
        XCTAssertEqual(merged.ignored, 3)
        XCTAssertEqual(merged.wallSeconds, 6.25)
        XCTAssertEqual(merged.downloads.requests, 24)
        XCTAssertEqual(merged.downloads.ok, 20)
        XCTAssertEqual(merged.downloads.bytes, 2000)
        XCTAssertEqual(merged.downloads.pages, 2)
        XCTAssertEqual(merged.downloads.byStatus, ["200": 20, "503": 4])

        let stamps = ["2024-05-01T10:00:02.500Z", "2024-05-01T09:59:59.000Z", "2024-05-01T10:00:10.125Z"]
        XCTAssertEqual(ShardMerger.earliest(stamps), "2024-05-01T09:59:59.000Z")
        XCTAssertEqual(ShardMerger.latest(stamps), "2024-05-01T10:00:10.125Z")
    }
}
