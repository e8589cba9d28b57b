import Foundation

/// The one rule for how much of what a run gathers as it goes stays in
/// memory before it moves to a scratch file under `OUT/.thumbs/tmp/`:
/// each store may hold `bytesPerStore`, so it keeps
/// `bytesPerStore / bytesPerEntry` entries, where `bytesPerEntry` is what
/// one of its entries costs in memory (its strings' heap blocks, the
/// table's slot), written beside each store with how it was counted.
///
/// Small runs never touch those files; a run over millions keeps a memory
/// that does not grow with its items.
///
/// `THUMBS_IN_MEMORY_LIMIT=N` lowers every limit to N entries (tests run
/// the on-disk paths over a few images with it; a user has no reason to).
enum SpillLimit {
    /// Memory one store holds at most before it spills: 4 MiB. A run has
    /// five of them at once (finished duplicate outcomes, source-order
    /// leaders, output paths for `--prune`, look-alike hashes, the previous
    /// run's index), 20 MiB together at most: within the +30 MB that the
    /// bench's scale section allows a run of a million items to grow by
    /// over one of ten thousand, with room left for the rest of the run.
    /// And big enough that a run of ten thousand photos, the common case,
    /// keeps every store but the duplicate outcomes (2 KiB each) in memory.
    static let bytesPerStore = 4 << 20

    /// Entries of `bytesPerEntry` bytes that a store keeps in memory,
    /// lowered by `THUMBS_IN_MEMORY_LIMIT`.
    static func entries(bytesPerEntry: Int) -> Int {
        lowered(bytesPerStore / bytesPerEntry)
    }

    /// `limit`, or `THUMBS_IN_MEMORY_LIMIT` when that is lower.
    static func lowered(_ limit: Int) -> Int {
        guard let text = ProcessInfo.processInfo.environment["THUMBS_IN_MEMORY_LIMIT"], let value = Int(text), value >= 0 else {
            return limit
        }
        return min(limit, value)
    }
}
