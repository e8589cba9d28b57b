/// The order of a merged manifest's items.
///
/// A shard keeps the items of the whole run that fall in it, in the run's
/// order, so each shard's `items` is the global order restricted to that
/// shard; what is lost is how the shards interleave. Merging restores it with
/// a k-way merge: each shard's own order is kept, and among the shards' next
/// items the first by `precedes(_:_:)` comes first (ties: the lower shard
/// index). Whenever the single run's order agrees with `precedes`, the merge
/// gives exactly that order:
///
/// - file items compare by id segment by segment (`/`-separated), each segment
///   as UTF-8 bytes, a shorter segment before a longer one it begins: that is
///   the directory walk's order (names sorted per folder, depth first), so a
///   single folder source, or several folders or files given in sorted order,
///   merge into the single run's order;
/// - list items (an `http(s)` source or a download record) come before file
///   items, as a run discovers lists first, and compare "naturally" (digit runs
///   by value, so Picsum's `2` comes before `10`), which is the order of lists
///   sorted by id. For lists in any other order, and for sources given out of
///   sorted order, the merged order keeps every shard's order and is
///   deterministic, but may interleave the shards differently from one run.
enum MergeOrder {
    /// Merges sequences that are each already in order.
    static func merge(_ sequences: [[ManifestItem]]) -> [ManifestItem] {
        let keys = sequences.map { $0.map(Key.init) }
        var result: [ManifestItem] = []
        result.reserveCapacity(sequences.reduce(0) { $0 + $1.count })
        var positions = [Int](repeating: 0, count: sequences.count)
        var heap = ShardHeap { a, b in
            let ka = keys[a][positions[a]], kb = keys[b][positions[b]]
            if ka.precedes(kb) { return true }
            if kb.precedes(ka) { return false }
            return a < b
        }
        for index in sequences.indices where !sequences[index].isEmpty { heap.push(index) }
        while let shard = heap.popMin() {
            result.append(sequences[shard][positions[shard]])
            positions[shard] += 1
            if positions[shard] < sequences[shard].count { heap.push(shard) }
        }
        return result
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
            let source = item.source.lowercased()
            isListItem = item.download != nil || source.hasPrefix("http://") || source.hasPrefix("https://")
            id = Array(item.id.utf8)
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

/// A binary min-heap of shard indices, ordered by a comparison of their
/// current items (the comparison reads the positions as they are when called).
struct ShardHeap {
    private var elements: [Int] = []
    private let less: (Int, Int) -> Bool

    init(less: @escaping (Int, Int) -> Bool) { self.less = less }

    mutating func push(_ element: Int) {
        elements.append(element)
        var child = elements.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard less(elements[child], elements[parent]) else { break }
            elements.swapAt(child, parent)
            child = parent
        }
    }

    mutating func popMin() -> Int? {
        guard let first = elements.first else { return nil }
        let last = elements.removeLast()
        if !elements.isEmpty {
            elements[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var smallest = parent
                if left < elements.count && less(elements[left], elements[smallest]) { smallest = left }
                if right < elements.count && less(elements[right], elements[smallest]) { smallest = right }
                if smallest == parent { break }
                elements.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return first
    }
}
