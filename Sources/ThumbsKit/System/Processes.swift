#if canImport(Glibc)
import Glibc
#endif

/// This process and others by id: names that include our id (download
/// folders, probe files) and the sweep of what killed runs left behind.
enum Processes {
    /// This process's id (`getpid`).
    static var currentID: Int32 { getpid() }

    /// True when no process `pid` exists any more (`kill(pid, 0)` fails with
    /// `ESRCH`). A process we may not signal (`EPERM`) still exists.
    static func isGone(_ pid: Int32) -> Bool {
        kill(pid, 0) != 0 && errno == ESRCH
    }

    /// Ends the process at once with `status` (`exit`).
    static func exit(_ status: Int32) -> Never {
        Glibc.exit(status)
    }
}
