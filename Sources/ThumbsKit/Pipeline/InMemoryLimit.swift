import Foundation

/// How much a run keeps in memory before it moves to files under
/// `OUT/.thumbs/tmp/`: look-alike hashes (`RunResults`), finished duplicate
/// outcomes (`DuplicateRegistry`), output paths for `--prune`
/// (`OutputPathIndex`) and the previous run's index (`PreviousIndex`). Small
/// runs never touch those files; a run over millions keeps a memory that
/// does not grow with its items.
///
/// `THUMBS_IN_MEMORY_LIMIT=N` lowers every limit to N items (tests run the
/// on-disk paths over a few images with it; a user has no reason to).
enum InMemoryLimit {
    static func items(_ limit: Int) -> Int {
        guard let text = ProcessInfo.processInfo.environment["THUMBS_IN_MEMORY_LIMIT"], let value = Int(text), value >= 0 else {
            return limit
        }
        return min(limit, value)
    }
}
