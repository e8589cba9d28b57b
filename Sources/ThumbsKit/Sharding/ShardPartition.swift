/// Which shard an item belongs to: a stable hash of its id, so the partition
/// is the same on every machine, in every order, whatever else is in the set.
public enum ShardPartition {
    /// 64-bit FNV-1a of the id's UTF-8 bytes, modulo the shard count.
    public static func shard(of id: String, count: Int) -> Int {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in id.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return Int(hash % UInt64(max(1, count)))
    }

    public static func contains(_ id: String, shard: Shard) -> Bool {
        self.shard(of: id, count: shard.count) == shard.index
    }
}
