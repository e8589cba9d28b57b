#if canImport(Glibc)
import Glibc
#endif

/// The raw names in a folder, `.` and `..` included, in the order the
/// system gives them; nil when the folder cannot be opened. Names stay bytes:
/// a name that is not UTF-8 is still a name.
func directoryEntryNames(_ path: String) -> [[UInt8]]? {
    guard let dir = opendir(path) else { return nil }
    defer { closedir(dir) }
    var names: [[UInt8]] = []
    while let entry = readdir(dir) {
        // Read d_name through a pointer: a dirent record may be shorter
        // than sizeof(dirent), so copying the whole field can run off
        // the end of the mapped buffer.
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        let namePointer = UnsafeRawPointer(entry).advanced(by: nameOffset).assumingMemoryBound(to: CChar.self)
        names.append(Array(UnsafeRawBufferPointer(start: namePointer, count: strlen(namePointer))))
    }
    return names
}
