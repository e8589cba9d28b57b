/// Byte ranges of a file, kept sorted and merged (overlapping or touching
/// ranges become one): what a partly read source read, and what its digest
/// covers (`SourceBytes`).
struct ReadRanges: Sendable, Equatable {
    private(set) var ranges: [Range<Int>] = []

    init() {}

    init(_ ranges: [Range<Int>]) {
        for range in ranges { insert(range) }
    }

    /// Adds `range`, merged with those it overlaps or touches.
    mutating func insert(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        var lower = range.lowerBound, upper = range.upperBound
        // The first range that ends at or after `lower`; all before it stay.
        let first = ranges.firstIndex { $0.upperBound >= lower } ?? ranges.count
        var last = first
        while last < ranges.count, ranges[last].lowerBound <= upper {
            lower = min(lower, ranges[last].lowerBound)
            upper = max(upper, ranges[last].upperBound)
            last += 1
        }
        ranges.replaceSubrange(first..<last, with: [lower..<upper])
    }

    mutating func insert(contentsOf other: ReadRanges) {
        for range in other.ranges { insert(range) }
    }

    /// The bytes the ranges cover.
    var count: Int { ranges.reduce(0) { $0 + $1.count } }

    /// Whether one of the ranges holds all of `range`.
    func covers(_ range: Range<Int>) -> Bool {
        ranges.contains { $0.lowerBound <= range.lowerBound && range.upperBound <= $0.upperBound }
    }
}
