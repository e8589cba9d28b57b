import Foundation

/// Turns the SOURCE arguments into the ordered list of items to process.
///
/// A directory is walked; an image file is one item; a URL, `-` or a
/// `.json`/`.ndjson`/`.txt` file is a photo list. Ids are relative paths; when
/// several file sources are given, each directory's items are prefixed with
/// the directory's name so that ids stay unique and outputs stay apart.
public struct SourceResolver: Sendable {
    public struct Resolved: Sendable {
        public var items: [SourceItem] = []
        public var ignored = 0
        /// Folders and files that could not be read, by item id.
        public var unreadable = UnreadableSources()
        /// Folders not walked (OUT, other thumbs runs) and special files
        /// not opened, for the run's log.
        public var skippedRuns: [DirectoryWalker.Skipped] = []
        public var specialFiles: [DirectoryWalker.Skipped] = []

        mutating func add(_ other: Resolved) {
            if items.isEmpty { items = other.items } else { items += other.items }
            ignored += other.ignored
            unreadable.add(other.unreadable)
            skippedRuns += other.skippedRuns
            specialFiles += other.specialFiles
        }
    }

    /// This run's OUT, which no walk enters.
    public var outputDirectory: String?

    public init(outputDirectory: String? = nil) {
        self.outputDirectory = outputDirectory
    }

    /// Whether a SOURCE argument names a photo list rather than files.
    public static func isList(_ source: String) -> Bool {
        if source == "-" { return true }
        let lower = source.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") { return true }
        return [".json", ".ndjson", ".txt", ".jsonl"].contains { lower.hasSuffix($0) }
            && FileManager.default.fileExists(atPath: source)
    }

    /// Resolves file sources, in order. List sources are handled by the
    /// fetcher and must not be passed here.
    public func resolveFiles(_ sources: [String]) throws(RunError) -> Resolved {
        var resolved = Resolved()
        for source in sources {
            resolved.add(try resolveFile(source, prefixWithName: sources.count > 1))
        }
        return resolved
    }

    /// Resolves one file source: a folder walked, or an image file. With
    /// `prefixWithName` (several file sources), a folder's ids start with
    /// its name, so that ids stay unique and outputs stay apart.
    public func resolveFile(_ source: String, prefixWithName: Bool) throws(RunError) -> Resolved {
        let items = SourceItems([])
        var resolved = try resolveFile(source, prefixWithName: prefixWithName, into: items)
        resolved.items = Array(items)
        return resolved
    }

    /// `resolveFile`, its items appended to `items` as the walk finds them
    /// (`Resolved.items` stays empty): a folder of a million files is never
    /// held in memory.
    func resolveFile(_ source: String, prefixWithName: Bool, into items: SourceItems) throws(RunError) -> Resolved {
        var resolved = Resolved()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source, isDirectory: &isDirectory) else {
            throw .missingSource(source)
        }
        if isDirectory.boolValue {
            let prefix = prefixWithName ? Self.displayName(of: source) + "/" : ""
            let walk = try DirectoryWalker(outputDirectory: outputDirectory).walk(source) { file in
                items.append(Self.item(for: file, id: prefix + file.relativePath))
            }
            resolved.ignored = walk.ignored
            resolved.skippedRuns = walk.skippedRuns
            resolved.specialFiles = walk.specialFiles
            for path in walk.unreadable {
                // The folder itself ("") stands for every id of this source.
                let id = path.relativePath.isEmpty ? String(prefix.dropLast()) : prefix + path.relativePath
                resolved.unreadable.add(path, id: id)
            }
        } else {
            let name = (source as NSString).lastPathComponent
            guard let status = fileStatus(source) else {
                items.append(SourceItem(id: name, source: source, origin: .unreadable(path: source, reason: errnoText())))
                return resolved
            }
            let file = FoundFile(relativePath: name, path: source, size: status.size, modified: status.modified)
            items.append(Self.item(for: file, id: name))
        }
        return resolved
    }

    static func item(for file: FoundFile, id: String) -> SourceItem {
        let origin: SourceItem.Origin = file.problem.map { .unreadable(path: file.path, reason: $0) }
            ?? .file(path: file.path, size: file.size, modified: file.modified)
        return SourceItem(id: id, source: file.path, origin: origin)
    }

    static func displayName(of directory: String) -> String {
        let url = URL(fileURLWithPath: directory).standardizedFileURL
        let name = url.lastPathComponent
        return name.isEmpty || name == "/" ? "root" : name
    }

    /// Makes ids unique (the same folder given twice, list ids repeated) and
    /// assigns every item its sanitised, collision-free output name.
    ///
    /// The first item with an id keeps it; a later one gets `id#N` with the
    /// smallest N from 2 that no item of the run has, as given or as
    /// assigned: `dup`, `dup`, `dup#2` become `dup`, `dup#3`, `dup#2`, so a
    /// suffix never takes an id the list already has (which would make two
    /// items share an id, and one of them be fetched again on every run).
    ///
    /// `SourceFinaliser` does it over a run's spooled items; this form, for
    /// items in memory, works in the system's temporary folder.
    public static func finalise(_ items: [SourceItem]) -> [SourceItem] {
        do {
            return Array(try SourceFinaliser.finalise(SourceItems(items)).items)
        } catch {
            preconditionFailure("\(error)")
        }
    }
}
