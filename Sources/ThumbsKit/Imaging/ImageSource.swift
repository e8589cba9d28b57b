import CRawShim

/// Where every decoder reads a source from: a file held open
/// (`SourceFile`), read by ranges, or bytes already in memory (a download's
/// header, a test).
///
/// No decoder gets the whole file just because it is a source: each reads
/// the ranges its plan names (`DecodePlan.reads`). A camera RAW is mostly
/// sensor data that a thumbnail from its preview never looks at; a motion
/// photo is a JPEG followed by a video the JPEG decoders never look at; a
/// 2 GB TIFF is read strip by strip by libvips. Bytes a decoder takes into
/// memory from a file are counted on the file (`SourceFile.hold`).
enum ImageSource {
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

    /// The first bytes, for signatures: `SourceFile.prefixLength` of them
    /// (fewer in a shorter source).
    var prefix: [UInt8] {
        switch self {
        case .memory(let bytes): Array(bytes.prefix(SourceFile.prefixLength))
        case .file(let file): file.prefix
        }
    }

    /// Up to `count` bytes at `offset`: fewer where the file ends, none past
    /// it (or when it cannot be read: the caller sees a short file).
    func bytes(at offset: Int, count: Int) -> [UInt8] {
        switch self {
        case .memory(let bytes): RawSniffer.slice(bytes, offset, count)
        case .file(let file): (try? file.bytes(at: offset, count: count)) ?? []
        }
    }

    /// Fills `buffer` from `offset`; the bytes read, fewer only at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(ItemError) -> Int {
        switch self {
        case .memory(let bytes):
            guard offset >= 0, offset < bytes.count else { return 0 }
            let n = min(buffer.count, bytes.count - offset)
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + n]))
            return n
        case .file(let file):
            return try file.read(into: buffer, at: offset)
        }
    }

    /// `body` on the bytes of `range`, which lies inside the file: in place
    /// from memory, or from the bytes the file's hash kept for its decoder
    /// (`SourceFile.keep`); else read into a buffer of their own in one
    /// read (counted as held), freed after `body`. Throws `io` when the file
    /// can no longer give them.
    func withBytes<R>(in range: Range<Int>, _ body: (UnsafeRawBufferPointer) throws(ItemError) -> R) throws(ItemError) -> R {
        precondition(range.lowerBound >= 0 && range.upperBound <= count)
        switch self {
        case .memory(let bytes):
            return try body(UnsafeRawBufferPointer(rebasing: bytes[range]))
        case .file(let file):
            if let kept = file.keptBytes(range) { return try body(kept) }
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(range.count, 1), alignment: 16)
            file.hold(range.count)
            defer {
                file.letGo(range.count)
                buffer.deallocate()
            }
            let piece = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<range.count])
            let n = try file.read(into: piece, at: range.lowerBound)
            guard n == range.count else {
                throw SourceFile.changed(file.path, detail: "it ended after \(range.lowerBound + n) of \(file.size) bytes")
            }
            return try body(UnsafeRawBufferPointer(piece))
        }
    }

    /// `body` on every byte: for a decoder whose library reads only from
    /// memory (libvips's loaders that take no source: OpenEXR), which says
    /// so in its plan (`ByteRanges.all`) and counts the file's size in its
    /// peak.
    func withAllBytes<R>(_ body: (UnsafeRawBufferPointer) throws(ItemError) -> R) throws(ItemError) -> R {
        try withBytes(in: 0..<count, body)
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

    /// Throws `io` when the file changed since it was opened (bytes read
    /// after the hash must be the same bytes); nothing for memory.
    func checkUnchanged() throws(ItemError) {
        if case .file(let file) = self { try file.checkUnchanged() }
    }
}
