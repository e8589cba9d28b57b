import Dispatch

/// Groups of look-alike images by perceptual hash.
///
/// The rule, in manifest order: an item joins the group of the EARLIEST
/// earlier item whose hash is within `maxDistance` bits of its own (that item
/// may itself be a member of a group: the new item then joins that same
/// group). An item with no such earlier item starts a group of its own, and is
/// the group's representative: its first member. Each member records the
/// representative and its distance to the representative; through a chain
/// (A≈B, B≈C) that distance can exceed `maxDistance`. A representative records
/// nothing, and neither does an item that nothing resembles.
///
/// The rule depends only on the order and the hashes, so an incremental
/// re-run, a merge of shards or a rerun from scratch of the same manifest
/// order gives the same groups.
///
/// Not quadratic: multi-index hashing. The 64 bits are cut into `m` chunks
/// (4 to 8 of them, 8 to 16 bits each). If two hashes differ in at most D
/// bits, then by pigeonhole at least one chunk differs in at most ⌊D/m⌋ bits,
/// so an item's candidates are the items filed under a chunk value within
/// ⌊D/m⌋ bits of its own; only those are compared in full. For D ≤ 3 that is
/// 4 exact lookups per item. The lookups only read the index, so they run in
/// parallel blocks; a single pass in manifest order then follows the chains.
/// (100,000 random hashes, -O, on 2 busy cores: 0.04 s CPU at D = 3, 0.5 s
/// at D = 8; the cost grows quickly past D = 10.)
public enum LookalikeGroups {
    public struct Match: Sendable, Hashable {
        /// Index, in the input, of the group's first item.
        public let representative: Int
        /// Bits between this item's hash and the representative's.
        public let distance: Int

        public init(representative: Int, distance: Int) {
            self.representative = representative
            self.distance = distance
        }
    }

    /// Counts for `stats.json`: `groups` with at least two images, and
    /// `images` in them, representatives included.
    public struct Summary: Sendable, Hashable, Codable {
        public let groups: Int
        public let images: Int

        public init(groups: Int = 0, images: Int = 0) {
            self.groups = groups
            self.images = images
        }
    }

    /// One entry per input, in the same order: nil for an item without hash,
    /// a representative, or an item in no group; otherwise its match.
    /// `maxDistance` 0 turns grouping off (every entry nil).
    public static func assign(_ hashes: [UInt64?], maxDistance: Int) -> [Match?] {
        var result = [Match?](repeating: nil, count: hashes.count)
        guard maxDistance > 0, hashes.count > 1 else { return result }
        let present = hashes.indices.filter { hashes[$0] != nil }
        let values = present.map { hashes[$0]! }
        var groupOf = [Int32](repeating: 0, count: values.count)  // position in `values` of the representative
        // Copies of one photo share a hash: searched once (`LookalikeSpill`).
        let earliest = LookalikeSpill.earliest(values, distance: maxDistance)
        for i in 0..<values.count {
            let j = Int(earliest[i])
            if j >= 0 {
                let representative = Int(groupOf[j])
                groupOf[i] = Int32(representative)
                let distance = (values[i] ^ values[representative]).nonzeroBitCount
                result[present[i]] = Match(representative: present[representative], distance: distance)
            } else {
                groupOf[i] = Int32(i)
            }
        }
        return result
    }

    /// For each value, the position of the earliest earlier value within
    /// `maxDistance` bits of it, or -1: the first half of `assign`, also run
    /// by `LookalikeSpill` on each bucket of a merge's hashes. `bits`: the
    /// low bits the values use (a bucket's values lack the chunk they
    /// share), which the index's chunks split among them.
    static func earliestMatches(_ values: [UInt64], maxDistance: Int, bits: Int = 64) -> [Int32] {
        guard values.count > 1 else { return [Int32](repeating: -1, count: values.count) }
        let index = ChunkIndex(values, maxDistance: maxDistance, bits: bits)
        // Queries only read the index: spread them over the cores in blocks,
        // each block writing its own slots.
        let earliest = UnsafeMutableBufferPointer<Int32>.allocate(capacity: values.count)
        defer { earliest.deallocate() }
        let slots = EarliestSlots(earliest)
        let blockSize = 4096
        DispatchQueue.concurrentPerform(iterations: (values.count + blockSize - 1) / blockSize) { block in
            index.offsets.withUnsafeBufferPointer { offsets in
                index.members.withUnsafeBufferPointer { members in
                    index.memberHashes.withUnsafeBufferPointer { memberHashes in
                        for i in (block * blockSize)..<min(values.count, (block + 1) * blockSize) {
                            let j = index.earliestMatch(of: i, hash: values[i], maxDistance: maxDistance, offsets: offsets,
                                                        members: members, memberHashes: memberHashes)
                            slots.buffer[i] = Int32(j ?? -1)
                        }
                    }
                }
            }
        }
        return Array(earliest)
    }

    public static func summary(_ matches: [Match?]) -> Summary {
        var representatives = Set<Int>()
        var members = 0
        for case let match? in matches {
            representatives.insert(match.representative)
            members += 1
        }
        return Summary(groups: representatives.count, images: members + representatives.count)
    }
}

/// Lets `concurrentPerform` iterations write disjoint slots of one buffer.
private struct EarliestSlots: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<Int32>
    init(_ buffer: UnsafeMutableBufferPointer<Int32>) { self.buffer = buffer }
}

