/// A set of strings that lives in a table of a scratch SQLite database
/// (`SQLiteDatabase`), not in memory: discovery's sets of ids, output names
/// and folders hold every item of a run, a million and more.
///
/// Membership is Swift's `Set<String>`'s, exactly: strings that are equal
/// under Swift's `==` (canonically equivalent: "é" composed or not, the
/// Kelvin sign and "K") are one element. The key is a string's NFC form in
/// UTF-8 (`String._nfcCodeUnits`, the standard library's own normalisation,
/// which `==` and hashing use), compared byte for byte by SQLite.
///
/// A `BloomFilter` in memory (about 1.25 bytes per element) answers most
/// look-ups of absent strings without a query.
final class ScratchStringSet {
    private let insertKey: SQLiteStatement
    private let findKey: SQLiteStatement
    private var filter: BloomFilter

    /// Makes the table `name`, empty; `expected` sizes the filter.
    init(_ database: SQLiteDatabase, table name: String, expected: Int) throws(SQLiteDatabase.Failure) {
        try database.execute("CREATE TABLE \(name)(key BLOB PRIMARY KEY) WITHOUT ROWID")
        insertKey = try database.prepare("INSERT INTO \(name) VALUES (?)")
        findKey = try database.prepare("SELECT 1 FROM \(name) WHERE key = ?")
        filter = BloomFilter(expected: expected)
    }

    /// The key of `text`: its canonical form's UTF-8 bytes, after one
    /// byte that keeps the key of "" a blob (an empty one binds as NULL).
    static func key(_ text: String) -> [UInt8] {
        var key: [UInt8] = [1]
        key += text._nfcCodeUnits
        return key
    }

    /// The filter's hash: Swift's own, which equal strings share (it
    /// hashes the canonical form too), and cheaper than the key.
    static func hash(_ text: String) -> UInt64 {
        UInt64(bitPattern: Int64(text.hashValue))
    }

    func contains(_ text: String) throws(SQLiteDatabase.Failure) -> Bool {
        guard filter.mayContain(Self.hash(text)) else { return false }
        defer { findKey.reset() }
        Self.key(text).withUnsafeBytes { findKey.bind(1, blob: $0) }
        return try findKey.step()
    }

    /// Adds `text`; false when an equal string was there already.
    @discardableResult
    func insert(_ text: String) throws(SQLiteDatabase.Failure) -> Bool {
        Self.key(text).withUnsafeBytes { insertKey.bind(1, blob: $0) }
        guard try insertKey.insertUnique() else { return false }
        filter.insert(Self.hash(text))
        return true
    }
}
