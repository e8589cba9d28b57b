@testable import ThumbsKit

extension OutputNamer {
    /// The output names of a few items at once (`stems`: the wanted names
    /// before sanitising; `extensions` disambiguate collisions), through
    /// the `NameAssigner` a run streams its items through, with its
    /// database in the system's temporary folder.
    static func assign(stems: [String], extensions: [String]) -> [String] {
        do {
            let database = try DiscoveryScratch.database(in: DiscoveryScratch.systemFolder)
            defer { database.closeAndRemove() }
            let assigner = try NameAssigner(database, expected: stems.count)
            return try zip(stems, extensions).map { stem, ext throws(SQLiteDatabase.Failure) in
                try assigner.next(stem: stem, extension: ext)
            }
        } catch {
            preconditionFailure("output names: \(error.message)")
        }
    }
}
