#if canImport(Glibc)
import Glibc
#endif

/// An error number (`errno`) as the failing call left it. The wrappers in
/// System/ read `errno` right after their call and return it this way, so
/// nothing in between (a log line, an allocation) can change it, and code
/// outside System/ can tell errors apart without importing Glibc.
struct SystemError: Error, Equatable, Sendable {
    var code: Int32

    /// The `errno` of the call that just failed. Only System/ calls this,
    /// directly after that call.
    static func current() -> SystemError { SystemError(code: errno) }

    /// The system's words for it (`strerror`), for messages.
    var text: String { errnoText(code) }

    /// No such file or folder (`ENOENT`).
    static let noEntry = SystemError(code: ENOENT)
    /// The name is taken (`EEXIST`).
    static let exists = SystemError(code: EEXIST)
    /// A component on the way is not a folder (`ENOTDIR`).
    static let notDirectory = SystemError(code: ENOTDIR)
    /// A symbolic link where none may be followed, or a link loop (`ELOOP`).
    static let linkLoop = SystemError(code: ELOOP)
    /// Another process holds a lock that excludes this one (`EWOULDBLOCK`).
    static let wouldBlock = SystemError(code: EWOULDBLOCK)
}
