import Foundation

/// Makes a run's ids unique (the same folder given twice, list ids
/// repeated) and gives every item its sanitised, collision-free output name
/// (`OutputNamer`), over the items in a spool (`SourceItems`), with the sets
/// that need every item in a scratch SQLite database (`ScratchStringSet`,
/// `NameAssigner`), so that memory does not grow with the items.
///
/// The first item with an id keeps it; a later one gets `id#N` with the
/// smallest N from 2 that no item of the run has, as given or as assigned:
/// `dup`, `dup`, `dup#2` become `dup`, `dup#3`, `dup#2`, so a suffix never
/// takes an id the list already has (which would make two items share an
/// id, and one of them be fetched again on every run).
///
/// It also narrows the items to `--shard`, with the order of the whole run
/// (`ShardOrder`, written to a scratch file as it is made: `ScratchText`),
/// and finds the file sizes that occur twice (`sharedSizes`, counted in the
/// scratch database).
///
/// Three passes over the items, each forward:
/// 1. every id into the set of ids; the positions of those already there
///    (repeats) into a table;
/// 2. each repeat, in order, gets `id#N`, the smallest N from 2 that the
///    set has not (as given or as assigned);
/// 3. every item, with its final id, gets its output name, and goes to a
///    new spool if its shard is this one.
///
/// The results are those of the former in-memory sets, item for item.
enum SourceFinaliser {
    struct Finalised {
        var items: SourceItems
        /// With a shard: every item's shard, in the run's order, in a file
        /// (about 2 bytes an item: never held).
        var shardOrder: ScratchText?
        /// File sizes that occur more than once among the kept items: an
        /// item of a size no other has cannot be a duplicate, and skips
        /// its hash. Only the shared sizes are held, found by SQLite from a
        /// table of every size (not an array of them).
        var sharedSizes: Set<Int64>
    }

    /// `cacheMiB`: SQLite's page cache (tests make it small, to reach the
    /// memory a run keeps at any size with few items).
    static func finalise(_ items: SourceItems, shard: Shard? = nil, cacheMiB: Int = 4) throws(RunError) -> Finalised {
        let folder = items.scratchFolder ?? DiscoveryScratch.systemFolder
        do {
            let database = try DiscoveryScratch.database(in: folder, cacheMiB: cacheMiB)
            defer { database.closeAndRemove() }
            return try finalise(items, shard: shard, database: database)
        } catch let error as SQLiteDatabase.Failure {
            throw .fatal("cannot name the run's items: \(error.message)")
        } catch let error as RunError {
            throw error
        } catch {
            throw .fatal("cannot name the run's items: \(error)")
        }
    }

    private static func finalise(_ items: SourceItems, shard: Shard?, database: SQLiteDatabase) throws -> Finalised {
        let count = items.count
        let ids = try ScratchStringSet(database, table: "ids", expected: count)
        try database.execute("""
            CREATE TABLE repeats(pos INTEGER PRIMARY KEY);
            CREATE TABLE suffixes(key BLOB PRIMARY KEY, next INTEGER NOT NULL) WITHOUT ROWID;
            CREATE TABLE new_ids(pos INTEGER PRIMARY KEY, id TEXT NOT NULL);
            CREATE TABLE sizes(size INTEGER NOT NULL);
            """)

        // 1. The set of ids as given; the positions of repeats.
        let addRepeat = try database.prepare("INSERT INTO repeats VALUES (?)")
        for index in 0..<count where !(try ids.insert(items.id(at: index))) {
            addRepeat.bind(1, index)
            try addRepeat.run()
        }

        // 2. A new id for each repeat. The last suffix tried per id: `dup`
        // repeated a thousand times costs a thousand look-ups, not half a
        // million.
        let repeats = try database.prepare("SELECT pos FROM repeats ORDER BY pos")
        let findSuffix = try database.prepare("SELECT next FROM suffixes WHERE key = ?")
        let setSuffix = try database.prepare("INSERT OR REPLACE INTO suffixes VALUES (?, ?)")
        let addNewID = try database.prepare("INSERT INTO new_ids VALUES (?, ?)")
        while try repeats.step() {
            let index = repeats.int(0)
            let id = items.id(at: index)
            let key = ScratchStringSet.key(id)
            key.withUnsafeBytes { findSuffix.bind(1, blob: $0) }
            var n = try findSuffix.step() ? findSuffix.int(0) : 2
            findSuffix.reset()
            while try ids.contains(id + "#\(n)") { n += 1 }
            let newID = id + "#\(n)"
            try ids.insert(newID)
            key.withUnsafeBytes { setSuffix.bind(1, blob: $0) }
            setSuffix.bind(2, n + 1)
            try setSuffix.run()
            addNewID.bind(1, index)
            addNewID.bind(2, newID)
            try addNewID.run()
        }

        // 3. Final ids, output names, the shard's items.
        let newIDs = try database.prepare("SELECT pos, id FROM new_ids ORDER BY pos")
        var nextNewID: (index: Int, id: String)? = try newIDs.step() ? (newIDs.int(0), newIDs.text(1)) : nil
        let namer = try NameAssigner(database, expected: count)
        let kept = try SourceItems(scratchFolder: items.scratchFolder)
        let folder = items.scratchFolder ?? DiscoveryScratch.systemFolder
        let shardOrder = try shard.map { _ in try ScratchText(path: folder + "/shard-order-\(UUID().uuidString).txt") }
        let addSize = try database.prepare("INSERT INTO sizes VALUES (?)")
        for index in 0..<count {
            var item = items[index]
            if let renamed = nextNewID, renamed.index == index {
                item.id = renamed.id
                nextNewID = try newIDs.step() ? (newIDs.int(0), newIDs.text(1)) : nil
            }
            item.outputName = try namer.next(stem: stem(of: item), extension: OutputNamer.fileExtension(of: item.source))
            if let shard, let shardOrder {
                try shardOrder.add(separator: ",") { $0.int(ShardPartition.shard(of: item.id, count: shard.count)) }
                guard ShardPartition.contains(item.id, shard: shard) else { continue }
            }
            if case .file(_, let size, _) = item.origin {
                addSize.bind(1, size)
                try addSize.run()
            }
            kept.append(item)
        }
        try kept.finishWriting()
        try shardOrder?.finishWriting()
        var shared = Set<Int64>()
        let repeated = try database.prepare("SELECT size FROM sizes GROUP BY size HAVING COUNT(*) > 1")
        while try repeated.step() { shared.insert(repeated.int64(0)) }
        return Finalised(items: kept, shardOrder: shardOrder, sharedSizes: shared)
    }

    /// The wanted output name before sanitising. List ids keep their dots
    /// ("v2.1"), but an id taken from a URL's last segment ("photo.jpg")
    /// loses its image extension.
    static func stem(of item: SourceItem) -> String {
        if case .remote = item.origin, !ImageSniffer.isNamedLikeImage(item.id) { return item.id }
        return OutputNamer.stem(of: item.id)
    }

    /// The values that occur more than once; sorts `sizes` (8 bytes an item,
    /// for this moment only).
    static func sharedSizes(_ sizes: inout [Int64]) -> Set<Int64> {
        sizes.sort()
        var shared = Set<Int64>()
        for index in sizes.indices.dropFirst() where sizes[index] == sizes[index - 1] { shared.insert(sizes[index]) }
        sizes = []
        return shared
    }
}
