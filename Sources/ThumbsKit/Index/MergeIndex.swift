import Foundation

/// What a merge looks up across all its items, in an SQLite file under
/// `OUT/.thumbs/` (`SQLiteDatabase`), so that its memory does not grow with
/// them: ids and output paths seen (a shard set that overlaps is refused),
/// the leader of each source hash (the first `ok` item: duplicates across
/// shards), and the look-alike groups (`LookalikeSpill` fills `similar`).
///
/// Scratch files: made new by every merge, deleted when it ends; the ids
/// and output paths, needed only by the checks, live in a file of their
/// own (`checksFileName`) that goes as soon as the checks are done
/// (`dropChecks`): at ten million items it is about a gigabyte.
final class MergeIndex {
    static let fileName = "merge-index.sqlite"
    static let checksFileName = "merge-checks.sqlite"

    let database: SQLiteDatabase
    private let checksPath: String
    private var insertID, findID, insertOutput, findOutput: SQLiteStatement?
    private let insertLeader, findLeader: SQLiteStatement
    private let insertRepID, findRepID: SQLiteStatement

    /// `name`: the files' names without `.sqlite` (a run's look-alike
    /// grouping makes one under a name of its own: `RunResults`).
    init(stateDirectory: String, name: String? = nil, cacheMiB: Int = 32) throws(RunError) {
        checksPath = stateDirectory + "/" + (name.map { $0 + "-checks.sqlite" } ?? Self.checksFileName)
        do {
            database = try SQLiteDatabase(creatingAt: stateDirectory + "/" + (name.map { $0 + ".sqlite" } ?? Self.fileName),
                                          cacheMiB: cacheMiB)
            try? PathChanges.remove(checksPath)
            try database.execute("""
                ATTACH DATABASE '\(checksPath.replacingOccurrences(of: "'", with: "''"))' AS checks;
                PRAGMA checks.journal_mode=OFF; PRAGMA checks.synchronous=OFF;
                CREATE TABLE checks.ids(id TEXT PRIMARY KEY, shard INTEGER) WITHOUT ROWID;
                CREATE TABLE checks.outputs(path TEXT PRIMARY KEY, shard INTEGER) WITHOUT ROWID;
                CREATE TABLE leaders(sha BLOB PRIMARY KEY, pos INTEGER, id TEXT) WITHOUT ROWID;
                CREATE TABLE earliest(pos INTEGER PRIMARY KEY, hash INTEGER, cand INTEGER, cand_hash INTEGER);
                CREATE TABLE similar(pos INTEGER PRIMARY KEY, rep INTEGER, rep_hash INTEGER, distance INTEGER);
                CREATE TABLE repids(pos INTEGER PRIMARY KEY, id TEXT);
                BEGIN;
                """)
            insertID = try database.prepare("INSERT INTO checks.ids VALUES (?, ?)")
            findID = try database.prepare("SELECT shard FROM checks.ids WHERE id = ?")
            insertOutput = try database.prepare("INSERT INTO checks.outputs VALUES (?, ?)")
            findOutput = try database.prepare("SELECT shard FROM checks.outputs WHERE path = ?")
            insertLeader = try database.prepare("INSERT OR IGNORE INTO leaders VALUES (?, ?, ?)")
            findLeader = try database.prepare("SELECT id FROM leaders WHERE sha = ?")
            insertRepID = try database.prepare("INSERT OR IGNORE INTO repids VALUES (?, ?)")
            findRepID = try database.prepare("SELECT id FROM repids WHERE pos = ?")
        } catch {
            throw .fatal("cannot make the merge's index under \(stateDirectory): \(error.message)")
        }
    }

    /// Ends the work and deletes the files.
    func remove() {
        try? dropChecks()
        try? database.execute("COMMIT")
        database.closeAndRemove()
    }

    /// Deletes the ids and output paths once the checks are done.
    func dropChecks() throws(SQLiteDatabase.Failure) {
        guard insertID != nil else { return }
        insertID = nil
        findID = nil
        insertOutput = nil
        findOutput = nil
        try database.execute("COMMIT; DETACH DATABASE checks; BEGIN;")
        try? PathChanges.remove(checksPath)
    }

    /// Records `id` as seen in `shard`; the shard that listed it before, if any.
    func addID(_ id: String, shard: Int) throws(SQLiteDatabase.Failure) -> Int? {
        let insertID = insertID!
        insertID.bind(1, id)
        insertID.bind(2, shard)
        if try insertID.insertUnique() { return nil }
        return try lookup(findID!, id)
    }

    /// Records an output path of `shard`; the other shard that listed it
    /// before, if any (a shard may list a path twice: its duplicates').
    func addOutput(_ path: String, shard: Int) throws(SQLiteDatabase.Failure) -> Int? {
        let insertOutput = insertOutput!
        insertOutput.bind(1, path)
        insertOutput.bind(2, shard)
        if try insertOutput.insertUnique() { return nil }
        guard let earlier = try lookup(findOutput!, path), earlier != shard else { return nil }
        return earlier
    }

    private func lookup(_ statement: SQLiteStatement, _ key: String) throws(SQLiteDatabase.Failure) -> Int? {
        statement.bind(1, key)
        defer { statement.reset() }
        return try statement.step() ? statement.int(0) : nil
    }

    /// Records the item at `position` as its hash's leader unless an
    /// earlier one is (first in merged order wins).
    func offerLeader(sha: String, position: Int, id: String) throws(SQLiteDatabase.Failure) {
        bindHash(insertLeader, sha)
        insertLeader.bind(2, position)
        insertLeader.bind(3, id)
        try insertLeader.run()
    }

    /// The id of the leader of `sha`, if an `ok` item has it.
    func leader(sha: String) throws(SQLiteDatabase.Failure) -> String? {
        bindHash(findLeader, sha)
        defer { findLeader.reset() }
        return try findLeader.step() ? findLeader.text(0) : nil
    }

    /// A 64-digit hex hash as its 32 bytes (half the index), anything else as text.
    private func bindHash(_ statement: SQLiteStatement, _ sha: String) {
        var bytes = [UInt8](repeating: 0, count: 32)
        var valid = sha.utf8.count == 64
        if valid {
            for (index, byte) in sha.utf8.enumerated() {
                guard let nibble = Self.nibble(byte) else { valid = false; break }
                bytes[index / 2] |= index % 2 == 0 ? nibble << 4 : nibble
            }
        }
        if valid {
            bytes.withUnsafeBytes { statement.bind(1, blob: $0) }
        } else {
            statement.bind(1, sha)
        }
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x61...0x66: byte - 0x61 + 10
        case 0x41...0x46: byte - 0x41 + 10
        default: nil
        }
    }

    /// Records the id of a group's first item as the write pass meets it.
    func addRepresentative(position: Int, id: String) throws(SQLiteDatabase.Failure) {
        insertRepID.bind(1, position)
        insertRepID.bind(2, id)
        try insertRepID.run()
    }

    func representativeID(position: Int) throws(SQLiteDatabase.Failure) -> String? {
        findRepID.bind(1, position)
        defer { findRepID.reset() }
        return try findRepID.step() ? findRepID.text(0) : nil
    }
}
