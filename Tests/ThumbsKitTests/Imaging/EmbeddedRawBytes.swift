/// A TIFF RAW's structure built byte by byte for the embedded-picture
/// parser's tests: IFD0 with an 8 x 6 uncompressed RGB image at 1024, a
/// SubIFD at 256 whose JPEGInterchangeFormat is a 48 x 32 JPEG at 2048, an
/// Exif IFD at 512 with a Nikon maker note at 768, and IFD1 at 1536 naming a
/// 24 x 16 JPEG at 3072.
enum EmbeddedRawBytes {
    typealias B = EmbeddedPictureBytes

    /// `ifd0Next` and `subIFD` override where IFD0's chain and its SubIFD
    /// point (a loop, for the hostile tests).
    static func raw(bigEndian: Bool, ifd0Next: UInt32 = 1536, subIFD: UInt32 = 256, ifd1Next: UInt32 = 0) -> [UInt8] {
        let jpeg = B.tinyJPEG(width: 48, height: 32)
        let preview = B.tinyJPEG(width: 24, height: 16)
        let note = B.nikonNote()
        var ifd0 = B.Directory(bigEndian: bigEndian)
        ifd0.add(0x0100, 4, 1, 8)
        ifd0.add(0x0101, 4, 1, 6)
        ifd0.add(0x0103, 3, 1, 1)
        ifd0.add(0x0111, 4, 1, 1024)
        ifd0.add(0x0117, 4, 1, 8 * 6 * 3)
        ifd0.add(0x010F, ascii: "NIKON CORPORATION")
        ifd0.add(0x014A, 4, 1, subIFD)
        ifd0.add(0x8769, 4, 1, 512)
        ifd0.next = ifd0Next
        var sub = B.Directory(bigEndian: bigEndian)
        sub.add(0x0201, 4, 1, 2048)
        sub.add(0x0202, 4, 1, UInt32(jpeg.count))
        var exif = B.Directory(bigEndian: bigEndian)
        exif.add(0x927C, 7, UInt32(note.count), 768)
        var ifd1 = B.Directory(bigEndian: bigEndian)
        ifd1.add(0x0201, 4, 1, 3072)
        ifd1.add(0x0202, 4, 1, UInt32(preview.count))
        ifd1.next = ifd1Next
        var out = B.tiffHeader(bigEndian: bigEndian, first: 8)
        B.place(ifd0.packed(at: 8), at: 8, in: &out)
        B.place(sub.packed(at: 256), at: 256, in: &out)
        B.place(exif.packed(at: 512), at: 512, in: &out)
        B.place(note, at: 768, in: &out)
        B.place(Array(repeating: 0x80, count: 8 * 6 * 3), at: 1024, in: &out)
        B.place(ifd1.packed(at: 1536), at: 1536, in: &out)
        B.place(jpeg, at: 2048, in: &out)
        B.place(preview, at: 3072, in: &out)
        return out
    }
}
