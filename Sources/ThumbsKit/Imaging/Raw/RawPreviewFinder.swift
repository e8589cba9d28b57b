/// The JPEG previews a RAW holds, each a byte range of the file with its
/// JPEG header: those its TIFF directories point to (a DNG's preview IFDs, a
/// CR2's IFD0, a NEF's SubIFDs; JPEGInterchangeFormat or a JPEG-compressed
/// single strip), and LibRaw's own thumbnail (how the formats that are not
/// TIFFs, CR3 and RAF among them, show theirs).
///
/// A range outside the file, or bytes that are not a JPEG the direct paths
/// decode (the lossless JPEG of sensor data, a CMYK preview), is left out.
/// From a file, only each candidate's header is read (`headerBytes`, more
/// only when its segments before the scan are longer): the lossless JPEG of
/// a DNG's sensor data is a candidate too, and it is most of the file.
enum RawPreviewFinder {
    struct Preview {
        var range: Range<Int>
        var header: DirectJPEG.Header
    }

    /// What is read of a candidate from a file to probe its header.
    static let headerBytes = 64 << 10

    static func previews(in source: ImageSource, libraw: Range<Int>?) -> [Preview] {
        var ranges: [(offset: Int, length: Int)] = []
        if let tiff = TIFFDirectories(read: { offset, count in source.bytes(at: offset, count: count) }) {
            typealias Tag = TIFFDirectories.Tag
            for directory in tiff.directories {
                if let offset = tiff.value(directory.entry(Tag.jpegOffset)), let length = tiff.value(directory.entry(Tag.jpegLength)) {
                    ranges.append((offset, length))
                }
                if let compression = tiff.value(directory.entry(Tag.compression)), compression == 6 || compression == 7,
                   let offsets = directory.entry(Tag.stripOffsets), let counts = directory.entry(Tag.stripByteCounts),
                   offsets.count == 1, counts.count == 1,
                   let offset = tiff.value(offsets), let length = tiff.value(counts) {
                    ranges.append((offset, length))
                }
            }
        }
        if let libraw { ranges.append((libraw.lowerBound, libraw.count)) }
        var seen: Set<Int> = []
        var found: [Preview] = []
        let size = source.count
        for (offset, length) in ranges where seen.insert(offset).inserted {
            // Checked without overflow: both come from the file.
            guard offset >= 0, length >= 4, offset < size, length <= size - offset else { continue }
            let range = offset..<offset + length
            guard let header = probe(source, range) else { continue }
            found.append(Preview(range: range, header: header))
        }
        return found
    }

    /// The JPEG header of the bytes in `range`, read from its first
    /// `headerBytes` when they hold every segment up to the scan.
    private static func probe(_ source: ImageSource, _ range: Range<Int>) -> DirectJPEG.Header? {
        let head = source.inMemory ? range.count : min(range.count, headerBytes)
        let first = try? source.withBytes(in: range.lowerBound..<range.lowerBound + head) { slice -> (DirectJPEG.Header?, Bool) in
            guard slice[0] == 0xFF, slice[1] == 0xD8 else { return (nil, true) }
            return (DirectJPEG.probe(slice), reachesScan(slice))
        }
        guard let (header, conclusive) = first else { return nil }
        if header != nil || conclusive || head == range.count { return header }
        // Segments longer than the first read (a large Exif block): all of it.
        return (try? source.withBytes(in: range) { DirectJPEG.probe($0) }) ?? nil
    }

    /// Whether `bytes`, a JPEG's first bytes, reach its first scan (SOS), or
    /// stop being segments before: either way, more bytes cannot change
    /// what the header says.
    static func reachesScan(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var at = 2
        while at + 4 <= bytes.count {
            guard bytes[at] == 0xFF else { return true }
            let marker = bytes[at + 1]
            if marker == 0xFF { at += 1; continue }  // fill byte
            if marker == 0xDA || marker == 0xD9 { return true }
            if marker == 0x01 || (0xD0...0xD8).contains(marker) { at += 2; continue }  // no length
            at += 2 + (Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]))
        }
        return false
    }

    /// The cheapest preview that serves every size: the fewest pixels among
    /// those at least `needed` (stored orientation, as the photo's), with
    /// the photo's aspect ratio within a pixel at the preview's scale, no
    /// orientation of its own other than the RAW's, and within `maxPixels`.
    static func choose(
        _ previews: [Preview], photo: (width: Int, height: Int), orientation: Int,
        needed: (width: Int, height: Int), maxPixels: Int
    ) -> Preview? {
        previews
            .filter { preview in
                let header = preview.header
                let (w, h) = (header.width, header.height)
                guard w > 0, h > 0, photo.width > 0, photo.height > 0 else { return false }
                guard header.orientation == 1 || header.orientation == orientation else { return false }
                guard w.multipliedReportingOverflow(by: h).partialValue <= maxPixels, w <= 65535, h <= 65535 else { return false }
                // h / w against photo.height / photo.width: off by at most a
                // pixel on the preview's longer side, else letterboxed or cropped.
                guard abs(h * photo.width - w * photo.height) <= max(photo.width, photo.height) else { return false }
                return w + 1 >= needed.width && h + 1 >= needed.height
            }
            .min { $0.header.width * $0.header.height < $1.header.width * $1.header.height }
    }
}
