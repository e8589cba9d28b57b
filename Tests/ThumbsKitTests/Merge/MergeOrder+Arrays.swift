@testable import ThumbsKit

/// The merge's two orders over arrays of items, for the tests of the rule:
/// production merges streams (`MergedStream`) with the same `Head` and
/// `Key`, which these use.
extension MergeOrder {
    /// Interleaves the shards' items as `order` (the shard of each item of
    /// the run, in the run's order) says.
    static func interleave(_ sequences: [[ManifestItem]], order: [Int]) -> [ManifestItem] {
        var positions = [Int](repeating: 0, count: sequences.count)
        return order.map { shard in
            defer { positions[shard] += 1 }
            return sequences[shard][positions[shard]]
        }
    }

    /// Merges sequences that are each already in order: each time, the
    /// least of the shards' next items as `Head` orders them.
    static func merge(_ sequences: [[ManifestItem]]) -> [ManifestItem] {
        var positions = [Int](repeating: 0, count: sequences.count)
        var result: [ManifestItem] = []
        while true {
            let heads = sequences.indices.filter { positions[$0] < sequences[$0].count }
                .map { Head(key: Key(sequences[$0][positions[$0]]), shard: $0) }
            guard let least = heads.min() else { return result }
            result.append(sequences[least.shard][positions[least.shard]])
            positions[least.shard] += 1
        }
    }
}
