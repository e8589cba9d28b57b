/// The values of one `SUMMARY` of stats.json, kept in bounded memory:
/// count, sum, min and max exactly, and the values themselves in
/// log-linear buckets for the percentiles.
///
/// A bucket is a range of doubles that share their sign, exponent and the
/// top `mantissaBits` (10) bits of their mantissa: 1,024 buckets per power
/// of two, each no wider than 1/1,024 of its lower end. A bucket keeps how
/// many values fell in it and the smallest of them, and a percentile is the
/// smallest value of the bucket that holds its rank. So p50 and p95 are
/// always values that were recorded, and differ from the exact nearest-rank
/// percentile by less than 0.1 % of it (2^-10); integers below 2,048 (and
/// any set where no two distinct values share a bucket) are exact.
///
/// Memory: at most 1,024 buckets per power of two the values span (a
/// few thousand for anything photos give), whatever the number of values.
public struct QuantileSketch: Sendable, Equatable {
    static let mantissaBits = 10

    public private(set) var count = 0
    public private(set) var sum = 0.0
    public private(set) var min = Double.infinity
    public private(set) var max = -Double.infinity
    private var buckets: [Int64: Bucket] = [:]

    struct Bucket: Sendable, Equatable {
        var count: Int
        var smallest: Double
    }

    public init() {}

    /// Records `value`; infinities and NaN are not values and are dropped.
    public mutating func add(_ value: Double) {
        guard value.isFinite else { return }
        count += 1
        sum += value
        if value < min { min = value }
        if value > max { max = value }
        let key = Self.key(value)
        if var bucket = buckets[key] {
            bucket.count += 1
            if value < bucket.smallest { bucket.smallest = value }
            buckets[key] = bucket
        } else {
            buckets[key] = Bucket(count: 1, smallest: value)
        }
    }

    /// Order-preserving bucket key: the bit pattern without its low mantissa
    /// bits, mirrored for negative values; 0 and -0 share a key.
    static func key(_ value: Double) -> Int64 {
        let shift = UInt64(Double.significandBitCount - mantissaBits)
        let magnitude = Int64((value.magnitude.bitPattern >> shift) + 1)
        return value < 0 ? -magnitude : (value == 0 ? 0 : magnitude)
    }

    /// Nearest-rank percentile (as `Summary.percentile` on sorted values),
    /// within the bucket's width: see the type's comment.
    public func percentile(_ p: Double) -> Double {
        guard count > 0 else { return 0 }
        let rank = Swift.max(1, Swift.min(count, Int((p / 100 * Double(count)).rounded(.up))))
        var seen = 0
        for key in buckets.keys.sorted() {
            let bucket = buckets[key]!
            seen += bucket.count
            if seen >= rank { return bucket.smallest }
        }
        return max
    }

    /// The value at 0-based `index` of the values in ascending order, as
    /// `percentile` (a bucket's smallest value).
    public func value(atIndex index: Int) -> Double {
        var seen = 0
        for key in buckets.keys.sorted() {
            let bucket = buckets[key]!
            seen += bucket.count
            if seen > index { return bucket.smallest }
        }
        return max
    }

    /// The buckets in ascending order: (smallest value, count). For charts.
    public var ascendingBuckets: [(value: Double, count: Int)] {
        buckets.keys.sorted().map { (buckets[$0]!.smallest, buckets[$0]!.count) }
    }
}

extension Summary {
    /// The summary of a sketch's values (`QuantileSketch` says how close
    /// p50 and p95 are).
    public init(_ sketch: QuantileSketch, includeTotal: Bool = false) {
        count = sketch.count
        total = includeTotal ? sketch.sum : nil
        guard sketch.count > 0 else {
            min = 0; max = 0; mean = 0; p50 = 0; p95 = 0
            return
        }
        min = sketch.min
        max = sketch.max
        mean = sketch.sum / Double(sketch.count)
        p50 = sketch.percentile(50)
        p95 = sketch.percentile(95)
    }
}
