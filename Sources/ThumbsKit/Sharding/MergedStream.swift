import HeapModule

/// The shards' items in the merged order, read as a stream: each shard is
/// an `ItemCursor` (one line read at a time, for the fields the pass asks
/// for), and the order is either
/// the run's own (`run.shardOrder`, read number by number from shard 0's
/// manifest: `ShardOrderCursor`) or, for shards that recorded none,
/// `MergeOrder`'s k-way merge (a heap of one item per shard).
///
/// A merge reads it twice: to check and index (`MergeCheckPass`), then to
/// write (`MergedManifestWriter`). The first pass also finds where the order
/// and the shards disagree: a shard with fewer items than its run found for
/// it, or more (those are handed out after the order ends, so that every
/// item is still checked), or an order that is not a list of indices.
final class MergedStream {
    private let cursors: [ItemCursor]
    private let order: ShardOrderCursor?
    private var heads: Heap<MergeOrder.Head>?
    private var pending: [ManifestItem?]
    private var draining = 0
    /// Per shard: items the order named for it.
    private(set) var ordered: [Int]
    /// The order's text is damaged.
    private(set) var orderDamaged = false
    /// Items handed out.
    private(set) var position = 0

    /// `fields`: what the pass reads of each item (`ManifestItemDecoder`),
    /// besides what orders them (`id`, `source`, `download`).
    init(_ shards: [ShardInput], useOrder: Bool, fields: ManifestItemDecoder.Fields = .all) throws(RunError) {
        cursors = shards.map { $0.source.items(fields: fields.union(.download)) }
        order = useOrder ? shards[0].source.orderCursor(count: shards.count) : nil
        ordered = [Int](repeating: 0, count: shards.count)
        pending = [ManifestItem?](repeating: nil, count: shards.count)
        if order == nil {
            var heap = Heap<MergeOrder.Head>()
            for index in cursors.indices {
                if let item = try cursors[index].next() {
                    pending[index] = item
                    heap.insert(MergeOrder.Head(key: MergeOrder.Key(item), shard: index))
                }
            }
            heads = heap
        }
    }

    /// Items read so far from shard `index`.
    func itemsRead(_ index: Int) -> Int { cursors[index].count }

    /// The next item and the index of its shard; nil after the last.
    func next() throws(RunError) -> (item: ManifestItem, shard: Int)? {
        defer { position += 1 }
        if heads != nil {
            guard let head = heads!.popMin() else { return nil }
            let shard = head.shard
            let item = pending[shard]!
            if let following = try cursors[shard].next() {
                pending[shard] = following
                heads!.insert(MergeOrder.Head(key: MergeOrder.Key(following), shard: shard))
            } else {
                pending[shard] = nil
            }
            return (item, shard)
        }
        if let order, !orderDamaged {
            while true {
                let shard: Int?
                do {
                    shard = try order.next()
                } catch {
                    throw .usage("cannot read the run.shardOrder of the shards' manifests: \(error.text)")
                }
                guard let shard else {
                    if order.damaged { orderDamaged = true }
                    break
                }
                ordered[shard] += 1
                // A shard the order names once too often has run out: the
                // counts tell after the pass.
                if let item = try cursors[shard].next() { return (item, shard) }
            }
        }
        // Past the order: items it did not name (none, when all agree).
        while draining < cursors.count {
            if let item = try cursors[draining].next() { return (item, draining) }
            draining += 1
        }
        position -= 1
        return nil
    }
}
