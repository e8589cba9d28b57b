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
/// races. Past `takeoversInMemory` they go to an SQLite file under
/// `OUT/.thumbs/tmp/`, like the registry's finished outcomes.
final class SourceOrderLeaders {
    private var takeovers: [String: String] = [:]
    private var database: SQLiteDatabase?
    private var insert, find: SQLiteStatement?
    private let folder: String?
    private let inMemory = InMemoryLimit.items(SourceOrderLeaders.takeoversInMemory)

    static let takeoversInMemory = 20_000

    /// `folder`: where inversions go past `takeoversInMemory` (nil: memory).
    init(folder: String?) {
        self.folder = folder
    }

    /// Relabels `record`, the item at `position` in source order. Call it
    /// for every record of this run, in source order.
    func relabel(_ record: inout ManifestItem, position: Int) {
        defer { record.leaderPosition = nil }
        guard record.status == .ok || record.status == .duplicate, let sha = record.sha256 else { return }
        if let leader = takeover(of: sha) {
            guard leader != record.id else { return }
            record.status = .duplicate
            record.duplicateOf = leader
            return
        }
        guard record.status == .duplicate, let leaderPosition = record.leaderPosition, leaderPosition > position else { return }
        record.status = .ok
        record.duplicateOf = nil
        keep(sha, leader: record.id)
    }

    /// Deletes the inversions kept on disk (the run is over).
    func remove() {
        insert = nil
        find = nil
        database?.closeAndRemove()
        database = nil
    }

    deinit { remove() }

    private func takeover(of sha: String) -> String? {
        if let leader = takeovers[sha] { return leader }
        guard let find else { return nil }
        find.bind(1, sha)
        defer { find.reset() }
        return (try? find.step()) == true ? find.text(0) : nil
    }

    private func keep(_ sha: String, leader: String) {
        if database == nil, takeovers.count >= inMemory, let folder {
            do {
                let database = try SQLiteDatabase(creatingAt: folder + "/leaders-\(UUID().uuidString).sqlite", cacheMiB: 2)
                try database.execute("CREATE TABLE leaders(sha TEXT PRIMARY KEY, id TEXT NOT NULL) WITHOUT ROWID; BEGIN;")
                insert = try database.prepare("INSERT OR REPLACE INTO leaders VALUES (?, ?)")
                find = try database.prepare("SELECT id FROM leaders WHERE sha = ?")
                self.database = database
            } catch {
                // No file: the inversions stay in memory.
            }
        }
        if let insert {
            insert.bind(1, sha)
            insert.bind(2, leader)
            if (try? insert.run()) != nil { return }
        }
        takeovers[sha] = leader
    }
}
