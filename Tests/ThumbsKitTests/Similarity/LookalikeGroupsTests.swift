import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

final class LookalikeGroupsTests: XCTestCase {
    /// The rule, written the obvious quadratic way.
    static func bruteForce(_ hashes: [UInt64?], maxDistance: Int) -> [LookalikeGroups.Match?] {
        var result = [LookalikeGroups.Match?](repeating: nil, count: hashes.count)
        guard maxDistance > 0 else { return result }
        var representativeOf = [Int](repeating: -1, count: hashes.count)
        for i in hashes.indices {
            guard let h = hashes[i] else { continue }
            representativeOf[i] = i
            for j in 0..<i {
                guard let other = hashes[j], (h ^ other).nonzeroBitCount <= maxDistance else { continue }
                let representative = representativeOf[j]
                representativeOf[i] = representative
                result[i] = .init(representative: representative, distance: (h ^ hashes[representative]!).nonzeroBitCount)
                break
            }
        }
        return result
    }

    /// Random hashes with planted look-alikes: copies of earlier hashes with
    /// 0...maxFlips bits flipped, some of copies (chains), some missing hashes.
    static func plantedHashes(count: Int, maxFlips: Int, seed: UInt64) -> [UInt64?] {
        var rng = SplitMix64(state: seed)
        var hashes: [UInt64?] = []
        for i in 0..<count {
            let roll = Int.random(in: 0..<10, using: &rng)
            if i > 0 && roll < 4, let base = hashes[Int.random(in: 0..<i, using: &rng)] {
                var h = base
                for _ in 0..<Int.random(in: 0...maxFlips, using: &rng) { h ^= 1 << UInt64.random(in: 0..<64, using: &rng) }
                hashes.append(h)
            } else if roll == 4 {
                hashes.append(nil)
            } else {
                hashes.append(rng.next())
            }
        }
        return hashes
    }

    func testMatchesTheBruteForceRuleOnPlantedLookalikes() {
        for maxDistance in [1, 3, 4, 7, 8, 10, 12, 16] {
            let hashes = Self.plantedHashes(count: 3000, maxFlips: maxDistance + 3, seed: UInt64(maxDistance))
            let expected = Self.bruteForce(hashes, maxDistance: maxDistance)
            let actual = LookalikeGroups.assign(hashes, maxDistance: maxDistance)
            XCTAssertEqual(actual, expected, "D = \(maxDistance)")
            // The planting really made groups, and some near misses stayed out.
            XCTAssertGreaterThan(actual.compactMap { $0 }.count, 300, "D = \(maxDistance)")
        }
    }

    func testSkewedHashesLikeRealPHashes() {
        // Real pHashes are not uniform (the DC bit is always set, low
        // frequencies lean one way): many hashes share chunk values.
        var rng = SplitMix64(state: 99)
        let hashes: [UInt64?] = (0..<2000).map { _ in
            (rng.next() & rng.next() & 0x00FF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        }
        for maxDistance in [5, 10] {
            XCTAssertEqual(LookalikeGroups.assign(hashes, maxDistance: maxDistance),
                           Self.bruteForce(hashes, maxDistance: maxDistance))
        }
    }

    func testTheRuleOnAChain() {
        // a≈b (2 bits), b≈c (2 bits), a and c 4 bits apart; d far; e = a.
        let a: UInt64 = 0, b: UInt64 = 0b11, c: UInt64 = 0b1111, d: UInt64 = .max, e: UInt64 = 0
        let matches = LookalikeGroups.assign([a, b, nil, c, d, e], maxDistance: 2)
        XCTAssertEqual(matches, [
            nil,
            .init(representative: 0, distance: 2),
            nil,
            // c's earliest match is b, so c joins a's group, 4 bits from a.
            .init(representative: 0, distance: 4),
            nil,
            .init(representative: 0, distance: 0),
        ])
        XCTAssertEqual(LookalikeGroups.summary(matches), .init(groups: 1, images: 4))
    }

    func testZeroTurnsGroupingOff() {
        let matches = LookalikeGroups.assign([5, 5, 5], maxDistance: 0)
        XCTAssertEqual(matches, [nil, nil, nil])
        XCTAssertEqual(LookalikeGroups.summary(matches), .init(groups: 0, images: 0))
        XCTAssertEqual(LookalikeGroups.assign([], maxDistance: 8), [])
    }
}
