/// `SUMMARY` of stats.json: count, min, max, mean, p50, p95 (nearest rank);
/// `total` only where a sum means something (list entry fields).
public struct Summary: Sendable, Codable, Equatable {
    public var count: Int
    public var min: Double
    public var max: Double
    public var mean: Double
    public var p50: Double
    public var p95: Double
    public var total: Double?

    public init(_ values: [Double], includeTotal: Bool = false) {
        let sorted = values.filter(\.isFinite).sorted()
        count = sorted.count
        let sum = sorted.reduce(0, +)
        total = includeTotal ? sum : nil
        guard let first = sorted.first, let last = sorted.last else {
            min = 0; max = 0; mean = 0; p50 = 0; p95 = 0
            return
        }
        min = first
        max = last
        mean = sum / Double(sorted.count)
        p50 = Summary.percentile(sorted, 50)
        p95 = Summary.percentile(sorted, 95)
    }

    public init<T: BinaryInteger>(_ values: [T], includeTotal: Bool = false) {
        self.init(values.map { Double($0) }, includeTotal: includeTotal)
    }

    /// Nearest-rank percentile of sorted values.
    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[Swift.max(0, Swift.min(sorted.count - 1, rank - 1))]
    }
}
