#if canImport(Glibc)
import Glibc
#endif

/// The raw names in a folder, `.` and `..` included, in the order the
/// system gives them. Names stay bytes: a name that is not UTF-8 is still a
/// name. Throws why the folder could not be opened or read to its end
/// (permissions, a path too long, a folder gone, an I/O error): a folder
/// listed in part is never taken for the whole of it.
func directoryEntryNames(pathBytes: [UInt8]) throws(SystemError) -> [[UInt8]] {
    guard let dir = withCPath(pathBytes, { opendir($0) }) else { throw .current() }
    defer { closedir(dir) }
    var names: [[UInt8]] = []
    while true {
        // readdir returns NULL both at the end and on an error; only errno
        // tells them apart.
        errno = 0
        guard let entry = readdir(dir) else {
            if errno != 0 { throw .current() }
            break
        }
        // Read d_name through a pointer: a dirent record may be shorter
        // than sizeof(dirent), so copying the whole field can run off
        // the end of the mapped buffer.
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        let namePointer = UnsafeRawPointer(entry).advanced(by: nameOffset).assumingMemoryBound(to: CChar.self)
        names.append(Array(UnsafeRawBufferPointer(start: namePointer, count: strlen(namePointer))))
    }
    return names
}

extension SystemError {
    /// The path is longer than the system allows (`ENAMETOOLONG`, PATH_MAX).
    static let nameTooLong = SystemError(code: ENAMETOOLONG)
}
