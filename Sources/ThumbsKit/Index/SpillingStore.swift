import Foundation

/// A map from text keys to values that a run fills as it goes and looks up
/// one key at a time: a dictionary up to `limit` entries (`SpillLimit`),
/// then a table in a scratch SQLite file (`SQLiteDatabase`: no journal, no
/// fsync, a page cache of `cacheMiB`), made when the first entry past the
/// limit comes. The entries held by then stay in memory; each later one
/// goes to the file. A lookup asks the dictionary, then the file: the
/// answers are the same wherever an entry lives.
///
/// Used for what the run's items leave behind and later ones ask for:
/// finished duplicate outcomes (`DuplicateRegistry`), source-order leaders
/// (`SourceOrderLeaders`) and output paths (`OutputPathIndex`).
///
/// When the file cannot be made or written, `set` keeps the entry in memory
/// (the store then grows, as it would without a file) and throws, so that a
/// caller that must not go on without the file can say so.
final class SpillingStore<Value: SpillableValue> {
    /// Entries kept in memory before the file is made.
    let limit: Int
    /// Where the file goes; nil: the store never spills (tests, dry runs).
    private let path: String?
    private let cacheMiB: Int
    private var memory: [String: Value] = [:]
    private var table: Table?
    /// Entries in the file.
    private(set) var spilledCount = 0

    /// The scratch file's database and its two statements.
    private struct Table {
        var database: SQLiteDatabase
        var upsert: SQLiteStatement
        var find: SQLiteStatement
    }

    init(path: String?, limit: Int, cacheMiB: Int = 4) {
        self.path = path
        self.limit = limit
        self.cacheMiB = cacheMiB
    }

    deinit { remove() }

    /// Entries held in memory.
    var inMemoryCount: Int { memory.count }

    /// Whether the file was made.
    var hasSpilled: Bool { table != nil }

    /// The value of `key`, wherever it lives; nil when there is none or its
    /// stored text no longer reads (a damaged file).
    func value(for key: String) -> Value? {
        if let value = memory[key] { return value }
        guard let find = table?.find else { return nil }
        find.bind(1, key)
        defer { find.reset() }
        guard (try? find.step()) == true else { return nil }
        return Value(spilled: find.text(0))
    }

    func contains(_ key: String) -> Bool {
        value(for: key) != nil
    }

    /// Sets `key` to `value`, replacing what it had: in memory while the
    /// store has room or the key is already there, else in the file.
    func set(_ value: Value, for key: String) throws(SQLiteDatabase.Failure) {
        if memory[key] != nil || (table == nil && (memory.count < limit || path == nil)) {
            memory[key] = value
            return
        }
        do throws(SQLiteDatabase.Failure) {
            let table = try openTable()
            guard let text = value.spilledText else {
                throw SQLiteDatabase.Failure(message: "index \(table.database.path): a value of \(key) has no text")
            }
            table.upsert.bind(1, key)
            table.upsert.bind(2, text)
            try table.upsert.run()
            spilledCount += 1
        } catch {
            memory[key] = value
            throw error
        }
    }

    private func openTable() throws(SQLiteDatabase.Failure) -> Table {
        if let table { return table }
        guard let path else { throw SQLiteDatabase.Failure(message: "no scratch folder") }
        let database = try SQLiteDatabase(creatingAt: path, cacheMiB: cacheMiB)
        try database.execute("CREATE TABLE entries(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID; BEGIN;")
        let table = Table(database: database,
                          upsert: try database.prepare("INSERT OR REPLACE INTO entries VALUES (?, ?)"),
                          find: try database.prepare("SELECT value FROM entries WHERE key = ?"))
        self.table = table
        return table
    }

    /// Deletes the file (the run is over) and forgets every entry.
    func remove() {
        memory = [:]
        table?.database.closeAndRemove()
        table = nil
    }
}

/// A value a `SpillingStore` can keep in its file, as text.
protocol SpillableValue {
    /// The value as text; nil when it has none (it then stays in memory).
    var spilledText: String? { get }
    init?(spilled text: String)
}

extension String: SpillableValue {
    var spilledText: String? { self }
    init?(spilled text: String) { self = text }
}

/// The value of a store used as a set: a key is there or not.
struct KeyOnly: SpillableValue, Equatable {
    init() {}
    var spilledText: String? { "" }
    init?(spilled text: String) {}
}
