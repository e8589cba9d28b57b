/// FNV-1a over a text's UTF-8 bytes, in the two widths thumbs uses: 64 bits
/// for the shard partition (`ShardPartition`), 32 bits for the digest that
/// keeps a shortened output name unique (`OutputNamer`).
///
/// Both values are part of the product: shards made by one version must
/// merge with shards made by the next, and a shortened name must not change
/// between runs. `FNV1aTests` pins them.
enum FNV1a {
    static func hash64(_ text: String) -> UInt64 {
        hash(text, offsetBasis: 0xCBF2_9CE4_8422_2325, prime: 0x0000_0100_0000_01B3)
    }

    static func hash32(_ text: String) -> UInt32 {
        hash(text, offsetBasis: 0x811C_9DC5, prime: 0x0100_0193)
    }

    /// `hash32` as 8 lower-case hex digits.
    static func hex32(_ text: String) -> String {
        let hex = String(hash32(text), radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }

    private static func hash<Word: FixedWidthInteger & UnsignedInteger>(
        _ text: String, offsetBasis: Word, prime: Word
    ) -> Word {
        var hash = offsetBasis
        for byte in text.utf8 {
            hash ^= Word(byte)
            hash = hash &* prime
        }
        return hash
    }
}
