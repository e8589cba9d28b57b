import Foundation

/// Turns the SOURCE arguments into the ordered list of items to process.
///
/// A directory is walked; an image file is one item; a URL, `-` or a
/// `.json`/`.ndjson`/`.txt` file is a photo list. Ids are relative paths; when
/// several sources are given, each directory's items are prefixed with the
/// directory's name so that ids stay unique and outputs stay apart.
public struct SourceResolver: Sendable {
    public struct Resolved: Sendable {
        public var items: [SourceItem] = []
        public var ignored = 0
    }

    public init() {}

    /// Whether a SOURCE argument names a photo list rather than files.
    public static func isList(_ source: String) -> Bool {
        if source == "-" { return true }
        let lower = source.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") { return true }
        return [".json", ".ndjson", ".txt", ".jsonl"].contains { lower.hasSuffix($0) }
            && FileManager.default.fileExists(atPath: source)
    }

    /// Resolves file sources. List sources are handled by the fetcher and
    /// must not be passed here.
    public func resolveFiles(_ sources: [String]) throws(RunError) -> Resolved {
        var resolved = Resolved()
        let prefixWithName = sources.count > 1
        for source in sources {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: source, isDirectory: &isDirectory) else {
                throw .missingSource(source)
            }
            if isDirectory.boolValue {
                let walk = try DirectoryWalker().walk(source)
                resolved.ignored += walk.ignored
                let prefix = prefixWithName ? Self.displayName(of: source) + "/" : ""
                for file in walk.files {
                    resolved.items.append(Self.item(for: file, id: prefix + file.relativePath))
                }
            } else {
                let name = (source as NSString).lastPathComponent
                guard let status = fileStatus(source) else {
                    resolved.items.append(SourceItem(id: name, source: source, origin: .unreadable(path: source, reason: errnoText())))
                    continue
                }
                let file = FoundFile(relativePath: name, path: source, size: status.size, modified: status.modified)
                resolved.items.append(Self.item(for: file, id: name))
            }
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
    public static func finalise(_ items: [SourceItem]) -> [SourceItem] {
        var result = items
        var taken = Set<String>(minimumCapacity: result.count)
        var repeated: [Int] = []
        for index in result.indices where !taken.insert(result[index].id).inserted {
            repeated.append(index)
        }
        // The last suffix tried per id: `dup` repeated a thousand times
        // costs a thousand look-ups, not half a million.
        var nextSuffix: [String: Int] = [:]
        for index in repeated {
            let id = result[index].id
            var n = nextSuffix[id] ?? 2
            while taken.contains(id + "#\(n)") { n += 1 }
            result[index].id = id + "#\(n)"
            taken.insert(result[index].id)
            nextSuffix[id] = n + 1
        }
        let stems = result.map { item -> String in
            // List ids keep their dots ("v2.1"), but an id taken from a URL's
            // last segment ("photo.jpg") loses its image extension.
            if case .remote = item.origin, !ImageSniffer.isNamedLikeImage(item.id) { return item.id }
            return OutputNamer.stem(of: item.id)
        }
        let extensions = result.map { OutputNamer.fileExtension(of: $0.source) }
        let names = OutputNamer.assign(stems: stems, extensions: extensions)
        for index in result.indices { result[index].outputName = names[index] }
        return result
    }
}
