import CRawShim

/// Where a RAW's bytes are read from: memory (a downloaded file, a test), or
/// a file kept open after its hash was streamed (`SourceBytes(hashing:)`),
/// read by ranges.
///
/// A camera RAW is mostly sensor data that a thumbnail from its preview
/// never looks at: from a file, thumbs reads the directories, the headers
/// of the candidate previews and the one preview it decodes (a 2.6 MB JPEG
/// of a 21 MB DNG), and LibRaw reads what it parses through the descriptor
/// (`shim_raw_input`). Holding the whole file cost a 21 MB buffer per job,
/// faulted in afresh for every file (about a third of the CPU time a RAW
/// took), for nothing.
enum RawSource {
    case memory(UnsafeRawBufferPointer)
    case file(SourceFile)

    /// The file's size in bytes.
    var count: Int {
        switch self {
        case .memory(let bytes): bytes.count
        case .file(let file): file.size
        }
    }

    /// Whether every byte is at hand already (then a range costs no read).
    var inMemory: Bool {
        if case .memory = self { return true }
        return false
    }

    /// Up to `count` bytes at `offset`: fewer where the file ends, none past
    /// it (or when it cannot be read: the caller sees a short file).
    func bytes(at offset: Int, count: Int) -> [UInt8] {
        switch self {
        case .memory(let bytes): RawSniffer.slice(bytes, offset, count)
        case .file(let file): (try? file.bytes(at: offset, count: count)) ?? []
        }
    }

    /// `body` on the bytes of `range`, which lies inside the file: in place
    /// from memory; from a file, read into a buffer of their own, freed
    /// after `body`. Throws `io` when the file can no longer give them.
    func withBytes<R>(in range: Range<Int>, _ body: (UnsafeRawBufferPointer) throws(ItemError) -> R) throws(ItemError) -> R {
        precondition(range.lowerBound >= 0 && range.upperBound <= count)
        switch self {
        case .memory(let bytes):
            return try body(UnsafeRawBufferPointer(rebasing: bytes[range]))
        case .file(let file):
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(range.count, 1), alignment: 16)
            defer { buffer.deallocate() }
            let piece = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<range.count])
            let n = try file.read(into: piece, at: range.lowerBound)
            guard n == range.count else {
                throw SourceFile.changed(file.path, detail: "it ended after \(range.lowerBound + n) of \(file.size) bytes")
            }
            return try body(UnsafeRawBufferPointer(piece))
        }
    }

    /// `body` with LibRaw's input for these bytes.
    func withLibRawInput<R>(_ body: (shim_raw_input) throws(ItemError) -> R) throws(ItemError) -> R {
        switch self {
        case .memory(let bytes):
            return try body(shim_raw_input(buf: bytes.baseAddress, len: bytes.count, fd: -1))
        case .file(let file):
            let size = file.size
            do {
                return try file.withDescriptor { fd in try body(shim_raw_input(buf: nil, len: size, fd: fd)) }
            } catch {
                throw (error as? ItemError) ?? .io("\(error)")
            }
        }
    }

    /// Throws `io` when the file changed since it was opened (a preview read
    /// after the hash must be of the same bytes); nothing for memory.
    func checkUnchanged() throws(ItemError) {
        if case .file(let file) = self { try file.checkUnchanged() }
    }
}
