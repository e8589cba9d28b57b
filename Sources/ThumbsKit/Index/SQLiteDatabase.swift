import CSQLite
import Foundation

/// An embedded SQLite database (Debian's libsqlite3), for what a merge must
/// look up across millions of items without holding them: the index lives
/// in a file under `OUT/.thumbs/`, and SQLite's page cache is capped
/// (`cacheMiB`), so memory does not grow with the number of rows.
///
/// Scratch use only: no journal, no fsync. A crash leaves a file that the
/// next merge deletes and builds again; `manifest.json` stays the contract.
final class SQLiteDatabase {
    private(set) var handle: OpaquePointer?
    let path: String

    struct Failure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// The path that makes a database in memory (a dry run, which writes
    /// nothing to disk).
    static let inMemory = ":memory:"

    /// Opens (creating) the database at `path`, whatever was there removed.
    init(creatingAt path: String, cacheMiB: Int = 32) throws(Failure) {
        self.path = path
        if path != Self.inMemory {
            for suffix in ["", "-journal", "-wal", "-shm"] { try? PathChanges.remove(path + suffix) }
        }
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        guard sqlite3_open_v2(path, &db, flags, nil) == SQLITE_OK, let db else {
            let text = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(db)
            throw Failure(message: "cannot create the index \(path): \(text)")
        }
        handle = db
        try execute("""
            PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE;
            PRAGMA temp_store=FILE; PRAGMA mmap_size=0; PRAGMA cache_size=-\(cacheMiB * 1024);
            """)
    }

    deinit { close() }

    /// Closes the database and deletes its file.
    func closeAndRemove() {
        close()
        if path != Self.inMemory { try? PathChanges.remove(path) }
    }

    func close() {
        guard let handle else { return }
        sqlite3_close_v2(handle)
        self.handle = nil
    }

    /// Runs one or more statements that return no rows.
    func execute(_ sql: String) throws(Failure) {
        var message: UnsafeMutablePointer<CChar>?
        if sqlite3_exec(handle, sql, nil, nil, &message) != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? lastError
            sqlite3_free(message)
            throw Failure(message: "index \(path): \(text)")
        }
    }

    func prepare(_ sql: String) throws(Failure) -> SQLiteStatement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw Failure(message: "index \(path): \(lastError) in \(sql)")
        }
        return SQLiteStatement(statement, database: self)
    }

    var lastError: String {
        handle.map { String(cString: sqlite3_errmsg($0)) } ?? "closed"
    }
}

/// A prepared statement: bind, step, read columns, reset.
final class SQLiteStatement {
    private let statement: OpaquePointer
    private let database: SQLiteDatabase

    fileprivate init(_ statement: OpaquePointer, database: SQLiteDatabase) {
        self.statement = statement
        self.database = database
    }

    deinit { sqlite3_finalize(statement) }

    func bind(_ index: Int32, _ value: Int64) { sqlite3_bind_int64(statement, index, value) }

    func bind(_ index: Int32, _ value: Int) { sqlite3_bind_int64(statement, index, Int64(value)) }

    /// Text, copied by SQLite (SQLITE_TRANSIENT).
    func bind(_ index: Int32, _ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            _ = sqlite3_bind_text(statement, index, UnsafeRawPointer(utf8.baseAddress!).assumingMemoryBound(to: CChar.self),
                                  Int32(utf8.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        }
    }

    /// A blob, copied by SQLite.
    func bind(_ index: Int32, blob: UnsafeRawBufferPointer) {
        sqlite3_bind_blob(statement, index, blob.baseAddress, Int32(blob.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self))
    }

    /// Steps once: true while there is a row to read.
    @discardableResult
    func step() throws(SQLiteDatabase.Failure) -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw SQLiteDatabase.Failure(message: "index \(database.path): \(database.lastError)")
        }
    }

    /// Steps an INSERT that may meet a UNIQUE key: false when it did (the
    /// row was not inserted), true when it was.
    func insertUnique() throws(SQLiteDatabase.Failure) -> Bool {
        let code = sqlite3_step(statement)
        reset()
        if code == SQLITE_DONE { return true }
        if code == SQLITE_CONSTRAINT { return false }
        throw SQLiteDatabase.Failure(message: "index \(database.path): \(database.lastError)")
    }

    /// Runs a statement that returns no row, then resets it.
    func run() throws(SQLiteDatabase.Failure) {
        defer { reset() }
        _ = try step()
    }

    func reset() {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
    }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }

    func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(statement, column)) }

    func text(_ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(statement, column) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}
