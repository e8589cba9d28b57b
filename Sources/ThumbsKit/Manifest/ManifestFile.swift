import Foundation

/// The bytes of a manifest named on the command line (`verify`, `stats`,
/// `merge`) or left in OUT by the last run.
///
/// Only a regular file is read (links to one are followed), and only as
/// many bytes as it held when it was opened: a folder, `/dev/zero`, a FIFO
/// nobody writes to or a socket is refused at once with a message that says
/// what the path is, instead of Foundation's "(NSCocoaErrorDomain error
/// 256.)", "You don't have permission" to root, or a read that never ends.
enum ManifestFile {
    /// Looks `path` up and requires a regular file, with the messages a
    /// user reads for a missing or unreadable manifest (`read`, and
    /// `ManifestSource.open`, which reads one item by item).
    static func requireRegularFile(_ path: String) throws(RunError) {
        let found: FileInfo
        do {
            found = try FileInfo.lookup(path)
        } catch {
            if error == .noEntry { throw .usage("no manifest at \(path) (thumbs run writes OUT/manifest.json)") }
            throw .usage("cannot read manifest \(path): \(error.text)")
        }
        try requireRegular(found.kind, path)
    }

    static func read(_ path: String) throws(RunError) -> Data {
        try requireRegularFile(path)
        // Non-blocking: a FIFO swapped in since the lookup must not hang here.
        let fd: Int32
        do {
            fd = try FileDescriptor.open(path, .readOnly, .nonBlocking)
        } catch {
            throw .usage("cannot read manifest \(path): \(error.text)")
        }
        defer { try? FileDescriptor.close(fd) }
        let opened: FileInfo
        do {
            opened = try FileInfo.lookup(descriptor: fd)
        } catch {
            throw .usage("cannot read manifest \(path): \(error.text)")
        }
        try requireRegular(opened.kind, path)
        var data = Data(count: Int(opened.size))
        var filled = 0
        var failure: SystemError?
        data.withUnsafeMutableBytes { buffer in
            while filled < buffer.count {
                do throws(SystemError) {
                    let n = try FileDescriptor.read(fd, into: buffer.baseAddress! + filled, count: min(buffer.count - filled, 1 << 24))
                    if n == 0 { break }  // shorter than when opened: what is there is parsed
                    filled += n
                } catch {
                    failure = error
                    return
                }
            }
        }
        if let failure { throw .usage("cannot read manifest \(path): \(failure.text)") }
        if filled < data.count { data.count = filled }
        return data
    }

    /// A usage error naming what `path` is when it is not a regular file.
    static func requireRegular(_ kind: FileInfo.Kind, _ path: String) throws(RunError) {
        switch kind {
        case .regular:
            return
        case .directory:
            let inside = (path.hasSuffix("/") ? path : path + "/") + "manifest.json"
            let hint = FileInfo.of(inside)?.kind == .regular ? ", such as \(inside)" : ""
            throw .usage("\(path) is a folder, not a manifest: give the path of a manifest.json\(hint)")
        default:
            throw .usage("\(path) is \(kind.inWords), not a manifest file: give the path of a manifest.json")
        }
    }
}
