/// One file found by the walk that is, or may be, an image.
public struct FoundFile: Sendable, Hashable {
    /// Path below the walked directory, with `/` separators.
    public var relativePath: String
    /// Full path to open.
    public var path: String
    public var size: Int64
    /// Modification time, seconds since 1970 (nanosecond precision).
    public var modified: Double
    /// Set when the file cannot be examined: a link loop, a broken link, a
    /// name that is not UTF-8.
    public var problem: String?
}

/// Walks a directory recursively in sorted order.
///
/// Hidden files and folders (names starting with a dot) are skipped; symbolic
/// links to folders are not followed, so there are no loops; symbolic links to
/// files are followed. Images are recognised by content (`ImageSniffer`):
/// a file that is neither recognised nor named like an image is only counted.
public struct DirectoryWalker: Sendable {
    public struct Result: Sendable {
        public var files: [FoundFile] = []
        /// Files skipped because they are not images.
        public var ignored = 0
    }

    public init() {}

    public func walk(_ root: String) throws(RunError) -> Result {
        let info: FileInfo
        do {
            info = try FileInfo.lookup(root)
        } catch {
            throw .usage("cannot read source \(root): \(error.text)")
        }
        guard info.kind == .directory else {
            throw .usage("\(root) is not a directory")
        }
        var result = Result()
        walk(directory: root, relative: "", into: &result, isRoot: true)
        return result
    }

    private func walk(directory: String, relative: String, into result: inout Result, isRoot: Bool = false) {
        guard let entries = directoryEntryNames(directory) else { return }
        var names = entries.filter { $0.first != UInt8(ascii: ".") }  // hidden, and . and ..
        names.sort { $0.lexicographicallyPrecedes($1) }

        for rawName in names {
            let validName = String(validating: rawName, as: UTF8.self)
            let name = validName ?? String(decoding: rawName, as: UTF8.self)
            let pathBytes = Array(directory.utf8) + [UInt8(ascii: "/")] + rawName
            let path = String(decoding: pathBytes, as: UTF8.self)
            let rel = relative.isEmpty ? name : relative + "/" + name

            guard let link = FileInfo.of(pathBytes: pathBytes, followLinks: false) else { continue }
            var target = link
            var problem: String?
            if link.kind == .symbolicLink {
                do {
                    let followed = try FileInfo.lookup(pathBytes: pathBytes, followLinks: true)
                    if followed.kind == .directory { continue }  // links to folders are not followed
                    target = followed
                } catch {
                    problem = error == .linkLoop ? "symbolic link loop" : "broken symbolic link (\(error.text))"
                }
            }
            if problem == nil, target.kind == .directory {
                walk(directory: path, relative: rel, into: &result)
                continue
            }
            if problem == nil, target.kind != .regular { continue }  // fifos, sockets, devices
            if validName == nil { problem = "the file name is not valid UTF-8; rename the file" }

            let namedLikeImage = ImageSniffer.isNamedLikeImage(name)
            if problem != nil {
                if namedLikeImage {
                    result.files.append(FoundFile(relativePath: rel, path: path, size: 0, modified: 0, problem: problem))
                } else {
                    result.ignored += 1
                }
                continue
            }
            if !namedLikeImage && ImageSniffer.format(of: readPrefix(path)) == nil {
                result.ignored += 1
                continue
            }
            result.files.append(FoundFile(
                relativePath: rel, path: path, size: target.size,
                modified: target.modified, problem: nil
            ))
        }
    }
}
