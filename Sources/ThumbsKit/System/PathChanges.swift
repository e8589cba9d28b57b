#if canImport(Glibc)
import Glibc
#endif

/// Creating, renaming and removing names (`mkdir`, `rename`, `unlink` and
/// their `…at` forms). The `inFolder` forms take a folder's descriptor
/// (`ContainedPath`), so that no link on the way is followed. Each throws
/// the `errno` its call left; renames and removals are reported to
/// `DurableSteps`.
enum PathChanges {
    static func makeFolder(_ path: String, permissions: mode_t) throws(SystemError) {
        guard mkdir(path, permissions) == 0 else { throw .current() }
    }

    static func makeFolder(_ name: String, inFolder folder: Int32, permissions: mode_t) throws(SystemError) {
        guard mkdirat(folder, name, permissions) == 0 else { throw .current() }
    }

    /// Renames `source` to `target`, replacing what is there (`rename`).
    static func rename(_ source: String, to target: String) throws(SystemError) {
        guard Glibc.rename(source, target) == 0 else { throw .current() }
        DurableSteps.note(.rename(source, target))
    }

    /// Renames `source` (a path) to `name` in the folder open as `folder`
    /// (`renameat`): a link at `name` is replaced, never followed.
    static func rename(_ source: String, toName name: String, inFolder folder: Int32) throws(SystemError) {
        guard renameat(AT_FDCWD, source, folder, name) == 0 else { throw .current() }
        DurableSteps.note(.rename(source, DurableSteps.path(of: folder) + "/" + name))
    }

    /// Removes the file at `path` (a link itself, not what it points to).
    static func remove(_ path: String) throws(SystemError) {
        guard unlink(path) == 0 else { throw .current() }
        DurableSteps.note(.remove(path))
    }

    /// Removes the file `name` in the folder open as `folder` (`unlinkat`).
    static func remove(_ name: String, inFolder folder: Int32) throws(SystemError) {
        guard unlinkat(folder, name, 0) == 0 else { throw .current() }
        DurableSteps.note(.remove(DurableSteps.path(of: folder) + "/" + name))
    }
}
