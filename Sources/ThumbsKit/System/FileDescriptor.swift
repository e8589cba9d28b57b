#if canImport(Glibc)
import Glibc
#endif

/// Opening, reading, flushing and closing files by descriptor (`open`,
/// `openat`, `read`, `fsync`, `close`, `lseek`; writing is `writeAll`).
/// Descriptors stay plain `Int32`s that their users close; every call that
/// can fail throws the `errno` it left (`SystemError`).
///
/// Every descriptor is opened with `O_CLOEXEC`: a libvips helper or any
/// other child process must never inherit OUT's lock or a half-written file.
enum FileDescriptor {
    enum Access {
        case readOnly, writeOnly, readWrite

        var flags: Int32 {
            switch self {
            case .readOnly: O_RDONLY
            case .writeOnly: O_WRONLY
            case .readWrite: O_RDWR
            }
        }
    }

    struct Options: OptionSet, Sendable {
        let rawValue: Int32
        /// Create the file when missing (`O_CREAT`, with the given permissions).
        static let create = Options(rawValue: O_CREAT)
        /// Fail when the file exists (`O_EXCL`).
        static let exclusive = Options(rawValue: O_EXCL)
        /// Every write goes to the end, in one piece (`O_APPEND`).
        static let append = Options(rawValue: O_APPEND)
        /// Empty the file (`O_TRUNC`).
        static let truncate = Options(rawValue: O_TRUNC)
        /// Fail on a symbolic link at the final name (`O_NOFOLLOW`).
        static let noFollow = Options(rawValue: O_NOFOLLOW)
        /// Fail unless it is a folder (`O_DIRECTORY`).
        static let directory = Options(rawValue: O_DIRECTORY)
        /// Do not wait: opening a FIFO without a writer returns at once (`O_NONBLOCK`).
        static let nonBlocking = Options(rawValue: O_NONBLOCK)
    }

    /// Opens `path`.
    static func open(_ path: String, _ access: Access, _ options: Options = [], permissions: mode_t = 0) throws(SystemError) -> Int32 {
        let fd = Glibc.open(path, access.flags | options.rawValue | O_CLOEXEC, permissions)
        guard fd >= 0 else { throw .current() }
        return fd
    }

    /// Opens `name` in the folder open as `folder` (`openat`): the folders
    /// above it are not looked up again, so links there cannot redirect it.
    static func open(_ name: String, inFolder folder: Int32, _ access: Access, _ options: Options = [],
                     permissions: mode_t = 0) throws(SystemError) -> Int32 {
        let fd = openat(folder, name, access.flags | options.rawValue | O_CLOEXEC, permissions)
        guard fd >= 0 else { throw .current() }
        return fd
    }

    /// Reads up to `count` bytes into `buffer`, going on after an interrupted
    /// call (EINTR). Returns how many arrived; 0 at the end of the file.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int) throws(SystemError) -> Int {
        while true {
            let n = Glibc.read(fd, buffer, count)
            if n >= 0 { return n }
            if errno != EINTR { throw .current() }
        }
    }

    /// Moves to the end and returns that offset (the file's size); nil when
    /// the descriptor cannot seek.
    static func seekToEnd(_ fd: Int32) -> Int64? {
        let offset = lseek(fd, 0, SEEK_END)
        return offset < 0 ? nil : Int64(offset)
    }

    /// Flushes the file's data to the disk (`fsync`); on a folder's
    /// descriptor, its names (a rename into it survives a power cut).
    static func synchronise(_ fd: Int32) throws(SystemError) {
        guard fsync(fd) == 0 else { throw .current() }
        DurableSteps.note(.synchronise(DurableSteps.path(of: fd)))
    }

    /// Flushes the names in the folder open as `fd`: after a rename into
    /// it, the new name survives a power cut. A file system that cannot
    /// flush folders at all (EINVAL, as some network ones say) is not an
    /// error, as PostgreSQL decides too: there is nothing more to do there.
    static func synchroniseFolder(_ fd: Int32) throws(SystemError) {
        do {
            try synchronise(fd)
        } catch {
            if error.code != EINVAL { throw error }
        }
    }

    /// `synchroniseFolder` on the folder at `path` (`open` + `fsync`).
    static func synchroniseFolder(_ path: String) throws(SystemError) {
        let fd = try open(path, .readOnly, .directory)
        defer { try? close(fd) }
        try synchroniseFolder(fd)
    }

    /// Closes `fd`. Only a file being written has a reason to check: a
    /// network file system may report a failed write here.
    static func close(_ fd: Int32) throws(SystemError) {
        guard Glibc.close(fd) == 0 else { throw .current() }
    }
}
