/// The order of a merged manifest's items.
///
/// A shard keeps the items of the whole run that fall in it, in the run's
/// order, so each shard's `items` is the global order restricted to that
/// shard; what is lost is how the shards interleave.
///
/// Shards of this version record it (`ShardOrder`, `run.shardOrder`): the
/// shard of every item of the run, in order. The merge (`MergedStream`)
/// follows it, and equals one run, whatever the order of the sources and of
/// the lists' entries.
///
/// Shards written before that carry no order. The merge then restores it
/// with a k-way merge (swift-collections' `Heap` of `Head`s): each shard's
/// own order is kept, and among the shards' next items the first by
/// `precedes(_:_:)` comes first (ties: the lower shard index). That is the single run's order
/// when it agrees with `precedes`:
///
/// - file items compare by id segment by segment (`/`-separated), each segment
///   as UTF-8 bytes, a shorter segment before a longer one it begins: that is
///   the directory walk's order (names sorted per folder, depth first), so a
///   single folder source, or several folders or files given in sorted order,
///   merge into the single run's order;
/// - list items (an `http(s)` source or a download record) come before file
///   items and compare "naturally" (digit runs by value, so Picsum's `2`
///   comes before `10`). For lists in another order, and for sources given
///   out of sorted order, the result keeps every shard's order and is
///   deterministic, but may interleave the shards differently from one run.
enum MergeOrder {
    /// A shard's next item in the heap: ordered by its key, ties by the
    /// lower shard index.
    struct Head: Comparable {
        var key: Key
        var shard: Int

        static func < (a: Head, b: Head) -> Bool {
            if a.key.precedes(b.key) { return true }
            if b.key.precedes(a.key) { return false }
            return a.shard < b.shard
        }

        static func == (a: Head, b: Head) -> Bool {
            a.shard == b.shard && !a.key.precedes(b.key) && !b.key.precedes(a.key)
        }
    }

    /// Whether `a` comes before `b` in the merged order.
    static func precedes(_ a: ManifestItem, _ b: ManifestItem) -> Bool {
        Key(a).precedes(Key(b))
    }

    /// What the order looks at: list or file, and the id's UTF-8 bytes.
    struct Key {
        var isListItem: Bool
        var id: [UInt8]

        init(_ item: ManifestItem) {
            self.init(id: item.id, source: item.source, downloaded: item.download != nil)
        }

        init(id: String, source: String, downloaded: Bool) {
            let source = source.lowercased()
            isListItem = downloaded || source.hasPrefix("http://") || source.hasPrefix("https://")
            self.id = Array(id.utf8)
        }

        func precedes(_ other: Key) -> Bool {
            if isListItem != other.isListItem { return isListItem }
            return isListItem ? MergeOrder.naturalPrecedes(id, other.id) : MergeOrder.walkPrecedes(id, other.id)
        }
    }

    /// The directory walk's order of two relative paths: segment by segment,
    /// bytes within a segment. Equivalent to comparing bytes with `/` below
    /// every other byte and the end of a path below `/`.
    static func walkPrecedes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        let slash = UInt8(ascii: "/")
        var i = 0
        while i < a.count && i < b.count {
            let x = a[i], y = b[i]
            if x != y {
                if x == slash { return true }
                if y == slash { return false }
                return x < y
            }
            i += 1
        }
        return a.count < b.count
    }

    /// Runs of ASCII digits compare by value (then by length, so `01` after
    /// `1`), everything else by bytes.
    static func naturalPrecedes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var i = 0, j = 0
        while i < a.count && j < b.count {
            if isDigit(a[i]) && isDigit(b[j]) {
                let runA = digitRun(a, from: i), runB = digitRun(b, from: j)
                let valueA = a[runA.significant..<runA.end], valueB = b[runB.significant..<runB.end]
                if valueA.count != valueB.count { return valueA.count < valueB.count }
                if valueA.elementsEqual(valueB) == false { return valueA.lexicographicallyPrecedes(valueB) }
                let lengthA = runA.end - i, lengthB = runB.end - j
                if lengthA != lengthB { return lengthA < lengthB }
                i = runA.end
                j = runB.end
            } else {
                if a[i] != b[j] { return a[i] < b[j] }
                i += 1
                j += 1
            }
        }
        if (a.count - i) != (b.count - j) { return (a.count - i) < (b.count - j) }
        return a.lexicographicallyPrecedes(b)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// Where a run of digits starting at `start` ends, and where its value
    /// starts once leading zeros are skipped.
    private static func digitRun(_ bytes: [UInt8], from start: Int) -> (significant: Int, end: Int) {
        var end = start
        while end < bytes.count && isDigit(bytes[end]) { end += 1 }
        var significant = start
        while significant < end - 1 && bytes[significant] == 0x30 { significant += 1 }
        return (significant, end)
    }
}
