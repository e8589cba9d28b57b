#if canImport(Glibc)
import Glibc
#endif

/// What `stat` says about a file, in the terms thumbs uses. The `of`
/// functions return nil when the system refuses; the `lookup` ones throw
/// the `errno` the call left, for messages that say why.
struct FileInfo: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case regular, directory, symbolicLink, fifo, characterDevice, blockDevice, socket, other
    }

    var kind: Kind
    var size: Int64
    /// Modification time as the system keeps it, compared exactly.
    var modifiedSeconds: Int
    var modifiedNanoseconds: Int
    /// Status change time (ctime): set by the system on every write,
    /// rename, link or attribute change, and by no call a user can make.
    var changed: Instant

    /// A file time, exactly as the system keeps it.
    struct Instant: Sendable, Equatable, Comparable {
        var seconds: Int
        var nanoseconds: Int

        static func < (a: Instant, b: Instant) -> Bool {
            (a.seconds, a.nanoseconds) < (b.seconds, b.nanoseconds)
        }
    }

    /// Modification time, seconds since 1970 (nanosecond precision).
    var modified: Double { Double(modifiedSeconds) + Double(modifiedNanoseconds) / 1e9 }

    init(_ info: stat) {
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symbolicLink
        case S_IFIFO: kind = .fifo
        case S_IFCHR: kind = .characterDevice
        case S_IFBLK: kind = .blockDevice
        case S_IFSOCK: kind = .socket
        default: kind = .other
        }
        size = Int64(info.st_size)
        modifiedSeconds = Int(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int(info.st_mtim.tv_nsec)
        changed = Instant(seconds: Int(info.st_ctim.tv_sec), nanoseconds: Int(info.st_ctim.tv_nsec))
    }

    /// The file at `path`, following links.
    static func of(_ path: String) -> FileInfo? {
        try? lookup(path)
    }

    /// The file at `path`, following links; throws why `stat` refused.
    static func lookup(_ path: String) throws(SystemError) -> FileInfo {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .current() }
        return FileInfo(info)
    }

    /// The file at raw path bytes (a name need not be UTF-8); with
    /// `followLinks` false, a symbolic link itself (`lstat`).
    static func of(pathBytes: [UInt8], followLinks: Bool) -> FileInfo? {
        try? lookup(pathBytes: pathBytes, followLinks: followLinks)
    }

    /// `of(pathBytes:followLinks:)`, throwing why the system refused (a
    /// link loop, a broken link).
    static func lookup(pathBytes: [UInt8], followLinks: Bool) throws(SystemError) -> FileInfo {
        var info = stat()
        let status = withCPath(pathBytes) { followLinks ? stat($0, &info) : lstat($0, &info) }
        guard status == 0 else { throw .current() }
        return FileInfo(info)
    }

    /// The file open as `descriptor` (`fstat`).
    static func of(descriptor: Int32) -> FileInfo? {
        try? lookup(descriptor: descriptor)
    }

    /// `of(descriptor:)`, throwing why `fstat` refused.
    static func lookup(descriptor: Int32) throws(SystemError) -> FileInfo {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .current() }
        return FileInfo(info)
    }

    /// `name` in the folder open as `folder`, not following a link there
    /// (`fstatat` with `AT_SYMLINK_NOFOLLOW`).
    static func of(_ name: String, inFolder folder: Int32) -> FileInfo? {
        var info = stat()
        guard fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        return FileInfo(info)
    }
}
