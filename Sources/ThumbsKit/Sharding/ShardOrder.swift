/// The order of a whole run's items as its shards see it: the shard of every
/// item, in the run's order, written by each shard in its manifest
/// (`run.shardOrder`) so that `thumbs merge` interleaves the shards exactly
/// as one run over the same sources orders the items.
///
/// Every shard discovers every source (a folder walked, a list read) and
/// keeps its share, so it knows the whole sequence, and the shards of one
/// run all write the same one. The items' ids alone cannot give that order:
/// sources are taken in the order they are given, and a list keeps its own
/// order (Unsplash's, not its ids'). Text: the shard indices in decimal,
/// separated by commas ("0,2,1,1"), about two bytes an item up to ten shards.
public enum ShardOrder {
    /// Adds the shard of the next item, `id`, to `text`: the sequence made
    /// as the items stream by (`SourceFinaliser`).
    static func append(_ id: String, count: Int, to text: inout String) {
        if !text.isEmpty { text += "," }
        text += String(ShardPartition.shard(of: id, count: count))
    }

    /// The shard indices; nil when the text is not a sequence of indices
    /// below `count`.
    static func parse(_ text: String, count: Int) -> [Int]? {
        if text.isEmpty { return [] }
        var shards: [Int] = []
        for part in text.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            guard !part.isEmpty, part.count <= 9, part.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            let shard = part.reduce(0) { $0 * 10 + Int($1 - 0x30) }
            guard shard < count else { return nil }
            shards.append(shard)
        }
        return shards
    }
}
