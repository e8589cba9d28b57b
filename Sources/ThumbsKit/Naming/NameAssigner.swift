/// Output names, one item at a time (`SourceFinaliser` streams a run's
/// items through it), in order: the wanted name (a stem before sanitising)
/// sanitised (`OutputNamer`), then made unique, with its sets in a scratch
/// SQLite database (`ScratchStringSet`) instead of memory: the names given
/// so far (`used`), the folders in use, and the folders renamed. A run of a
/// million items holds about two bytes per item here (the sets' filters)
/// plus SQLite's capped page cache. The results are the same, name for
/// name, as the in-memory sets of issue 23 gave (`NamingReference`, tests).
///
/// Besides names that are equal, a name clashes with a folder: `a` writes
/// the file `a.jpg` while `a.jpg/b` needs a folder `a.jpg` in the same
/// place. Whichever comes second gives way: a file takes the usual suffix
/// (`a_png`); a folder is renamed for all the items below it (`a.jpg_dir/b`,
/// then `a.jpg_dir_2/b`…).
final class NameAssigner {
    /// Lower-cased names given so far; their output files are these names
    /// with each of `OutputNamer.outputExtensions`.
    private let used: ScratchStringSet
    /// Lower-cased folder paths in use.
    private let folders: ScratchStringSet
    /// Sanitised folder path → the folder path assigned to it (keyed as
    /// `ScratchStringSet` keys, so equal paths are one entry).
    private let insertRenamed, findRenamed: SQLiteStatement
    /// The previous item's folders, (sanitised, assigned), outermost first:
    /// items of one folder come together, and skip the look-ups.
    private var lastFolders: [(original: String, placed: String)] = []

    init(_ database: SQLiteDatabase, expected: Int) throws(SQLiteDatabase.Failure) {
        used = try ScratchStringSet(database, table: "used_names", expected: expected)
        folders = try ScratchStringSet(database, table: "used_folders", expected: max(1, expected / 4))
        try database.execute("CREATE TABLE renamed_folders(key BLOB PRIMARY KEY, placed TEXT NOT NULL) WITHOUT ROWID")
        insertRenamed = try database.prepare("INSERT INTO renamed_folders VALUES (?, ?)")
        findRenamed = try database.prepare("SELECT placed FROM renamed_folders WHERE key = ?")
    }

    /// The output name of the next item, whose wanted name before
    /// sanitising is `stem` and whose source extension is `ext`.
    func next(stem: String, extension ext: String) throws(SQLiteDatabase.Failure) -> String {
        let base = try placeFolders(of: OutputNamer.sanitise(stem))
        var candidate = base
        if try clashes(candidate) {
            let suffix = OutputNamer.sanitiseSegment(ext)
            if !suffix.isEmpty { candidate = base + "_" + suffix }
            var n = 2
            let root = candidate
            while try clashes(candidate) {
                candidate = root + "_\(n)"
                n += 1
            }
        }
        try used.insert(candidate.lowercased())
        return candidate
    }

    private func clashes(_ candidate: String) throws(SQLiteDatabase.Failure) -> Bool {
        let lower = candidate.lowercased()
        if try used.contains(lower) { return true }
        for fileExtension in OutputNamer.outputExtensions where try folders.contains(lower + "." + fileExtension) {
            return true
        }
        return false
    }

    /// Whether `path` (lower-cased) is the output file of a name in `used`:
    /// such a name followed by one of `outputExtensions`.
    private func isOutputFile(_ path: String) throws(SQLiteDatabase.Failure) -> Bool {
        for fileExtension in OutputNamer.outputExtensions where path.hasSuffix("." + fileExtension) {
            if try used.contains(String(path.dropLast(fileExtension.count + 1))) { return true }
        }
        return false
    }

    /// `name` with its folders renamed where an earlier item's output file
    /// has the folder's name; records the folders it uses.
    private func placeFolders(of name: String) throws(SQLiteDatabase.Failure) -> String {
        let segments = name.split(separator: "/").map(String.init)
        guard segments.count > 1 else { return name }
        var chain: [(original: String, placed: String)] = []
        var original = ""
        var placed = ""
        for (level, segment) in segments.dropLast().enumerated() {
            original += (original.isEmpty ? "" : "/") + segment
            if level < lastFolders.count, lastFolders[level].original == original {
                placed = lastFolders[level].placed
            } else if let earlier = try renamed(original) {
                placed = earlier
            } else {
                let wanted = placed + (placed.isEmpty ? "" : "/") + segment
                var candidate = wanted
                var n = 1
                while try isOutputFile(candidate.lowercased()) {
                    candidate = wanted + "_dir" + (n == 1 ? "" : "_\(n)")
                    n += 1
                }
                let key = ScratchStringSet.key(original)
                key.withUnsafeBytes { insertRenamed.bind(1, blob: $0) }
                insertRenamed.bind(2, candidate)
                try insertRenamed.run()
                try folders.insert(candidate.lowercased())
                placed = candidate
            }
            chain.append((original, placed))
        }
        lastFolders = chain
        return placed + "/" + segments.last!
    }

    private func renamed(_ original: String) throws(SQLiteDatabase.Failure) -> String? {
        defer { findRenamed.reset() }
        ScratchStringSet.key(original).withUnsafeBytes { findRenamed.bind(1, blob: $0) }
        return try findRenamed.step() ? findRenamed.text(0) : nil
    }
}
