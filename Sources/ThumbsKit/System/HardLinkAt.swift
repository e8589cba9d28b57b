#if canImport(Glibc)
import Glibc
#endif

/// Makes `target` a hard link to `name` in the folder open as `folder`
/// (`linkat` without `AT_SYMLINK_FOLLOW`: a link at `name` is linked itself,
/// never what it points to). False when the file system refuses (another
/// device, no hard links, `target` exists).
func hardLink(_ name: String, inFolder folder: Int32, to target: String) -> Bool {
    linkat(folder, name, AT_FDCWD, target, 0) == 0
}
