import Foundation

/// Where `verify --against` keeps the baseline's index: in memory for a
/// baseline manifest of up to 8 MB (about 10,000 items), else an SQLite file
/// in a folder of its own under the system's temporary folder (`TMPDIR`),
/// removed when verify ends. Verify writes nothing into the run's folder or
/// the baseline's.
final class BaselineScratch {
    /// The baseline manifest's header, and its records by id.
    struct Index {
        var header: Manifest
        var records: PreviousIndex
    }

    private var folder: String?
    private var records: PreviousIndex?

    /// Indexes the manifest at `path`; `usage` when it cannot be read.
    func index(of path: String) throws(RunError) -> Index {
        let source = try ManifestSource.open(path)
        let size = FileInfo.of(pathBytes: Array(path.utf8), followLinks: true)?.size ?? 0
        var place = SQLiteDatabase.inMemory
        if size > PreviousIndex.inMemoryUpTo {
            let folder = NSTemporaryDirectory() + "/thumbs-verify-" + UUID().uuidString
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw .usage("cannot make a scratch folder for the baseline's index in \(NSTemporaryDirectory()): \(error.localizedDescription)")
            }
            self.folder = folder
            place = folder + "/baseline.sqlite"
        }
        let records: PreviousIndex
        do {
            records = try PreviousIndex(path: place)
        } catch {
            throw .usage("cannot index the baseline \(path): \(error)")
        }
        self.records = records
        try records.addManifest(source)
        try records.finishBuilding()
        return Index(header: source.header, records: records)
    }

    /// Deletes the index and its folder.
    func remove() {
        records?.remove()
        records = nil
        if let folder { try? FileManager.default.removeItem(atPath: folder) }
        folder = nil
    }
}
