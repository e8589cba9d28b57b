import Foundation

/// Where each record of the previous run lies, so that a re-run over a
/// million sources looks its records up one at a time instead of holding
/// them all (issue 23): an SQLite table (`SQLiteDatabase`, in a file of
/// `OUT/.thumbs/tmp/`, or in memory for a small run: `place`) from item id to the record's line
/// in `manifest.json` or in the journal, and one bit per record for "this
/// run has seen its id" (what is left unseen is gone).
///
/// The index is made from `manifest.json` and the journal at the start of
/// every run that reads them, and deleted when the run ends: it is never
/// trusted across runs, so a stale, truncated or foreign file at its name
/// changes nothing (`manifest.json` stays the contract). Building it reads
/// each line once for its id and no further (`ManifestItemDecoder.itemObject`:
/// `ManifestWriter` writes the id first) — about 2 µs an item, against 40 µs for decoding the whole
/// manifest as runs did before.
///
/// Lookups come from the run's I/O threads at once: a lock serialises them
/// (each is a B-tree search and one `pread`).
final class PreviousIndex: @unchecked Sendable {
    /// Where a run keeps the index: in memory (an SQLite database of its
    /// own) for the records of `recordsInMemory` at most, guessed from the
    /// size of manifest.json and the journal (`lineBytes` a record), else
    /// in a file of OUT/.thumbs/tmp, which the run deletes at its end (and
    /// the next run's sweep, after a `kill -9`).
    static func place(in out: OutputDirectory) -> String {
        let bytes = [out.manifestPath, out.journalPath].reduce(Int64(0)) { sum, path in
            sum + (FileInfo.of(pathBytes: Array(path.utf8), followLinks: false)?.size ?? 0)
        }
        return bytes <= Int64(recordsInMemory) * lineBytes ? SQLiteDatabase.inMemory : out.temporaryDirectory + "/previous-\(UUID().uuidString).sqlite"
    }

    /// What a record's row costs in an index held in memory: about 400
    /// bytes (its id twice, in the table and in the UNIQUE index on it,
    /// three integers, and the B-tree pages' slack).
    static let rowBytes = 400

    /// A record's line in manifest.json or the journal, on average: about
    /// 800 bytes (an item with three outputs, placeholders and hashes).
    static let lineBytes: Int64 = 800

    /// Records indexed in memory (`SpillLimit`: 10,485, manifests of up to
    /// about 8 MB).
    static var recordsInMemory: Int { SpillLimit.entries(bytesPerEntry: rowBytes) }

    /// The size of a manifest whose index is kept in memory (`verify
    /// --against`'s baseline, `BaselineScratch`), by the same rule.
    static var inMemoryUpTo: Int64 { Int64(SpillLimit.bytesPerStore / rowBytes) * lineBytes }

    /// Where a record lies.
    enum Place {
        /// A line of manifest.json (0) or of the journal (1), by offset and length.
        case line(file: Int, offset: Int, length: Int)
        /// An item of a manifest in another layout, read whole (`loaded`).
        case loaded(Int)
    }

    private let database: SQLiteDatabase
    private let lock = NSLock()
    private let find: SQLiteStatement
    private var upsert: SQLiteStatement?
    /// manifest.json, open for the run (a manifest replaced meanwhile is
    /// still read as it was indexed), and the `ManifestSource` that owns it.
    private var manifest: Int32?
    private var owner: ManifestSource?
    /// The journal, open for the run; closed with the index.
    private var journal: Int32?
    private var loaded: [ManifestItem] = []
    /// For lines `ManifestItemDecoder` does not read (the lock held).
    private let decoder = JSONDecoder()
    private var seen: [UInt64] = []
    private(set) var count = 0
    private(set) var seenCount = 0
    /// Rows of `leftovers` (`kept` records of items that are items too).
    private(set) var leftoverCount = 0
    /// Whether the records of manifest.json may be reused (`record(for:)`):
    /// not after a settings change or with `--force`, when they are known
    /// only for what is gone and what is no longer produced (`forEachRecord`).
    /// The journal's are always: it is kept only with the run's settings.
    var manifestReusable = true
    private var addLeftover: SQLiteStatement?

    /// An empty index at `path` (`SQLiteDatabase.inMemory` for a dry run),
    /// whatever was there before removed.
    init(path: String) throws(SQLiteDatabase.Failure) {
        database = try SQLiteDatabase(creatingAt: path, cacheMiB: 8)
        try database.execute("""
            CREATE TABLE items(row INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, file INTEGER NOT NULL,
                               offset INTEGER NOT NULL, length INTEGER NOT NULL);
            CREATE TABLE leftovers(row INTEGER PRIMARY KEY, id TEXT NOT NULL, file INTEGER NOT NULL,
                                   offset INTEGER NOT NULL, length INTEGER NOT NULL);
            BEGIN;
            """)
        addLeftover = try database.prepare("INSERT INTO leftovers(id, file, offset, length) VALUES (?, ?, ?, ?)")
        find = try database.prepare("SELECT row, file, offset, length FROM items WHERE id = ?")
        upsert = try database.prepare("""
            INSERT INTO items(id, file, offset, length) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE
            SET file = excluded.file, offset = excluded.offset, length = excluded.length
            """)
    }

