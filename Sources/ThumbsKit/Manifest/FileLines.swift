/// Lines of a file read through a buffer that holds a few of them: a
/// 5 GB manifest is read with one buffer of about the longest line
/// (`pread` at the reader's own offset, so readers can share a descriptor).
final class FileLines {
    let fd: Int32
    private var buffer: UnsafeMutableRawBufferPointer
    /// The unread bytes are buffer[start..<end]; buffer[0] lies at
    /// `bufferOffset` in the file.
    private(set) var start = 0
    private(set) var end = 0
    private(set) var bufferOffset: Int
    private var atEnd = false
    /// What owns `fd` (a `ManifestSource`), kept alive as long as this reads it.
    private let owner: AnyObject?

    init(fd: Int32, from offset: Int, capacity: Int = 64 * 1024, owner: AnyObject? = nil) {
        self.fd = fd
        self.owner = owner
        bufferOffset = offset
        buffer = .allocate(byteCount: capacity, alignment: 8)
    }

    deinit { buffer.deallocate() }

    /// The file offset of the next unread byte.
    var offset: Int { bufferOffset + start }

    /// Unread bytes in the buffer.
    var unread: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: buffer[start..<end]) }

    /// Marks `count` unread bytes as read.
    func consume(_ count: Int) { start += count }

    /// Reads more of the file behind the unread bytes (moving them to the
    /// front, or growing the buffer when they fill it). False at the end.
    func fill() throws(SystemError) -> Bool {
        if atEnd { return false }
        if start > 0 {
            let unread = end - start
            if unread > 0 { buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + start, byteCount: unread) }
            bufferOffset += start
            start = 0
            end = unread
        }
        if end == buffer.count {
            let grown = UnsafeMutableRawBufferPointer.allocate(byteCount: buffer.count * 2, alignment: 8)
            grown.baseAddress!.copyMemory(from: buffer.baseAddress!, byteCount: end)
            buffer.deallocate()
            buffer = grown
        }
        let n = try FileDescriptor.read(fd, into: buffer.baseAddress! + end, count: buffer.count - end, at: bufferOffset + end)
        if n == 0 { atEnd = true; return false }
        end += n
        return true
    }

    /// Makes sure at least `count` bytes are unread, if the file has them.
    func require(_ count: Int) throws(SystemError) -> Bool {
        while end - start < count { if try !fill() { return false } }
        return true
    }

    /// The next line without its `\n` (the last one may have none), valid
    /// until the next call; nil at the end of the file.
    func next() throws(SystemError) -> UnsafeRawBufferPointer? {
        var searched = 0
        while true {
            let from = start + searched
            if from < end, let index = ByteSearch.firstIndex(of: 0x0A, in: buffer.baseAddress! + from, count: end - from) {
                let line = UnsafeRawBufferPointer(rebasing: buffer[start..<(from + index)])
                start = from + index + 1
                return line
            }
            searched = end - start
            if try !fill() {
                guard start < end else { return nil }
                let line = UnsafeRawBufferPointer(rebasing: buffer[start..<end])
                start = end
                return line
            }
        }
    }
}
