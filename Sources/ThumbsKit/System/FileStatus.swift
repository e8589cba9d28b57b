#if canImport(Glibc)
import Glibc
#endif

/// Size and modification time of a file, following links.
func fileStatus(_ path: String) -> (size: Int64, modified: Double)? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return (Int64(info.st_size), modificationTime(info))
}

/// Modification time in seconds since 1970, with nanoseconds.
func modificationTime(_ info: stat) -> Double {
    Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
}
