import Foundation

/// Reads a file that a manifest names, only when it is a regular file inside
/// the manifest's folder: `thumbs verify` (the outputs of a manifest) and
/// `thumbs merge --copy` (the thumbnails of each shard).
///
/// A manifest is text anyone may have written. A path that is absolute or
/// climbs out with `..` is refused without a system call; the others are
/// opened one folder at a time without following links (`ContainedPath`),
/// and the file itself with `O_NOFOLLOW | O_NONBLOCK`: a link anywhere on
/// the way, pointing in or out, is refused rather than followed, and a FIFO
/// or a device is never read. So `256/a.jpg -> /etc/shadow` neither has its
/// hash compared (an oracle) nor gets copied out as a link.
enum ContainedFile {
    enum Failure: Error, Equatable {
        /// Absolute, `..`, `.` or empty segments: never looked up.
        case outside
        /// A symbolic link on the way or at the name (named, relative to the folder).
        case link(String)
        /// Nothing there, or a folder where the file should be.
        case missing
        /// There, but not a regular file: what it is ("FIFO", "device"…).
        case notRegular(String)
        /// The system refused; its reason.
        case unreadable(String)
    }

    /// The bytes of `relative` below `root`.
    static func read(_ relative: String, under root: String) throws(Failure) -> Data {
        let relative = withoutDoubledSlashes(relative)
        guard RelativePath.isContained(relative) else { throw .outside }
        let place: ContainedPath
        do {
            place = try ContainedPath(relative, under: root, create: false)
        } catch {
            if error.cause == .noEntry { throw .missing }
            if let link = firstLink(relative, under: root) { throw .link(link) }
            if error.cause == .notDirectory { throw .missing }
            throw .unreadable(error.message)
        }
        let fd: Int32
        do {
            fd = try FileDescriptor.open(place.name, inFolder: place.folder, .readOnly, [.noFollow, .nonBlocking])
        } catch {
            if error == .linkLoop { throw .link(relative) }
            if error == .noEntry { throw .missing }
            throw .unreadable(error.text)
        }
        defer { try? FileDescriptor.close(fd) }
        guard let info = FileInfo.of(descriptor: fd) else { throw .unreadable(SystemError.current().text) }
        switch info.kind {
        case .regular: break
        case .directory: throw .missing
        case .fifo: throw .notRegular("FIFO")
        case .socket: throw .notRegular("socket")
        case .characterDevice, .blockDevice: throw .notRegular("device")
        default: throw .notRegular("special file")
        }
        var data = Data(count: Int(info.size))
        var offset = 0
        let size = data.count
        var failure: SystemError?
        data.withUnsafeMutableBytes { raw in
            while offset < size {
                let result = Result { () throws(SystemError) -> Int in
                    try FileDescriptor.read(fd, into: raw.baseAddress! + offset, count: size - offset)
                }
                switch result {
                case .success(0): return
                case .success(let n): offset += n
                case .failure(let error):
                    failure = error
                    return
                }
            }
        }
        if let failure { throw .unreadable(failure.text) }
        if offset < size { data.removeSubrange(offset...) }
        return data
    }

    /// `256//p01.jpg` as `256/p01.jpg`: for the system a doubled slash is
    /// one, so such a path stays inside the folder (issue 39). A leading
    /// slash stays (absolute: outside), and so does a trailing one.
    static func withoutDoubledSlashes(_ path: String) -> String {
        guard path.contains("//") else { return path }
        var out = ""
        var previousSlash = false
        for (index, character) in path.enumerated() {
            let slash = character == "/"
            if slash && previousSlash && index > 1 { continue }
            out.append(character)
            previousSlash = slash
        }
        return out
    }

    /// Why a path that `read` refuses without a lookup leads outside the
    /// folder, for a finding.
    static func whyOutside(_ path: String) -> String {
        if path.isEmpty { return "is empty" }
        if path.hasPrefix("/") { return "is absolute" }
        if path.utf8.contains(0) { return "holds a NUL byte" }
        let segments = withoutDoubledSlashes(path).split(separator: "/", omittingEmptySubsequences: false)
        if segments.contains("..") { return "climbs out with `..`" }
        if segments.contains(".") { return "has a `.` segment" }
        return "has an empty segment"
    }

    /// The first component of `relative` (as a path below `root`) that is a
    /// symbolic link, to name it in a message; nil when none is.
    private static func firstLink(_ relative: String, under root: String) -> String? {
        let components = relative.split(separator: "/")
        for end in components.indices {
            let shown = components[...end].joined(separator: "/")
            if FileInfo.of(pathBytes: Array((root + "/" + shown).utf8), followLinks: false)?.kind == .symbolicLink {
                return shown
            }
        }
        return nil
    }
}
