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
///
/// Nothing is dropped without a trace (PRODUCT.md, SOURCE): FIFOs, sockets,
/// devices and links to folders are never opened, counted as ignored and
/// named in `Result.specialFiles`; OUT and any folder holding a thumbs run
/// are not walked (their thumbnails would become images of the next run),
/// counted as ignored and named in `Result.skippedRuns`; a folder or file
/// that cannot be read is in `Result.unreadable`, never taken for an empty
/// folder or a non-image.
public struct DirectoryWalker: Sendable {
    public struct Result: Sendable {
        /// Files skipped because they are not images, special files, and
        /// folders not walked because they hold thumbs runs.
        public var ignored = 0
        /// Folders and files that could not be read, in walk order.
        public var unreadable: [UnreadablePath] = []
        /// Folders not walked: OUT, or another thumbs run's folder.
        public var skippedRuns: [Skipped] = []
        /// FIFOs, sockets, devices (links to them included): not opened.
        public var specialFiles: [Skipped] = []
    }

    /// Something the walk passed by on purpose, and why.
    public struct Skipped: Sendable, Hashable {
        public var relativePath: String
        public var path: String
        public var reason: String
    }

    /// OUT of the run: never walked, however its path is spelled.
    private let outputFolder: FileIdentity?

    /// `outputDirectory` is this run's OUT (nil for none): it is recognised
    /// by device and inode, not by its path.
    public init(outputDirectory: String? = nil) {
        outputFolder = outputDirectory.flatMap { FileIdentity.of($0) }
    }

    /// Walks `root`, handing each file to `found` as it is met, in walk
    /// order; nothing per file is kept.
    public func walk(_ root: String, found: (FoundFile) -> Void) throws(RunError) -> Result {
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
        if let outputFolder, FileIdentity.of(root) == outputFolder {
            result.skippedRuns.append(Skipped(relativePath: "", path: root, reason: "it is the output folder (--out)"))
            result.ignored += 1
            return result
        }
        walk(directory: Array(root.utf8), relative: "", into: &result, isRoot: true, found: found)
        return result
    }

    /// One folder and, depth first, the folders below it.
    func walk(directory: [UInt8], relative: String, into result: inout Result, isRoot: Bool = false,
              found: (FoundFile) -> Void) {
        let directoryPath = String(decoding: directory, as: UTF8.self)
        let entries: SortedDirectoryNames
        do {
            entries = try SortedDirectoryNames(pathBytes: directory)
        } catch {
            result.unreadable.append(UnreadablePath(relativePath: relative, path: directoryPath, reason: Self.reason(error)))
            return
        }
        if !isRoot, Self.holdsThumbsRun(directory, entries) {
            result.skippedRuns.append(Skipped(relativePath: relative, path: directoryPath,
                                              reason: "it holds a thumbs run (manifest.json beside .thumbs/)"))
            result.ignored += 1
            return
        }
        for entry in 0..<entries.count where entries.firstByte(entry) != UInt8(ascii: ".") {  // hidden, and . and ..
            let rawName = entries.name(entry)
            let validName = String(validating: rawName, as: UTF8.self)
            let name = validName ?? String(decoding: rawName, as: UTF8.self)
            let pathBytes = directory + [UInt8(ascii: "/")] + rawName
            let path = String(decoding: pathBytes, as: UTF8.self)
            let rel = relative.isEmpty ? name : relative + "/" + name

            let link: FileInfo
            do {
                link = try FileInfo.lookup(pathBytes: pathBytes, followLinks: false)
            } catch {
                // Listed, yet not there to look at: a path past PATH_MAX, a
                // file removed meanwhile, an I/O error. Unknown, not absent.
                result.unreadable.append(UnreadablePath(relativePath: rel, path: path, reason: Self.reason(error)))
                continue
            }
            var target = link
            var problem: String?
            if link.kind == .symbolicLink {
                do {
                    let followed = try FileInfo.lookup(pathBytes: pathBytes, followLinks: true)
                    if followed.kind == .directory {
                        // Links to folders are not followed (no loops), but
                        // counted and named, as FIFOs and sockets are.
                        result.specialFiles.append(Skipped(relativePath: rel, path: path, reason: "a link to a folder; not followed"))
                        result.ignored += 1
                        continue
                    }
                    target = followed
                } catch {
                    problem = error == .linkLoop ? "symbolic link loop" : "broken symbolic link (\(error.text))"
                }
            }
            if problem == nil, target.kind == .directory {
                if let outputFolder, FileIdentity.of(pathBytes: pathBytes) == outputFolder {
                    result.skippedRuns.append(Skipped(relativePath: rel, path: path, reason: "it is the output folder (--out)"))
                    result.ignored += 1
                    continue
                }
                walk(directory: pathBytes, relative: rel, into: &result, found: found)
                continue
            }
            if problem == nil, target.kind != .regular {
                result.specialFiles.append(Skipped(relativePath: rel, path: path, reason: Self.describe(target.kind, link: link.kind == .symbolicLink)))
                result.ignored += 1
                continue
            }
            if validName == nil { problem = "the file name is not valid UTF-8; rename the file" }

            let namedLikeImage = ImageSniffer.isNamedLikeImage(name)
            if problem != nil {
                if namedLikeImage {
                    found(FoundFile(relativePath: rel, path: path, size: 0, modified: 0, problem: problem))
                } else {
                    result.ignored += 1
                }
                continue
            }
            if !namedLikeImage {
                let prefix: [UInt8]
                do {
                    prefix = try readPrefixOrError(path)
                } catch {
                    // It may be an image thumbnailed by an earlier run: say
                    // so, and let --prune keep its outputs.
                    result.unreadable.append(UnreadablePath(relativePath: rel, path: path, reason: Self.reason(error)))
                    continue
                }
                if ImageSniffer.format(of: prefix) == nil {
                    result.ignored += 1
                    continue
                }
            }
            found(FoundFile(
                relativePath: rel, path: path, size: target.size,
                modified: target.modified, problem: nil
            ))
        }
    }

    /// Whether a folder's entries are those of a thumbs OUT: `manifest.json`
    /// beside the `.thumbs` state folder.
    static func holdsThumbsRun(_ directory: [UInt8], _ entries: SortedDirectoryNames) -> Bool {
        let state = Array(".thumbs".utf8), manifest = Array("manifest.json".utf8)
        guard entries.contains(state), entries.contains(manifest) else { return false }
        return FileInfo.of(pathBytes: directory + [UInt8(ascii: "/")] + state, followLinks: false)?.kind == .directory
    }

    /// Why something could not be read, in words a person acts on.
    static func reason(_ error: SystemError) -> String {
        switch error {
        case .nameTooLong: "the path is longer than the system allows (\(error.text))"
        case .noEntry: "it vanished while the folder was walked"
        default: error.text
        }
    }

    static func describe(_ kind: FileInfo.Kind, link: Bool) -> String {
        let what = switch kind {
        case .fifo: "a FIFO"
        case .socket: "a socket"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        default: "not a regular file"
        }
        return (link ? "a link to " : "") + what + "; never opened"
    }
}
