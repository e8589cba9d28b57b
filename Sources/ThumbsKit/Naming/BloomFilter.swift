/// A Bloom filter over 64-bit hashes: "certainly absent" or "perhaps
/// present". `ScratchStringSet` asks it before its SQLite table, so that the
/// common answer of the namer's look-ups (no clash) costs no query.
///
/// Ten bits per expected element and seven probes: about 1% false
/// "perhaps"; past the expected count the rate grows, the answers stay
/// right. At a million names it takes 1.25 MB.
struct BloomFilter {
    private var words: [UInt64]
    private let mask: UInt64
    private static let probes = 7

    init(expected: Int) {
        var bits = 1024
        while bits < max(1, expected) * 10 { bits <<= 1 }
        words = [UInt64](repeating: 0, count: bits / 64)
        mask = UInt64(bits - 1)
    }

    mutating func insert(_ hash: UInt64) {
        var position = hash
        let step = (hash >> 32) | 1
        for _ in 0..<Self.probes {
            let bit = position & mask
            words[Int(bit >> 6)] |= 1 << (bit & 63)
            position &+= step
        }
    }

    func mayContain(_ hash: UInt64) -> Bool {
        var position = hash
        let step = (hash >> 32) | 1
        for _ in 0..<Self.probes {
            let bit = position & mask
            if words[Int(bit >> 6)] & (1 << (bit & 63)) == 0 { return false }
            position &+= step
        }
        return true
    }
}
