import Foundation

/// Makes the first of identical sources in source order their leader, as a
/// merge does ("the first `ok` leads", `MergedManifestWriter`), whatever
/// order the window finished them in.
///
/// `DuplicateRegistry` lets the first item to finish hashing lead; under
/// load a later copy can get there first, and the earlier one became its
/// `duplicate`. So a run's labels depended on timing. Records pass here in
/// source order (`ProcessingWindow`'s emission): a duplicate whose leader
/// lies after it takes the lead (`ok`; its outputs are links to the same
/// bytes' thumbnails, under its own names), and every later record of those
/// bytes, the old leader among them, becomes its `duplicate`. Counting
/// decoders is not affected: a record keeps the `decoder` it ran.
///
/// Only such inversions are kept, one per digest: none in a run without
/// races. They live in a `SpillingStore`: past `takeoversInMemory`, in an
/// SQLite file under `OUT/.thumbs/tmp/`, like the registry's outcomes.
final class SourceOrderLeaders {
    /// The new leader's id by digest.
    private let takeovers: SpillingStore<String>

    /// What an inversion costs in memory: about 200 bytes (the digest's 64
    /// characters and the id, each a heap block, and the table's slot).
    static let takeoverBytes = 200

    /// Inversions kept in memory before they go to the file (`SpillLimit`: 20,971).
    static var takeoversInMemory: Int { SpillLimit.entries(bytesPerEntry: takeoverBytes) }

    /// `folder`: where inversions go past `takeoversInMemory` (nil: memory).
    init(folder: String?) {
        takeovers = SpillingStore(path: folder.map { $0 + "/leaders-\(UUID().uuidString).sqlite" }, limit: Self.takeoversInMemory, cacheMiB: 2)
    }

    /// Relabels `record`, the item at `position` in source order. Call it
    /// for every record of this run, in source order.
    func relabel(_ record: inout ManifestItem, position: Int) {
        defer { record.leaderPosition = nil }
        // A partly read source has no sha256: the digest of what it read.
        guard record.status == .ok || record.status == .duplicate, let sha = record.duplicateKey ?? record.sha256 else { return }
        if let leader = takeovers.value(for: sha) {
            guard leader != record.id else { return }
            record.status = .duplicate
            record.duplicateOf = leader
            return
        }
        guard record.status == .duplicate, let leaderPosition = record.leaderPosition, leaderPosition > position else { return }
        record.status = .ok
        record.duplicateOf = nil
        // A file that cannot be written leaves it in the store's memory.
        try? takeovers.set(record.id, for: sha)
    }

    /// Deletes the inversions kept on disk (the run is over).
    func remove() {
        takeovers.remove()
    }
}