/// The multi-index: for each chunk, the item positions filed under each chunk
/// value, ascending (a counting sort into one flat array per index, CSR layout).
private struct ChunkIndex: Sendable {
    struct Chunk: Sendable {
        let shift: UInt64
        let bits: Int
        /// Where this chunk's `2^bits + 1` run starts in `offsets`.
        let offsetBase: Int
        /// XOR masks of at most `radius` bits: the chunk values to probe.
        let probes: [UInt32]
    }

    let chunks: [Chunk]
    /// Per chunk, start of each chunk value's run in that chunk's slice of
    /// `members` (slice c starts at c * count).
    var offsets: [Int32] = []
    var members: [Int32] = []
    /// The hash of each entry of `members`, side by side, so that a bucket
    /// is scanned in order rather than by jumps into the hash list.
    var memberHashes: [UInt64] = []
    let count: Int

    /// `bits`: how many low bits of the values are used. Chunks cover only
    /// those: a chunk over bits every value leaves 0 would be one bucket of
    /// every value, and a search quadratic in the values (a merge's buckets
    /// of 10 million hashes lack 9 of their 64 bits).
    init(_ values: [UInt64], maxDistance: Int, bits: Int = 64) {
        count = values.count
        // The chunk count m trades bucket size (fewer, wider chunks) against
        // probes (⌊D/m⌋ grows as m shrinks). Pick the cheapest by an estimate
        // for evenly spread hashes; chunks stay ≤ 16 bits so that the bucket
        // tables are plain arrays.
        let n = Double(values.count)
        let used = max(4, min(64, bits))
        func plan(_ m: Int) -> (cost: Double, widths: [Int], radius: Int) {
            let widths = (0..<m).map { used / m + ($0 < used % m ? 1 : 0) }
            let radius = maxDistance / m
            let cost = widths.reduce(0.0) { total, bits in
                // A bucket lookup is a jump in memory; a comparison, a step
                // along a bucket: a lookup costs about as much as 16 comparisons (measured).
                let probes = Double(Self.maskCount(bits: bits, radius: radius))
                return total + probes * (16 + n / Double(1 << bits))
            }
            return (cost, widths, radius)
        }
        let best = (4...8).map(plan).min { $0.cost < $1.cost }!
        var chunks: [Chunk] = []
        var shift = 0, offsetBase = 0
        for bits in best.widths {
            chunks.append(Chunk(shift: UInt64(shift), bits: bits, offsetBase: offsetBase,
                                probes: Self.masks(bits: bits, radius: min(bits, best.radius))))
            shift += bits
            offsetBase += (1 << bits) + 1
        }
        self.chunks = chunks
        offsets = [Int32](repeating: 0, count: offsetBase)
        members = [Int32](repeating: 0, count: chunks.count * values.count)
        memberHashes = [UInt64](repeating: 0, count: chunks.count * values.count)
        for (c, chunk) in chunks.enumerated() {
            let base = chunk.offsetBase, buckets = 1 << chunk.bits
            for v in values { offsets[base + Int(Self.value(v, chunk)) + 1] += 1 }
            for b in 0..<buckets { offsets[base + b + 1] += offsets[base + b] }
            var fill = Array(offsets[base..<(base + buckets)])
            let memberBase = c * values.count
            for (i, v) in values.enumerated() {
                let b = Int(Self.value(v, chunk))
                members[memberBase + Int(fill[b])] = Int32(i)
                memberHashes[memberBase + Int(fill[b])] = v
                fill[b] += 1
            }
        }
    }

    @inline(__always)
    static func value(_ hash: UInt64, _ chunk: Chunk) -> UInt32 {
        UInt32(truncatingIfNeeded: hash >> chunk.shift) & UInt32((1 << chunk.bits) - 1)
    }

    /// The smallest position j < i whose hash is within `maxDistance` of item i's.
    func earliestMatch(of i: Int, hash h: UInt64, maxDistance: Int, offsets: UnsafeBufferPointer<Int32>,
                       members: UnsafeBufferPointer<Int32>, memberHashes: UnsafeBufferPointer<UInt64>) -> Int? {
        var best = i
        for c in chunks.indices {
            let chunk = chunks[c]
            let own = Self.value(h, chunk)
            let memberBase = c * count
            for mask in chunk.probes {
                let b = chunk.offsetBase + Int(own ^ mask)
                var k = memberBase + Int(offsets[b])
                let end = memberBase + Int(offsets[b + 1])
                // Positions ascend: stop at the first match, or once past `best`.
                while k < end {
                    let j = Int(members[k])
                    if j >= best { break }
                    if (h ^ memberHashes[k]).nonzeroBitCount <= maxDistance {
                        best = j
                        break
                    }
                    k += 1
                }
            }
        }
        return best < i ? best : nil
    }

    static func maskCount(bits: Int, radius: Int) -> Int {
        var total = 0, term = 1  // C(bits, t)
        for t in 0...min(bits, radius) {
            total += term
            term = term * (bits - t) / (t + 1)
        }
        return total
    }

    /// All values of `bits` bits with at most `radius` bits set.
    static func masks(bits: Int, radius: Int) -> [UInt32] {
        var result: [UInt32] = [0]
        var frontier: [(mask: UInt32, next: Int)] = [(0, 0)]
        for _ in 0..<radius {
            var grown: [(mask: UInt32, next: Int)] = []
            for (mask, next) in frontier {
                for bit in next..<bits {
                    let m = mask | (1 << UInt32(bit))
                    grown.append((m, bit + 1))
                    result.append(m)
                }
            }
            frontier = grown
        }
        return result
    }
}
