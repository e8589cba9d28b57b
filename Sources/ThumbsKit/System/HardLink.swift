#if canImport(Glibc)
import Glibc
#endif

/// Makes `target` a hard link to `source` (`link(2)`); false when the file
/// system refuses (another device, no hard links, `target` exists).
func hardLink(_ source: String, _ target: String) -> Bool {
    link(source, target) == 0
}
