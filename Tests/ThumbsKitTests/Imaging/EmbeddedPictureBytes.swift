/// Camera-file structures built byte by byte for the embedded-picture
/// parser's tests (fuzz/make_embedded_seeds.py writes the same ones as the
/// fuzzer's seeds): TIFF directories, APP segments, an Exif block with a
/// maker note, an MPF index, and the smallest JPEG whose frame the parser
/// measures (SOI, SOF0, SOS, EOI: no pixels).
enum EmbeddedPictureBytes {
    static func tinyJPEG(width: Int, height: Int, components: Int = 3) -> [UInt8] {
        var frame: [UInt8] = [8] + be16(height) + be16(width) + [UInt8(components)]
        for c in 0..<components { frame += [UInt8(c + 1), 0x11, 0] }
        let scan: [UInt8] = [1, 1, 0, 0, 63, 0]
        return [0xFF, 0xD8] + segment(0xC0, frame) + segment(0xDA, scan) + [0, 0, 0xFF, 0xD9]
    }

    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        precondition(payload.count <= 0xFFFF - 2, "a segment holds at most 65,533 bytes")
        return [0xFF, marker] + be16(payload.count + 2) + payload
    }

    static func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func be32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(v >> (24 - 8 * UInt32($0)) & 0xFF) } }

    static func tiffHeader(bigEndian: Bool, first: UInt32) -> [UInt8] {
        (bigEndian ? Array("MM".utf8) + [0, 42] : Array("II".utf8) + [42, 0]) + u32(first, bigEndian)
    }

    static func u16(_ v: Int, _ bigEndian: Bool) -> [UInt8] { bigEndian ? be16(v) : be16(v).reversed() }
    static func u32(_ v: UInt32, _ bigEndian: Bool) -> [UInt8] { bigEndian ? be32(v) : be32(v).reversed() }

    /// A TIFF directory; `packed(at:)` lays it out at an offset (from the
    /// structure's TIFF header), its out-of-line values right after it.
    struct Directory {
        enum Value { case number(UInt32), bytes([UInt8]) }
        var bigEndian: Bool
        var entries: [(tag: Int, type: Int, count: UInt32, value: Value)] = []
        var next: UInt32 = 0

        init(bigEndian: Bool) { self.bigEndian = bigEndian }

        mutating func add(_ tag: Int, _ type: Int, _ count: UInt32, _ value: UInt32) {
            entries.append((tag, type, count, .number(value)))
        }

        mutating func add(_ tag: Int, ascii text: String) {
            let bytes = Array(text.utf8) + [0]
            entries.append((tag, 2, UInt32(bytes.count), .bytes(bytes)))
        }

        mutating func add(_ tag: Int, _ type: Int, bytes: [UInt8]) {
            entries.append((tag, type, UInt32(bytes.count), .bytes(bytes)))
        }

        func packed(at offset: Int) -> [UInt8] {
            let size = 2 + 12 * entries.count + 4
            var out = u16(entries.count, bigEndian)
            var extra: [UInt8] = []
            for entry in entries.sorted(by: { $0.tag < $1.tag }) {
                var field: [UInt8]
                switch entry.value {
                case .number(let v):
                    field = entry.type == 3 ? u16(Int(v), bigEndian) + [0, 0] : u32(v, bigEndian)
                case .bytes(let b) where b.count <= 4:
                    field = b + Array(repeating: 0, count: 4 - b.count)
                case .bytes(let b):
                    field = u32(UInt32(offset + size + extra.count), bigEndian)
                    extra += b + (b.count % 2 == 1 ? [0] : [])
                }
                out += u16(entry.tag, bigEndian) + u16(entry.type, bigEndian) + u32(entry.count, bigEndian) + field
            }
            return out + u32(next, bigEndian) + extra
        }
    }

    /// `bytes` written over `buffer` at `offset`, the buffer grown to fit.
    static func place(_ bytes: [UInt8], at offset: Int, in buffer: inout [UInt8]) {
        if buffer.count < offset + bytes.count { buffer += Array(repeating: 0, count: offset + bytes.count - buffer.count) }
        buffer.replaceSubrange(offset..<offset + bytes.count, with: bytes)
    }

    /// The facts an Exif block records.
    struct ExifFacts {
        var make = "NIKON CORPORATION"
        var model = "NIKON D90"
        var software: String? = "Ver.1.00"
        var modifyDate: String? = "2024:01:02 03:04:05"
        var dateOriginal: String? = "2024:01:02 03:04:05"
        var pixel: (width: Int, height: Int)? = (64, 48)
    }

    /// Where the pieces of `exifJPEG` lie in its TIFF structure (offsets
    /// from the TIFF header, which is at file offset 12).
    static let tiffStart = 12
    static let makerNoteOffset = 1536
    static let thumbnailOffset = 3072

    /// A JPEG of `width` x `height` whose APP1 holds IFD0 (Make, Model,
    /// Software, ModifyDate), an Exif IFD (DateTimeOriginal,
    /// PixelX/YDimension, the maker note `note` at `makerNoteOffset`) and
    /// IFD1 naming a 16 x 12 thumbnail at `thumbnailOffset` (past a note
    /// that reaches it), or `thumbnail`. `main`: a real JPEG whose segments
    /// and scan follow the APP1 instead of a frame-only one.
    static func exifJPEG(
        _ facts: ExifFacts = ExifFacts(), width: Int = 64, height: Int = 48, bigEndian: Bool = false,
        note: [UInt8]? = nil, thumbnail: (offset: UInt32, length: UInt32)? = nil, extraSegments: [UInt8] = [],
        main: [UInt8]? = nil
    ) -> [UInt8] {
        let thumbAt = max(thumbnailOffset, makerNoteOffset + (note?.count ?? 0) + 16)
        let thumb = tinyJPEG(width: 16, height: 12)
        var ifd0 = Directory(bigEndian: bigEndian)
        ifd0.add(0x010F, ascii: facts.make)
        ifd0.add(0x0110, ascii: facts.model)
        if let software = facts.software { ifd0.add(0x0131, ascii: software) }
        if let date = facts.modifyDate { ifd0.add(0x0132, ascii: date) }
        ifd0.add(0x8769, 4, 1, 512)
        ifd0.next = 1024
        var exif = Directory(bigEndian: bigEndian)
        if let date = facts.dateOriginal { exif.add(0x9003, ascii: date) }
        if let pixel = facts.pixel {
            exif.add(0xA002, 4, 1, UInt32(pixel.width))
            exif.add(0xA003, 3, 1, UInt32(pixel.height))
        }
        if let note { exif.add(0x927C, 7, UInt32(note.count), UInt32(makerNoteOffset)) }
        var ifd1 = Directory(bigEndian: bigEndian)
        ifd1.add(0x0201, 4, 1, thumbnail?.offset ?? UInt32(thumbAt))
        ifd1.add(0x0202, 4, 1, thumbnail?.length ?? UInt32(thumb.count))
        var tiff = tiffHeader(bigEndian: bigEndian, first: 8)
        place(ifd0.packed(at: 8), at: 8, in: &tiff)
        place(exif.packed(at: 512), at: 512, in: &tiff)
        place(ifd1.packed(at: 1024), at: 1024, in: &tiff)
        if let note { place(note, at: makerNoteOffset, in: &tiff) }
        place(thumb, at: thumbAt, in: &tiff)
        let app1 = segment(0xE1, Array("Exif".utf8) + [0, 0] + tiff)
        return [0xFF, 0xD8] + app1 + extraSegments + (main ?? tinyJPEG(width: width, height: height)).dropFirst(2)
    }

    /// A Nikon type 3 maker note: "Nikon\0" 2.10, its own TIFF header,
    /// PreviewIFD (0x0011) naming `preview` (a 40 x 30 frame) 128 bytes past
    /// that header.
    static func nikonNote(preview: [UInt8] = tinyJPEG(width: 40, height: 30)) -> [UInt8] {
        var main = Directory(bigEndian: false)
        main.add(0x0011, 13, 1, 64)
        var sub = Directory(bigEndian: false)
        sub.add(0x0201, 4, 1, 128)
        sub.add(0x0202, 4, 1, UInt32(preview.count))
        var body = tiffHeader(bigEndian: false, first: 8)
        place(main.packed(at: 8), at: 8, in: &body)
        place(sub.packed(at: 64), at: 64, in: &body)
        place(preview, at: 128, in: &body)
        return Array("Nikon".utf8) + [0, 2, 0x10, 0, 0] + body
    }

    /// Where `nikonNote`'s preview lies in `exifJPEG`'s file.
    static let nikonPreviewOffset = tiffStart + makerNoteOffset + 10 + 128

    /// A Sony Ericsson maker note: "SEMC MS\0", four zero bytes, a TIFF
    /// header (`byteOrder`, from which its offsets count), the directory 8
    /// bytes past it naming a preview at `start` (default: `preview`, a
    /// 40 x 30 frame, 64 bytes past the header) of `length` bytes.
    static func semcNote(
        preview: [UInt8] = tinyJPEG(width: 40, height: 30), start: UInt32 = 64, length: UInt32? = nil,
        byteOrder: String = "MM"
    ) -> [UInt8] {
        var directory = Directory(bigEndian: byteOrder == "MM")
        directory.add(0x0201, 4, 1, start)
        directory.add(0x0202, 4, 1, length ?? UInt32(preview.count))
        var body = Array(byteOrder.utf8) + tiffHeader(bigEndian: byteOrder == "MM", first: 8).dropFirst(2)
        place(directory.packed(at: 8), at: 8, in: &body)
        place(preview, at: 64, in: &body)
        return Array("SEMC MS".utf8) + [0, 0, 0, 0, 0] + body
    }

    /// Where `semcNote`'s preview lies in `exifJPEG`'s file.
    static let semcPreviewOffset = tiffStart + makerNoteOffset + 12 + 64

    /// Where a preview 128 bytes into a note at `makerNoteOffset` lies: from
    /// the Exif block's TIFF header (`headerlessNote`'s and `casioNote`'s
    /// offsets), and in `exifJPEG`'s file.
    static let notePreviewInTIFF = makerNoteOffset + 128
    static let notePreviewOffset = tiffStart + notePreviewInTIFF

    /// A headerless maker note: a directory at its first byte whose offsets
    /// count from the Exif block's TIFF header, `preview` (a 40 x 30 frame)
    /// 128 bytes into the note. Nikon's Coolpix (`nikon`) name it in a
    /// PreviewIFD (0x0011) 64 bytes in (0x0201 start, 0x0202 length),
    /// Minolta's DiMAGE in the directory itself (0x0088 start, 0x0089
    /// length). `bigEndian`: the note's byte order; `start`, `length`
    /// override the preview's.
    static func headerlessNote(
        nikon: Bool, bigEndian: Bool, preview: [UInt8] = tinyJPEG(width: 40, height: 30), start: UInt32? = nil,
        length: UInt32? = nil, previewIFD: UInt32? = nil
    ) -> [UInt8] {
        let at = makerNoteOffset
        let start = start ?? UInt32(notePreviewInTIFF)
        let length = length ?? UInt32(preview.count)
        var main = Directory(bigEndian: bigEndian)
        main.add(0x0000, 7, bytes: Array("0210".utf8))
        var note: [UInt8] = []
        if nikon {
            main.add(0x0011, 4, 1, previewIFD ?? UInt32(at + 64))
            var sub = Directory(bigEndian: bigEndian)
            sub.add(0x0103, 3, 1, 6)
            sub.add(0x0201, 4, 1, start)
            sub.add(0x0202, 4, 1, length)
            place(sub.packed(at: at + 64), at: 64, in: &note)
        } else {
            main.add(0x0088, 4, 1, start)
            main.add(0x0089, 4, 1, length)
        }
        place(main.packed(at: at), at: 0, in: &note)
        place(preview, at: 128, in: &note)
        return note
    }

    /// A Casio type 2 note: "QVC\0", two zero bytes, the directory
    /// (offsets from the Exif block's TIFF header) naming `preview` 128
    /// bytes into the note by 0x2000 PreviewImage (`imageTag`: its count
    /// the length) or by 0x0004 start and 0x0003 length; `start`, `length`
    /// override the preview's.
    static func casioNote(
        bigEndian: Bool, preview: [UInt8] = tinyJPEG(width: 40, height: 30), imageTag: Bool = true,
        start: UInt32 = UInt32(notePreviewInTIFF), length: UInt32? = nil
    ) -> [UInt8] {
        let length = length ?? UInt32(preview.count)
        var directory = Directory(bigEndian: bigEndian)
        directory.add(0x0001, 3, 1, 2)
        if imageTag {
            directory.add(0x2000, 7, length, start)
        } else {
            directory.add(0x0003, 4, 1, length)
            directory.add(0x0004, 4, 1, start)
        }
        var note = Array("QVC".utf8) + [0, 0, 0]
        place(directory.packed(at: makerNoteOffset + 6), at: 6, in: &note)
        place(preview, at: 128, in: &note)
        return note
    }

    /// A Samsung "STMN0100" note: 32-bit words in the Exif block's byte
    /// order, the third the preview's start from the file's first byte
    /// (default: `preview`, 64 bytes into the note in `exifJPEG`'s file),
    /// the fourth its length.
    static func samsungNote(
        bigEndian: Bool, preview: [UInt8] = tinyJPEG(width: 40, height: 30), start: UInt32? = nil, length: UInt32? = nil
    ) -> [UInt8] {
        var note = Array("STMN0100".utf8) + u32(start ?? UInt32(samsungPreviewOffset), bigEndian)
            + u32(length ?? UInt32(preview.count), bigEndian)
        place(preview, at: 64, in: &note)
        return note
    }

    /// Where `samsungNote`'s preview lies in `exifJPEG`'s file.
    static let samsungPreviewOffset = tiffStart + makerNoteOffset + 64

    /// One MPF entry: type code, size, offset from the MPF header.
    struct MPEntry {
        var type: UInt32
        var length: UInt32
        var offset: UInt32
    }

    /// A JPEG (the main picture, `width` x `height`) whose APP2 MPF index
    /// holds the primary's entry and `entries(offsets)`, where `offsets` are
    /// where `pictures`, appended after the main picture, lie from the MPF
    /// header. `declared` overrides the MPEntry byte count; `next` the
    /// index's next-directory offset.
    static func mpfJPEG(
        width: Int = 64, height: Int = 48, pictures: [[UInt8]], declared: UInt32? = nil, next: UInt32 = 0,
        entries: ([UInt32]) -> [MPEntry]
    ) -> [UInt8] {
        let main = tinyJPEG(width: width, height: height)
        func app2(_ list: [MPEntry], primary: UInt32) -> [UInt8] {
            var data = be32(0x2003_0000) + be32(primary) + be32(0) + [0, 0, 0, 0]
            for e in list { data += be32(e.type) + be32(e.length) + be32(e.offset) + [0, 0, 0, 0] }
            var index = Directory(bigEndian: true)
            index.add(0xB000, 7, bytes: Array("0100".utf8))
            index.add(0xB001, 4, 1, UInt32(list.count + 1))
            index.entries.append((0xB002, 7, declared ?? UInt32(data.count), .bytes(data)))
            index.next = next
            return segment(0xE2, Array("MPF".utf8) + [0] + tiffHeader(bigEndian: true, first: 8) + index.packed(at: 8))
        }
        let header = 2 + 4 + 4  // SOI, APP2's marker and length, "MPF\0"
        let placeholder = entries(Array(repeating: 0, count: pictures.count))
        let mainEnd = 2 + app2(placeholder, primary: 0).count + main.count - 2
        var offsets: [UInt32] = []
        var at = mainEnd
        for picture in pictures {
            offsets.append(UInt32(at - header))
            at += picture.count
        }
        return [0xFF, 0xD8] + app2(entries(offsets), primary: UInt32(mainEnd)) + main.dropFirst(2) + pictures.flatMap { $0 }
    }
}