    deinit {
        if let journal { try? FileDescriptor.close(journal) }
    }

    /// Deletes the index's file (the run is over).
    func remove() {
        lock.lock()
        defer { lock.unlock() }
        ahead = nil
        cache = [:]
        database.closeAndRemove()
    }

    // MARK: Building

    /// Adds the items of the manifest `source`: each line's place, by id.
    /// Throws when the manifest ends inside its items (cut short).
    func addManifest(_ source: ManifestSource) throws(RunError) {
        if let items = source.loadedItems {
            for item in items {
                try add(id: item.id, file: 2, offset: loaded.count, length: 0)
                loaded.append(item)
            }
            for item in source.header.kept ?? [] {
                try addKept(id: item.id, file: 2, offset: loaded.count, length: 0)
                loaded.append(item)
            }
            return
        }
        guard let fd = source.descriptor, let lines = source.itemLines() ?? source.linesAfterEmptyItems() else { return }
        manifest = fd
        owner = source
        do {
            if source.itemLines() != nil { try addLines(of: lines, source: source, kept: false) }
            // The `kept` records, when the items are followed by them.
            if let line = try lines.next(), line.elementsEqual(Self.keptOpen) {
                try addLines(of: lines, source: source, kept: true)
            }
        } catch let error as RunError {
            throw error
        } catch {
            throw .usage("cannot read manifest \(source.path): \(error)")
        }
    }

    private static let keptOpen = Array(ManifestWriter.keptOpen.dropFirst().utf8)

    /// Adds the item lines up to the `  ]` that ends them: items, or `kept`
    /// records (`addKept`).
    private func addLines(of lines: FileLines, source: ManifestSource, kept: Bool) throws {
        while true {
            let offset = lines.offset
            guard let line = try lines.next() else {
                throw RunError.usage("\(source.path) is not a valid thumbs manifest: it ends inside its items (a file cut short?)")
            }
            if line.elementsEqual("  ]".utf8) { return }
            guard let (id, start, length) = ManifestItemDecoder.itemObject(in: line) else {
                throw RunError.usage("\(source.path) is not a valid thumbs manifest: an item line at byte \(offset) does not start with its id")
            }
            if kept {
                try addKept(id: id, file: 0, offset: offset + start, length: length)
            } else {
                try add(id: id, file: 0, offset: offset + start, length: length)
            }
        }
    }

    /// A `kept` record: a record like the items' when its id is not one
    /// (a source the last run did not see: found again, it is reused), else
    /// a leftover, known only for the outputs it left (`forEachRecord`).
    private func addKept(id: String, file: Int, offset: Int, length: Int) throws(RunError) {
        if locate(id, markSeen: false) == nil { return try add(id: id, file: file, offset: offset, length: length) }
        guard let addLeftover else { return }
        try Self.insert(addLeftover, id: id, file: file, offset: offset, length: length)
    }

    /// Adds the records of a journal (`Journal`'s layout: a header line,
    /// then one record per line), after its header was checked. A line cut
    /// short by a crash does not decode, and is skipped.
    @discardableResult
    func addJournal(descriptor fd: Int32, firstLineEnd: Int) throws(RunError) -> Int {
        journal = fd
        var added = 0
        let lines = FileLines(fd: fd, from: firstLineEnd)
        do {
            while true {
                let offset = lines.offset
                guard let line = try lines.next() else { break }
                guard !line.isEmpty,
                      let id = ManifestItemDecoder.decode(line, fields: [], fallback: decoder)?.id
                else { continue }
                try add(id: id, file: 1, offset: offset, length: line.count)
                added += 1
            }
            return added
        } catch let error as RunError {
            throw error
        } catch {
            throw .fatal("cannot read the journal: \(error)")
        }
    }

    private func add(id: String, file: Int, offset: Int, length: Int) throws(RunError) {
        guard let upsert else { return }
        try Self.insert(upsert, id: id, file: file, offset: offset, length: length)
    }

    /// Runs one of the two statements that place a record's line: an
    /// item's (`upsert`) or a leftover's (`addLeftover`).
    private static func insert(_ statement: SQLiteStatement, id: String, file: Int, offset: Int, length: Int) throws(RunError) {
        statement.bind(1, id)
        statement.bind(2, file)
        statement.bind(3, offset)
        statement.bind(4, length)
        do {
            try statement.run()
        } catch {
            throw .fatal("cannot index the previous run: \(error.message)")
        }
    }

