/// Where a JPEG's bytes lie in its file: the end of its header (the first
/// SOS segment, all `DirectJPEG.probe` reads) and the end of the picture
/// (past its EOI marker).
///
/// A phone's motion photo is a JPEG with its video appended (tens or
/// hundreds of MB), an MPO a JPEG with a second one: the JPEG decoders take
/// only the first picture's bytes into memory. A file that ends in EOI is
/// taken to be one picture (a two-byte read); any other is scanned for the
/// EOI by ranges through a small buffer, following the segments between
/// progressive scans by their lengths. A file with no EOI (cut short) is a
/// picture to its end. Every read is bounded: these bytes are untrusted.
struct JPEGExtent: Equatable {
    /// Bytes from the start through the first SOS segment.
    var headerEnd: Int
    /// Bytes from the start through the EOI marker, or the file's size.
    var length: Int

    /// Bytes scanned at a time for the EOI.
    static let scanChunk = 256 << 10

    /// Nil when no SOS follows the SOI through well-formed segments.
    static func find(_ source: ImageSource) -> JPEGExtent? {
        guard let headerEnd = headerEnd(of: source) else { return nil }
        return JPEGExtent(headerEnd: headerEnd, length: length(of: source, headerEnd: headerEnd))
    }

    /// The picture's bytes, through its EOI (`headerEnd` from
    /// `headerEnd(of:)`). Asked only by a plan that decodes the picture
    /// itself: finding it can scan all of a file that does not end in EOI,
    /// which a camera preview's plan never needs.
    static func length(of source: ImageSource, headerEnd: Int) -> Int {
        let size = source.count
        if size >= 2, source.bytes(at: size - 2, count: 2) == [0xFF, 0xD9] { return size }
        return endOfImage(source, from: headerEnd)
    }

    /// The end of the first SOS segment, walking the segments before it;
    /// nil when no SOS follows the SOI through well-formed segments.
    static func headerEnd(of source: ImageSource) -> Int? {
        var offset = 2
        // A segment is at least 4 bytes: a bound on the walk whatever the file.
        for _ in 0..<4096 {
            let b = source.bytes(at: offset, count: 4)
            guard b.count >= 2, b[0] == 0xFF else { return nil }
            let marker = b[1]
            if marker == 0xFF { offset += 1; continue }  // fill byte
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { offset += 2; continue }  // no length
            guard b.count == 4, marker != 0xD9 else { return nil }
            let length = Int(b[2]) << 8 | Int(b[3])
            guard length >= 2 else { return nil }
            offset += 2 + length
            if marker == 0xDA { return offset }
        }
        return nil
    }

    /// The end of the EOI marker after entropy-coded data that starts at
    /// `start`, or the file's size when there is none.
    private static func endOfImage(_ source: ImageSource, from start: Int) -> Int {
        let size = source.count
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: scanChunk, alignment: 16)
        defer { buffer.deallocate() }
        var offset = start
        while offset < size - 1 {
            guard let n = try? source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<min(scanChunk, size - offset)]), at: offset),
                  n >= 2 else { return size }
            var i = 0
            var next: Int?
            while i < n - 1 {
                // Entropy-coded data holds an FF every few hundred bytes:
                // memchr finds the next a vector at a time.
                guard let hit = ByteSearch.firstIndex(of: 0xFF, in: UnsafeRawPointer(buffer.baseAddress! + i), count: n - 1 - i) else {
                    i = n - 1
                    break
                }
                i += hit
                let marker = buffer[i + 1]
                // Stuffed zero, fill byte, restart marker: still the scan.
                if marker == 0x00 || marker == 0xFF || (0xD0...0xD7).contains(marker) { i += 1; continue }
                if marker == 0xD9 { return offset + i + 2 }
                // A segment between scans (DHT, SOS, DQT…): skip it by its length.
                let at = offset + i
                let length = source.bytes(at: at + 2, count: 2)
                guard length.count == 2 else { return size }
                let skip = Int(length[0]) << 8 | Int(length[1])
                guard skip >= 2 else { return size }
                next = at + 2 + skip
                break
            }
            // The last byte of a chunk may be an FF whose marker is in the next one.
            offset = next ?? offset + max(1, n - 1)
        }
        return size
    }
}
