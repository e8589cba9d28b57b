import XCTest
@testable import ThumbsKit

/// FNV-1a decides which shard an item is in and how a shortened output name
/// ends: both must be the same in every version, so the values are pinned
/// (computed with the two hand-written loops this type replaced).
final class FNV1aTests: XCTestCase {
    func testShardPartitionIsPinned() {
        let expected: [(id: String, of4: Int, of7: Int, of1000: Int)] = [
            ("a", 0, 5, 996), ("cat.jpg", 2, 3, 578), ("dir/photo-001.jpg", 0, 3, 884),
            ("", 1, 2, 37), ("é漢字", 2, 6, 22), ("dup#2", 3, 1, 263),
        ]
        for row in expected {
            XCTAssertEqual(ShardPartition.shard(of: row.id, count: 4), row.of4, row.id)
            XCTAssertEqual(ShardPartition.shard(of: row.id, count: 7), row.of7, row.id)
            XCTAssertEqual(ShardPartition.shard(of: row.id, count: 1000), row.of1000, row.id)
        }
        XCTAssertEqual(FNV1a.hash64("a"), 0xAF63_DC4C_8601_EC8C)
        XCTAssertEqual(FNV1a.hash64(""), 0xCBF2_9CE4_8422_2325)
    }

    func testShortenedNamesArePinned() {
        XCTAssertEqual(FNV1a.hex32(""), "811c9dc5")
        XCTAssertEqual(FNV1a.hex32("a"), "e40c292c")
        XCTAssertEqual(FNV1a.hex32("cat.jpg"), "de1b883a")
        XCTAssertEqual(FNV1a.hex32("é漢字"), "4dffd446")
        let long = String(repeating: "x", count: 300)
        XCTAssertEqual(FNV1a.hex32(long), "970138f5")
        XCTAssertEqual(OutputNamer.sanitise(long), String(repeating: "x", count: 111) + "-970138f5")
        // A clash between two shortened names that differ past the cut: the
        // digests keep them apart.
        let names = OutputNamer.sanitise(long + "1") + " " + OutputNamer.sanitise(long + "2")
        XCTAssertEqual(names, String(repeating: "x", count: 111) + "-" + FNV1a.hex32(long + "1") + " "
                       + String(repeating: "x", count: 111) + "-" + FNV1a.hex32(long + "2"))
        XCTAssertNotEqual(FNV1a.hex32(long + "1"), FNV1a.hex32(long + "2"))
    }
}