    /// Ends the building: counts the records and makes room for their bits.
    func finishBuilding() throws(RunError) {
        upsert = nil
        addLeftover = nil
        do {
            let rows = try database.prepare("SELECT COALESCE(MAX(row), 0) FROM items")
            _ = try rows.step()
            count = rows.int(0)
            let leftovers = try database.prepare("SELECT COUNT(*) FROM leftovers")
            _ = try leftovers.step()
            leftoverCount = leftovers.int(0)
        } catch {
            throw .fatal("cannot index the previous run: \(error.message)")
        }
        seen = [UInt64](repeating: 0, count: (count + 64) / 64)
    }

    // MARK: Looking up

    /// The previous record of `id`, if there is one, and marks it seen.
    /// Reads it from its file (`pread`): call it on an I/O thread.
    ///
    /// Items ask in about the order the records lie (a run walks its
    /// sources in the order of the last run), so a miss reads and decodes
    /// the next `batch` records at once and keeps them for the items that
    /// follow. `ManifestItemDecoder` reads the lines `ManifestWriter` and
    /// the journal write; `JSONDecoder` (about 30 µs a line) any other.
    func record(for id: String) -> ManifestItem? {
        recordAndOrigin(for: id)?.record
    }

    /// `record(for:)`, and whether the record lies in manifest.json (false:
    /// in the journal of an interrupted run).
    func recordAndOrigin(for id: String) -> (record: ManifestItem, inManifest: Bool)? {
        lock.lock()
        defer { lock.unlock() }
        guard let (row, place) = locate(id, markSeen: true) else { return nil }
        let inManifest = Self.isManifest(place)
        if !manifestReusable, inManifest { return nil }
        if case .loaded(let index) = place { return (loaded[index], true) }
        if let cached = cache[row] { return cached.id == id ? (cached, inManifest) : nil }
        fillCache(from: row)
        // A line that does not decode, or names another id (the file changed
        // under the run, or is damaged), is no record: the item is made again.
        guard let record = cache[row] ?? readOne(place), record.id == id else { return nil }
        return (record, inManifest)
    }

    /// Whether the end of the run must go over the records
    /// (`OutputPruner`): some not seen, none reusable, or leftovers kept.
    var needsSettling: Bool {
        lock.lock()
        defer { lock.unlock() }
        return count > 0 && (!manifestReusable || seenCount < count || leftoverCount > 0)
    }

    /// Whether a record lies in manifest.json (read whole or by lines).
    private static func isManifest(_ place: Place) -> Bool {
        switch place {
        case .loaded: return true
        case .line(let file, _, _): return file == 0
        }
    }

    /// Every record, reusable or not (`manifestReusable`), in the last
    /// run's order, with whether this run has seen its id; then the
    /// leftovers of `kept` (outputs a record of an item left), given as
    /// seen: their item is the record that is gone or not, and its outputs
    /// a leftover's are not asked for anyway. Decodes in batches, holding one batch;
    /// a line that does not decode is skipped. Blocking: for the end of the
    /// run (what is gone, what is no longer produced: `OutputPruner`).
    func forEachRecord(_ body: (ManifestItem, _ seen: Bool) throws -> Void) rethrows {
        var row = 1
        while row <= count {
            let batch: [(ManifestItem, Bool)] = withLock {
                fillCache(from: row, all: true)
                return (row..<min(row + Self.batch, count + 1)).compactMap { r in
                    cache[r].map { ($0, isSeen(row: r)) }
                }
            }
            for (record, seen) in batch { try body(record, seen) }
            row += Self.batch
        }
        var after = 0
        while true {
            let (batch, last): ([(ManifestItem, Bool)], Int?) = withLock {
                guard let rows = try? leftoversAhead(after: after), let last = rows.last else { return ([], nil) }
                let records: [(ManifestItem, Bool)] = rows.compactMap { (_, id, file, offset, length) in
                    let record = file == 2 ? loaded[offset] : readOne(.line(file: file, offset: offset, length: length))
                    guard let record, record.id == id else { return nil }
                    return (record, true)
                }
                return (records, last.0)
            }
            guard let last else { break }
            after = last
            for (record, seen) in batch { try body(record, seen) }
        }
    }

    private func withLock<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    private func isSeen(row: Int) -> Bool {
        row < seen.count * 64 && seen[row / 64] & (UInt64(1) << UInt64(row % 64)) != 0
    }

    private func leftoversAhead(after row: Int) throws(SQLiteDatabase.Failure) -> [(Int, String, Int, Int, Int)] {
        let rows = try database.prepare("SELECT row, id, file, offset, length FROM leftovers WHERE row > ? ORDER BY row LIMIT 64")
        rows.bind(1, row)
        var found: [(Int, String, Int, Int, Int)] = []
        while try rows.step() { found.append((rows.int(0), rows.text(1), rows.int(2), rows.int(3), rows.int(4))) }
        return found
    }

