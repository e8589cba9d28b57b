#if canImport(Glibc)
import Glibc
#endif

/// The names in a folder (`.` and `..` included), sorted byte by byte, in
/// one buffer: each name followed by a NUL, plus a 4-byte offset per name.
/// A folder of a million photos costs about its names' length plus five
/// bytes each while it is walked, not an array per name.
///
/// Throws as `directoryEntryNames` does: a folder listed in part is never
/// taken for the whole of it.
struct SortedDirectoryNames {
    private var bytes: [UInt8] = []
    private var starts: [UInt32] = []

    init(pathBytes: [UInt8]) throws(SystemError) {
        guard let dir = withCPath(pathBytes, { opendir($0) }) else { throw .current() }
        defer { closedir(dir) }
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        while true {
            errno = 0
            guard let entry = readdir(dir) else {
                if errno != 0 { throw .current() }
                break
            }
            // Through a pointer: a record may be shorter than sizeof(dirent).
            let name = UnsafeRawPointer(entry).advanced(by: nameOffset).assumingMemoryBound(to: UInt8.self)
            guard bytes.count < Int(UInt32.max) - 4096 else { throw SystemError(code: EOVERFLOW) }
            starts.append(UInt32(bytes.count))
            bytes.append(contentsOf: UnsafeBufferPointer(start: name, count: strlen(name)))
            bytes.append(0)
        }
        bytes.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress!
            // strcmp compares as unsigned bytes, and a prefix first: the
            // order of `[UInt8].lexicographicallyPrecedes`.
            starts.sort { Self.order(base + Int($0), base + Int($1)) < 0 }
        }
    }

    var count: Int { starts.count }

    /// The first byte of name `index` (0 for an empty name).
    func firstByte(_ index: Int) -> UInt8 { bytes[Int(starts[index])] }

    /// Name `index`, in sorted order.
    func name(_ index: Int) -> [UInt8] {
        let start = Int(starts[index])
        var end = start
        while bytes[end] != 0 { end += 1 }
        return Array(bytes[start..<end])
    }

    /// Whether `name` is in the folder.
    func contains(_ name: [UInt8]) -> Bool {
        var low = 0, high = starts.count
        let wanted = name + [0]
        while low < high {
            let middle = (low + high) / 2
            let order = bytes.withUnsafeBufferPointer { buffer in
                wanted.withUnsafeBufferPointer { Self.order(buffer.baseAddress! + Int(starts[middle]), $0.baseAddress!) }
            }
            if order == 0 { return true }
            if order < 0 { low = middle + 1 } else { high = middle }
        }
        return false
    }

    private static func order(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>) -> Int32 {
        strcmp(UnsafeRawPointer(a).assumingMemoryBound(to: CChar.self), UnsafeRawPointer(b).assumingMemoryBound(to: CChar.self))
    }
}
