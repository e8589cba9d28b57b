import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

final class OptionParsingTests: XCTestCase {
    func testSizes() {
        XCTAssertEqual(ThumbSize(parsing: "256"), ThumbSize(width: 256, height: 256, label: "256"))
        XCTAssertEqual(ThumbSize(parsing: "320x240")?.width, 320)
        XCTAssertEqual(ThumbSize(parsing: "320x240")?.height, 240)
        XCTAssertEqual(ThumbSize(parsing: "320X240")?.label, "320x240")
        for bad in ["", "0", "-5", "x", "10x", "x10", "1x2x3", "abc", "70000", "12.5", "２５６"] {
            XCTAssertNil(ThumbSize(parsing: bad), bad)
        }
    }

    func testFailureBudget() {
        XCTAssertEqual(FailureBudget(parsing: "3"), .count(3))
        XCTAssertEqual(FailureBudget(parsing: "5%"), .percent(5))
        XCTAssertNil(FailureBudget(parsing: "-1"))
        XCTAssertNil(FailureBudget(parsing: "150%"))
        XCTAssertTrue(FailureBudget.count(0).isExceeded(failed: 1, total: 10))
        XCTAssertFalse(FailureBudget.count(1).isExceeded(failed: 1, total: 10))
        XCTAssertFalse(FailureBudget.percent(10).isExceeded(failed: 1, total: 10))
        XCTAssertTrue(FailureBudget.percent(10).isExceeded(failed: 2, total: 10))
    }

    func testShard() {
        XCTAssertEqual(Shard(parsing: "0/4"), Shard(index: 0, count: 4))
        XCTAssertNil(Shard(parsing: "4/4"))
        XCTAssertNil(Shard(parsing: "-1/4"))
        XCTAssertNil(Shard(parsing: "1/0"))
        XCTAssertNil(Shard(parsing: "1"))
    }

    func testGeometryInside() {
        let g = ThumbnailGeometry(sourceWidth: 4000, sourceHeight: 3000, box: ThumbSize(width: 256, height: 256), fit: .inside, enlarge: false)
        XCTAssertEqual([g.width, g.height], [256, 192])
        let tall = ThumbnailGeometry(sourceWidth: 1, sourceHeight: 20000, box: ThumbSize(width: 256, height: 256), fit: .inside, enlarge: false)
        XCTAssertEqual([tall.width, tall.height], [1, 256])
        let small = ThumbnailGeometry(sourceWidth: 100, sourceHeight: 50, box: ThumbSize(width: 256, height: 256), fit: .inside, enlarge: false)
        XCTAssertEqual([small.width, small.height], [100, 50])
        let enlarged = ThumbnailGeometry(sourceWidth: 100, sourceHeight: 50, box: ThumbSize(width: 256, height: 256), fit: .inside, enlarge: true)
        XCTAssertEqual([enlarged.width, enlarged.height], [256, 128])
    }

    func testGeometryCover() {
        let g = ThumbnailGeometry(sourceWidth: 4000, sourceHeight: 3000, box: ThumbSize(width: 200, height: 200), fit: .cover, enlarge: false)
        XCTAssertEqual([g.resizedWidth, g.resizedHeight], [267, 200])
        XCTAssertEqual([g.width, g.height], [200, 200])
        let small = ThumbnailGeometry(sourceWidth: 150, sourceHeight: 100, box: ThumbSize(width: 200, height: 200), fit: .cover, enlarge: false)
        XCTAssertEqual([small.width, small.height], [150, 100])
    }

    func testJPEGShrinkNeverGoesBelowTheTarget() {
        XCTAssertEqual(ThumbnailGeometry.jpegShrink(sourceWidth: 4000, sourceHeight: 3000, neededWidth: 256, neededHeight: 192), 8)
        XCTAssertEqual(ThumbnailGeometry.jpegShrink(sourceWidth: 4000, sourceHeight: 3000, neededWidth: 1024, neededHeight: 768), 2)
        XCTAssertEqual(ThumbnailGeometry.jpegShrink(sourceWidth: 4000, sourceHeight: 3000, neededWidth: 600, neededHeight: 450), 4)
        XCTAssertEqual(ThumbnailGeometry.jpegShrink(sourceWidth: 300, sourceHeight: 200, neededWidth: 256, neededHeight: 171), 1)
    }

    func testShardPartitionIsStableAndComplete() {
        let ids = (0..<1000).map { "photos/img_\($0).jpg" }
        var counts = [Int](repeating: 0, count: 4)
        for id in ids {
            let shard = ShardPartition.shard(of: id, count: 4)
            counts[shard] += 1
            XCTAssertEqual(shard, ShardPartition.shard(of: id, count: 4))
            XCTAssertEqual((0..<4).filter { ShardPartition.contains(id, shard: Shard(index: $0, count: 4)!) }.count, 1)
        }
        XCTAssertEqual(counts.reduce(0, +), 1000)
        XCTAssertTrue(counts.allSatisfy { $0 > 150 }, "\(counts)")
    }

    /// The partition must not change between versions or machines: shards
    /// made by one build are merged by another. Literal values (64-bit
    /// FNV-1a of the id's UTF-8 bytes, modulo the count), for counts
    /// 2, 3, 4, 7, 16 and 1000.
    func testShardPartitionKnownValues() {
        let known: [(String, [Int])] = [
            ("a.jpg", [1, 2, 1, 6, 1, 737]),
            ("a", [0, 1, 0, 5, 12, 996]),
            ("photos/IMG_0001.jpg", [1, 1, 3, 3, 15, 279]),
            ("é.jpg", [0, 2, 0, 2, 8, 536]),
            ("b/c/d.jpg", [1, 2, 1, 6, 9, 625]),
            ("1084", [0, 1, 0, 0, 0, 48]),
            ("Dwu85P9SOIk", [1, 1, 1, 4, 9, 201]),
            ("", [1, 2, 1, 2, 5, 37]),
        ]
        for (id, shards) in known {
            XCTAssertEqual([2, 3, 4, 7, 16, 1000].map { ShardPartition.shard(of: id, count: $0) }, shards, id)
        }
        XCTAssertEqual(ShardPartition.shard(of: "a.jpg", count: 1), 0)
    }
}
