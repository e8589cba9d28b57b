import Foundation

/// Turns the SOURCE arguments into the ordered list of items to process.
///
/// A directory is walked; an image file is one item; a URL, `-` or a
/// `.json`/`.ndjson`/`.txt` file is a photo list. Ids are relative paths; when
/// several file sources are given, each directory's items are prefixed with
/// the directory's name so that ids stay unique and outputs stay apart.
public struct SourceResolver: Sendable {
    /// What resolving a source found besides its items.
    public struct Resolved: Sendable {
        public var ignored = 0
        /// Folders and files that could not be read, by item id.
        public var unreadable = UnreadableSources()
        /// Folders not walked (OUT, other thumbs runs) and special files
        /// not opened, for the run's log.
        public var skippedRuns: [DirectoryWalker.Skipped] = []
        public var specialFiles: [DirectoryWalker.Skipped] = []
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

    /// Resolves one file source: a folder walked, or an image file, its
    /// items appended to `items` as the walk finds them (a folder of a
    /// million files is never held in memory). With `prefixWithName`
    /// (several file sources), a folder's ids start with its name, so that
    /// ids stay unique and outputs stay apart.
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

}
