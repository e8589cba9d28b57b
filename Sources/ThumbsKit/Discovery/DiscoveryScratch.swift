import Foundation

/// Where discovery puts what it must not hold in memory: the spool of items
/// (`SourceItems`) and the SQLite database of ids and names
/// (`SourceFinaliser`, `NameAssigner`). A run gives OUT's `.thumbs/tmp`
/// (locked, and swept by the next run if this one is killed); a dry run,
/// which writes nothing to OUT, and the in-memory callers use the system's
/// temporary folder.
enum DiscoveryScratch {
    static var systemFolder: String {
        let path = FileManager.default.temporaryDirectory.path
        return path.isEmpty ? "/tmp" : path
    }

    /// A new file name in `folder`, unique to this process and call.
    static func path(in folder: String, prefix: String, suffix: String) -> String {
        folder + "/" + prefix + "-\(Processes.currentID)-" + UUID().uuidString.lowercased() + suffix
    }

    /// A new scratch database in `folder`, in one transaction that is never
    /// committed: no journal, no sync, `cacheMiB` of page cache (its most
    /// memory, whatever the number of items). Its owner calls
    /// `closeAndRemove()`.
    static func database(in folder: String, cacheMiB: Int = 4) throws(SQLiteDatabase.Failure) -> SQLiteDatabase {
        let database = try SQLiteDatabase(creatingAt: path(in: folder, prefix: "discovery", suffix: ".sqlite"), cacheMiB: cacheMiB)
        do {
            try database.execute("BEGIN")
        } catch {
            database.closeAndRemove()
            throw error
        }
        return database
    }
}
