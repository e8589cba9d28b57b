#if canImport(Glibc)
import Glibc
#endif

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
        var info = stat()
        guard stat(root, &info) == 0 else {
            throw .usage("cannot read source \(root): \(errnoText())")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
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

            var link = stat()
            guard withCPath(pathBytes, { lstat($0, &link) }) == 0 else { continue }
            var target = link
            let isLink = link.st_mode & S_IFMT == S_IFLNK
            var problem: String?
            if isLink {
                if withCPath(pathBytes, { stat($0, &target) }) != 0 {
                    problem = errno == ELOOP ? "symbolic link loop" : "broken symbolic link (\(errnoText()))"
                } else if target.st_mode & S_IFMT == S_IFDIR {
                    continue  // links to folders are not followed
                }
            }
            if problem == nil, target.st_mode & S_IFMT == S_IFDIR {
                walk(directory: path, relative: rel, into: &result)
                continue
            }
            if problem == nil, target.st_mode & S_IFMT != S_IFREG { continue }  // fifos, sockets, devices
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
                relativePath: rel, path: path, size: Int64(target.st_size),
                modified: modificationTime(target), problem: nil
            ))
        }
    }
}
