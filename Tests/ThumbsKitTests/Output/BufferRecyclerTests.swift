import Foundation
import XCTest
@testable import ThumbsKit

/// Source buffers are reused instead of allocated per image: a given-back
/// buffer serves the next request it is large enough for, and only the
/// largest few are kept.
final class BufferRecyclerTests: XCTestCase {
    func testABufferGivenBackIsReusedWhenLargeEnough() {
        let recycler = BufferRecycler()
        let first = recycler.take(3_000_000)
        memset(first, 0xAB, 3_000_000)  // writable over the whole size asked
        recycler.give(first)
        let again = recycler.take(2_000_000)
        XCTAssertEqual(again, first, "a smaller request reuses the spare buffer")
        let bigger = recycler.take(10_000_000)
        XCTAssertNotEqual(bigger, first, "the spare is in use")
        recycler.give(again)
        recycler.give(bigger)
        XCTAssertEqual(recycler.take(9_000_000), bigger, "the spare that is large enough is chosen")
    }

    func testOnlyTheLargestEightAreKept() {
        let recycler = BufferRecycler()
        let sizes = (1...9).map { $0 << 20 }  // 1 MiB ... 9 MiB
        let buffers = sizes.map { recycler.take($0) }
        for buffer in buffers { recycler.give(buffer) }
        var reused: Set<UnsafeMutableRawPointer> = []
        for _ in 0..<8 { reused.insert(recycler.take(1)) }
        XCTAssertEqual(reused, Set(buffers.dropFirst()), "the 1 MiB buffer was released, the eight larger ones kept")
    }

    func testForeignPointersAreFreedNotKept() {
        let recycler = BufferRecycler()
        recycler.give(malloc(64)!)  // not made by the recycler: freed at once
        let buffer = recycler.take(1 << 20)
        recycler.give(buffer)
        XCTAssertEqual(recycler.take(1 << 20), buffer, "the only spare is the recycler's own buffer")
    }

    func testCapacitiesRoundUpToQuartersOfPowersOfTwo() {
        XCTAssertEqual(1.roundedUpToPowerOfTwoQuarter(), 1)
        XCTAssertEqual(1024.roundedUpToPowerOfTwoQuarter(), 1024)
        XCTAssertEqual(1025.roundedUpToPowerOfTwoQuarter(), 1280)
        XCTAssertEqual(1281.roundedUpToPowerOfTwoQuarter(), 1536)
        XCTAssertEqual(1793.roundedUpToPowerOfTwoQuarter(), 2048)
        for n in [3, 100, 65_537, 3_000_000] {
            let rounded = n.roundedUpToPowerOfTwoQuarter()
            XCTAssertGreaterThanOrEqual(rounded, n)
            XCTAssertLessThanOrEqual(Double(rounded), Double(n) * 1.25 + 1, "at most 25% waste for \(n)")
        }
    }
}
