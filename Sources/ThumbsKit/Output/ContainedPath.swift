import Foundation

/// Folders below OUT, opened one component at a time without following
/// symbolic links, so that nothing is ever created, replaced or deleted
/// outside OUT.
///
/// A plain `rename(temp, "OUT/256/sub/a.jpg")` follows every link on the
/// way: with `OUT/256` a link to `/srv/photos`, the thumbnail lands in
/// `/srv/photos/sub/a.jpg`, and a prune deletes there. Here each folder is
/// opened with `openat(…, O_NOFOLLOW | O_DIRECTORY)` from the descriptor of
/// the one above it, starting at OUT; a component that is a link (or not a
/// folder) stops the operation with a message that names it. The final name
/// is then used with `renameat`/`unlinkat` relative to its folder's
/// descriptor: a link at the final name is replaced or removed itself, never
/// what it points to.
///
/// OUT itself may be a link (the user named it); only what is inside is
/// checked. Relative paths with `..`, `.`, empty or absolute components are
/// refused: they come from manifests, which may be hostile too.
final class ContainedPath {
    /// The folder holding the final name (a descriptor this value owns).
    let folder: Int32
    /// The last component of the path.
    let name: String

    /// Why a path could not be reached inside OUT.
    struct Refusal: Error {
        var message: String
        /// The system's error, when one caused the refusal
        /// (`.noEntry`: a folder on the way does not exist).
        var cause: SystemError?
    }

    /// Opens the folder of `relative` below `root`, creating missing
    /// folders when `create` is set.
    init(_ relative: String, under root: String, create: Bool) throws(Refusal) {
        let components = try Self.components(of: relative)
        var fd = try Self.openRoot(root)
        for (index, component) in components.dropLast().enumerated() {
            let shown = components[...index].joined(separator: "/")
            do {
                let next = try Self.openFolder(component, in: fd, shown: shown, create: create)
                try? FileDescriptor.close(fd)
                fd = next
            } catch {
                try? FileDescriptor.close(fd)
                throw error
            }
        }
        folder = fd
        name = components.last!
    }

    deinit { try? FileDescriptor.close(folder) }

    /// Opens (creating when asked) the folder `relative` itself below `root`
    /// and returns its descriptor; the caller closes it.
    static func openDirectory(_ relative: String, under root: String, create: Bool) throws(Refusal) -> Int32 {
        let components = try Self.components(of: relative)
        var fd = try openRoot(root)
        for (index, component) in components.enumerated() {
            let shown = components[...index].joined(separator: "/")
            do {
                let next = try openFolder(component, in: fd, shown: shown, create: create)
                try? FileDescriptor.close(fd)
                fd = next
            } catch {
                try? FileDescriptor.close(fd)
                throw error
            }
        }
        return fd
    }

    private static func components(of relative: String) throws(Refusal) -> [String] {
        let components = relative.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard !relative.hasPrefix("/"), !components.isEmpty,
              components.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." })
        else {
            throw Refusal(message: "\(relative) is not a plain path inside the output folder")
        }
        return components
    }

    private static func openRoot(_ root: String) throws(Refusal) -> Int32 {
        do {
            return try FileDescriptor.open(root, .readOnly, .directory)
        } catch {
            throw Refusal(message: "cannot open the output folder \(root): \(error.text)")
        }
    }

    private static func openFolder(_ name: String, in parent: Int32, shown: String, create: Bool) throws(Refusal) -> Int32 {
        var failure = SystemError.noEntry
        for attempt in 0..<2 {
            do {
                return try FileDescriptor.open(name, inFolder: parent, .readOnly, [.directory, .noFollow])
            } catch {
                failure = error
            }
            if failure == .noEntry && create && attempt == 0 {
                var made = true
                do {
                    try PathChanges.makeFolder(name, inFolder: parent, permissions: 0o755)
                } catch {
                    // `.exists`: made by another thread meanwhile; open it again.
                    if error != .exists {
                        throw Refusal(message: "cannot create folder \(shown) in the output folder: \(error.text)", cause: error)
                    }
                    made = false
                }
                // The new folder's name is durable only once its parent is
                // flushed: else a power cut can lose the folder and the
                // thumbnails written into it since.
                if made {
                    do {
                        try FileDescriptor.synchroniseFolder(parent)
                    } catch {
                        throw Refusal(message: "cannot flush the folder holding \(shown) in the output folder: \(error.text)", cause: error)
                    }
                }
                continue
            }
            throw Refusal(message: describeFailure(name, in: parent, shown: shown, failure: failure), cause: failure)
        }
        throw Refusal(message: "cannot open folder \(shown) in the output folder: \(failure.text)", cause: failure)
    }

    /// Words for an `openat` that failed: a link, a file where a folder
    /// should be, or the system's reason.
    private static func describeFailure(_ name: String, in parent: Int32, shown: String, failure: SystemError) -> String {
        if failure == .linkLoop || failure == .notDirectory, let info = FileInfo.of(name, inFolder: parent) {
            if info.kind == .symbolicLink {
                return "\(shown) in the output folder is a symbolic link, and thumbs never writes or deletes through links there (replace it with a real folder)"
            }
            if info.kind != .directory {
                return "\(shown) in the output folder is a file where thumbs needs a folder"
            }
        }
        return "cannot open folder \(shown) in the output folder: \(failure.text)"
    }
}
