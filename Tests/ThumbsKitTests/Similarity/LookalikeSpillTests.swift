import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// The merge's bounded-memory grouping gives exactly the groups of the
/// in-memory rule (`LookalikeGroups.assign`), which its own tests check
/// against the quadratic rule.
final class LookalikeSpillTests: TemporaryFolderTestCase {
    /// Groups `hashes` through the spill and the index, as `thumbs merge`
    /// does (positions are indices; nil: an item without hash).
    private func spillGroups(_ hashes: [UInt64?], distance: Int, partitionRecords: Int) throws -> ([LookalikeGroups.Match?], LookalikeGroups.Summary) {
        let folder = root + "/state-\(distance)-\(partitionRecords)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let index = try MergeIndex(stateDirectory: folder)
        defer { index.remove() }
        let spill = try LookalikeSpill(folder: folder, partitionRecords: partitionRecords)
        for (position, hash) in hashes.enumerated() {
            if let hash { try spill.add(position: position, hash: hash) }
        }
        let summary = try spill.group(distance: distance, index: index)
        var result = [LookalikeGroups.Match?](repeating: nil, count: hashes.count)
        let rows = try index.database.prepare("SELECT pos, rep, distance FROM similar ORDER BY pos")
        while try rows.step() {
            result[rows.int(0)] = LookalikeGroups.Match(representative: rows.int(1), distance: rows.int(2))
        }
        return (result, summary)
    }

    func testSameGroupsAsTheInMemoryRule() throws {
        for distance in [1, 3, 6, 12] {
            let hashes = LookalikeGroupsTests.plantedHashes(count: 4000, maxFlips: distance + 3, seed: UInt64(100 + distance))
            let expected = LookalikeGroups.assign(hashes, maxDistance: distance)
            XCTAssertGreaterThan(expected.compactMap { $0 }.count, 500, "planted look-alikes at D=\(distance)")
            // Many small partitions and one large: the partitioning must not matter.
            for partitionRecords in [256, 1 << 19] {
                let (found, summary) = try spillGroups(hashes, distance: distance, partitionRecords: partitionRecords)
                XCTAssertEqual(found, expected, "D=\(distance), partitions of \(partitionRecords)")
                XCTAssertEqual(summary, LookalikeGroups.summary(expected), "D=\(distance)")
            }
        }
    }

    /// A bucket larger than the pair-by-pair limit (identical and near
    /// hashes: a folder of frames of one scene) goes through multi-index
    /// hashing inside the bucket, and chains across buckets still resolve.
    func testLargeBucketsAndChains() throws {
        var rng = SplitMix64(state: 7)
        var hashes: [UInt64?] = []
        let scene = rng.next()
        for i in 0..<3000 {
            if i % 3 == 0 {
                var h = scene
                for _ in 0..<Int.random(in: 0...8, using: &rng) { h ^= 1 << UInt64.random(in: 0..<64, using: &rng) }
                hashes.append(h)
            } else {
                hashes.append(rng.next())
            }
        }
        let expected = LookalikeGroups.assign(hashes, maxDistance: 6)
        let (found, _) = try spillGroups(hashes, distance: 6, partitionRecords: 512)
        XCTAssertEqual(found, expected)
    }

    /// Copies (many items, few distinct hashes, near ones among them) set
    /// aside before the search when the spill is larger than a partition,
    /// against the rule itself, pair by pair: an item joins the group of the
    /// earliest earlier item within D bits.
    func testCopiesSetAsideGroupAsTheRuleSays() throws {
        var rng = SplitMix64(state: 11)
        let originals = (0..<40).map { _ in rng.next() }
        var hashes: [UInt64?] = []
        for i in 0..<2500 {
            switch i % 5 {
            case 0, 1, 2: hashes.append(originals[Int(rng.next() % 40)])
            case 3:
                var h = originals[Int(rng.next() % 40)]
                for _ in 0..<Int(rng.next() % 5) { h ^= 1 << (rng.next() % 64) }
                hashes.append(h)
            default: hashes.append(i % 10 == 4 ? nil : rng.next())
            }
        }
        let distance = 4
        var expected = [LookalikeGroups.Match?](repeating: nil, count: hashes.count)
        var representative = Array(hashes.indices)
        for i in hashes.indices {
            guard let h = hashes[i] else { continue }
            guard let j = (0..<i).first(where: { hashes[$0].map { ($0 ^ h).nonzeroBitCount <= distance } ?? false }) else { continue }
            representative[i] = representative[j]
            expected[i] = LookalikeGroups.Match(representative: representative[j], distance: (hashes[representative[j]]! ^ h).nonzeroBitCount)
        }
        XCTAssertGreaterThan(expected.compactMap { $0 }.count, 1500)
        for partitionRecords in [64, 1 << 19] {
            let (found, _) = try spillGroups(hashes, distance: distance, partitionRecords: partitionRecords)
            XCTAssertEqual(found, expected, "partitions of \(partitionRecords)")
        }
        // The search's scratch files are gone.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root + "/state-\(distance)-64").filter { $0.hasSuffix(".bin") }, [])
    }

    func testZeroOrOneHashGroupsNothing() throws {
        let (none, summary) = try spillGroups([42, 42, 43], distance: 0, partitionRecords: 256)
        XCTAssertEqual(none, [nil, nil, nil])
        XCTAssertEqual(summary, LookalikeGroups.Summary())
        let (one, _) = try spillGroups([nil, 42, nil], distance: 6, partitionRecords: 256)
        XCTAssertEqual(one, [nil, nil, nil])
    }
}
