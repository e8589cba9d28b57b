import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// A bucket where most hashes are copies of a few (a folder of identical
/// photos) is searched over its distinct values: the earliest match of every
/// item must still be the one a pair-by-pair search finds.
final class LookalikeCopiesTests: XCTestCase {
    /// The rule itself, pair by pair: the smallest j < i within `distance`.
    private func bruteForce(_ values: [UInt64], distance: Int) -> [Int32] {
        values.indices.map { i in
            for j in 0..<i where (values[i] ^ values[j]).nonzeroBitCount <= distance { return Int32(j) }
            return -1
        }
    }

    func testCopiesGetTheEarliestMatchOfAPairByPairSearch() {
        var random = SplitMix64(state: 7)
        for round in 0..<6 {
            // A few base hashes, near variants of some, and many copies.
            let bases = (0..<(5 + round * 7)).map { _ in random.next() }
            var values: [UInt64] = []
            for _ in 0..<(400 + round * 150) {
                var v = bases[Int(random.next() % UInt64(bases.count))]
                if random.next() % 5 == 0 { v ^= 1 << (random.next() % 64) }  // a look-alike, one bit away
                if random.next() % 9 == 0 { v ^= 0b1011 << (random.next() % 60) }  // three bits away
                values.append(v)
            }
            let expected = bruteForce(values, distance: 4)
            XCTAssertNotNil(LookalikeSpill.earliestAmongCopies(values, distance: 4), "round \(round): mostly copies")
            XCTAssertEqual(LookalikeSpill.earliest(values, distance: 4), expected, "round \(round)")
        }
    }

    func testOneValueAMillionTimesCostsLittle() {
        let values = [UInt64](repeating: 0x8021_d40e_fe7e_cc6e, count: 1_000_000)
        let result = LookalikeSpill.earliest(values, distance: 6)
        XCTAssertEqual(result[0], -1)
        XCTAssertTrue(result.dropFirst().allSatisfy { $0 == 0 })
    }

    func testDistinctValuesTakeTheUsualSearch() {
        var random = SplitMix64(state: 11)
        let values = (0..<600).map { _ in random.next() }
        XCTAssertNil(LookalikeSpill.earliestAmongCopies(values, distance: 6))
        XCTAssertEqual(LookalikeSpill.earliest(values, distance: 6), bruteForce(values, distance: 6))
    }
}
