#if canImport(Glibc)
import Glibc
#endif

/// Which file a path leads to, whatever the path says: the device and inode
/// `stat` gives. Two paths are the same folder exactly when their identities
/// are equal (`./out`, `out/`, a link to it, a bind mount of it).
struct FileIdentity: Sendable, Hashable {
    var device: UInt64
    var inode: UInt64

    /// The file at `path`, following links; nil when `stat` refuses.
    static func of(_ path: String) -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// The file at raw path bytes, not following a link there (`lstat`).
    static func of(pathBytes: [UInt8]) -> FileIdentity? {
        var info = stat()
        guard withCPath(pathBytes, { lstat($0, &info) }) == 0 else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }
}
