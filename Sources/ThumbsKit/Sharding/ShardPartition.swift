/// Which shard an item belongs to: a stable hash of its id, so the partition
/// is the same on every machine, in every order, whatever else is in the set.
public enum ShardPartition {
    /// 64-bit FNV-1a of the id's UTF-8 bytes, modulo the shard count.
    public static func shard(of id: String, count: Int) -> Int {
        Int(FNV1a.hash64(id) % UInt64(max(1, count)))
    }

    public static func contains(_ id: String, shard: Shard) -> Bool {
        self.shard(of: id, count: shard.count) == shard.index
    }
}