    /// Records read ahead, by row: the last batch or two.
    private var cache: [Int: ManifestItem] = [:]

    /// Records read ahead on a miss: 64 lines of about `lineBytes` (50 KB,
    /// one `pread` when they lie together), decoded into at most two
    /// batches held (`cache`, about 200 KB): items ask in about the order
    /// the records lie, so one read serves the next 64 lookups.
    static let batch = 64

    /// Reads the records of rows `row`… (up to `batch`) into `cache`; a
    /// line that does not decode is left out.
    private func fillCache(from row: Int, all: Bool = false) {
        if cache.count > 2 * Self.batch || all { cache.removeAll(keepingCapacity: true) }
        guard let rows = try? rowsAhead(from: row) else { return }
        if all {
            for (r, file, offset, _) in rows where file == 2 { cache[r] = loaded[offset] }
        }
        // Rows that lie one after the other in one file are read at once:
        // one `pread` for a batch of a manifest's lines, not one a line.
        var k = 0
        while k < rows.count {
            let (_, file, start, length) = rows[k]
            guard file != 2, let fd = file == 0 ? manifest : journal else {
                k += 1
                continue
            }
            var end = k + 1, spanEnd = start + length
            while end < rows.count, rows[end].1 == file, rows[end].2 >= spanEnd, rows[end].2 - spanEnd <= 64,
                  rows[end].2 + rows[end].3 - start <= 1 << 20 {
                spanEnd = rows[end].2 + rows[end].3
                end += 1
            }
            if let span = Self.read(fd, offset: start, length: spanEnd - start) {
                span.withUnsafeBytes { raw in
                    for (r, _, offset, length) in rows[k..<end] {
                        let line = UnsafeRawBufferPointer(rebasing: raw[(offset - start)..<(offset - start + length)])
                        cache[r] = ManifestItemDecoder.decode(line, fallback: decoder)
                    }
                }
            }
            k = end
        }
    }

    private func rowsAhead(from row: Int) throws(SQLiteDatabase.Failure) -> [(Int, Int, Int, Int)] {
        if ahead == nil { ahead = try database.prepare("SELECT row, file, offset, length FROM items WHERE row >= ? ORDER BY row LIMIT ?") }
        let ahead = ahead!
        ahead.bind(1, row)
        ahead.bind(2, Self.batch)
        defer { ahead.reset() }
        var rows: [(Int, Int, Int, Int)] = []
        while try ahead.step() { rows.append((ahead.int(0), ahead.int(1), ahead.int(2), ahead.int(3))) }
        return rows
    }

    private var ahead: SQLiteStatement?

    private func readOne(_ place: Place) -> ManifestItem? {
        guard case .line(let file, let offset, let length) = place, let fd = file == 0 ? manifest : journal,
              let line = Self.read(fd, offset: offset, length: length)
        else { return nil }
        return ManifestItemDecoder.decode(line, fallback: decoder)
    }

    private static func read(_ fd: Int32, offset: Int, length: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: length)
        let read = bytes.withUnsafeMutableBytes { raw in
            (try? FileDescriptor.read(fd, into: raw.baseAddress!, count: length, at: offset)) ?? -1
        }
        return read == length ? bytes : nil
    }

    /// Marks `id` seen without reading its record.
    func markSeen(_ id: String) {
        lock.lock()
        defer { lock.unlock() }
        _ = locate(id, markSeen: true)
    }

    /// The row and place of `id` (the lock held).
    private func locate(_ id: String, markSeen: Bool) -> (Int, Place)? {
        guard database.handle != nil else { return nil }
        find.bind(1, id)
        defer { find.reset() }
        guard (try? find.step()) == true else { return nil }
        let row = find.int(0)
        if markSeen, row < seen.count * 64 {
            let (word, bit) = (row / 64, UInt64(1) << UInt64(row % 64))
            if seen[word] & bit == 0 {
                seen[word] |= bit
                seenCount += 1
            }
        }
        let file = find.int(1), offset = find.int(2), length = find.int(3)
        return (row, file == 2 ? .loaded(offset) : .line(file: file, offset: offset, length: length))
    }

    /// Ids of the records this run has not seen, in the previous run's order.
    func unseen() -> [String] {
        lock.lock()
        defer { lock.unlock() }
        guard seenCount < count, let rows = try? database.prepare("SELECT row, id FROM items ORDER BY row") else { return [] }
        var ids: [String] = []
        while (try? rows.step()) == true {
            let row = rows.int(0)
            if row < seen.count * 64, seen[row / 64] & (UInt64(1) << UInt64(row % 64)) == 0 { ids.append(rows.text(1)) }
        }
        return ids
    }

}
