import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// The bound PRODUCT.md's stats.json figures rely on: p50 and p95 from the
/// sketch are values that were recorded, within 0.1 % (2^-10) of the exact
/// nearest-rank percentile, and exact for integers below 2,048.
final class QuantileSketchTests: XCTestCase {
    func testPercentilesWithinTheBound() {
        var rng = SplitMix64(state: 11)
        for scale in [0.001, 1.0, 37.5, 1e6] {
            var values: [Double] = []
            var sketch = QuantileSketch()
            for _ in 0..<50_000 {
                // Spread over several powers of two, some negative.
                let v = (Double(rng.next() % 1_000_000) / 1000 - 50) * scale
                values.append(v)
                sketch.add(v)
            }
            let sorted = values.sorted()
            for p in [1.0, 50, 95, 99, 100] {
                let exact = Summary.percentile(sorted, p)
                let estimate = sketch.percentile(p)
                XCTAssertTrue(values.contains(estimate), "p\(p) is a recorded value")
                XCTAssertLessThanOrEqual(abs(estimate - exact), abs(exact) * 0x1p-10, "p\(p) at scale \(scale): \(estimate) vs \(exact)")
            }
            XCTAssertEqual(sketch.count, values.count)
            XCTAssertEqual(sketch.min, sorted.first)
            XCTAssertEqual(sketch.max, sorted.last)
        }
    }

    func testIntegersBelow2048AreExact() {
        var rng = SplitMix64(state: 3)
        var values: [Double] = []
        var sketch = QuantileSketch()
        for _ in 0..<20_000 {
            let v = Double(rng.next() % 2048)
            values.append(v)
            sketch.add(v)
        }
        let summary = Summary(sketch), exact = Summary(values)
        XCTAssertEqual(summary.p50, exact.p50)
        XCTAssertEqual(summary.p95, exact.p95)
        XCTAssertEqual(summary.min, exact.min)
        XCTAssertEqual(summary.max, exact.max)
        XCTAssertEqual(summary.count, exact.count)
    }

    /// Memory: buckets, not values.
    func testBucketsDoNotGrowWithValues() {
        var sketch = QuantileSketch()
        for i in 0..<200_000 { sketch.add(1 + Double(i % 977) * 0.37) }
        XCTAssertLessThan(sketch.ascendingBuckets.count, 10 * 1024)
        XCTAssertEqual(sketch.ascendingBuckets.reduce(0) { $0 + $1.count }, 200_000)
        XCTAssertEqual(Summary(QuantileSketch()).count, 0)
    }
}
