import CVipsShim
import XCTest
@testable import ThumbsKit

/// Hostile files for the embedded-picture parser (issue 35, §4): offsets
/// and lengths outside the file or overlapping, an MPF index that loops or
/// names 10,000 images, a maker note (Nikon's, Sony Ericsson's, Coolpix's,
/// Minolta's, Casio's, Samsung's) that claims another camera's, a preview
/// that is not a JPEG or is truncated, TIFF directories that loop.
/// Each parse runs against a guard page (EmbeddedPicturesTests.listing).
final class EmbeddedPicturesHostileTests: XCTestCase {
    typealias B = EmbeddedPictureBytes
    typealias Picture = EmbeddedPictureListing.Picture

    private func listing(_ bytes: [UInt8], tiff: Bool = false, file: StaticString = #filePath, line: UInt = #line) throws
        -> EmbeddedPictureListing
    {
        try XCTUnwrap(EmbeddedPicturesTests.listing(bytes, tiff: tiff, file: file, line: line), file: file, line: line)
    }

    private let preview = B.tinyJPEG(width: 32, height: 24)

    /// For each case, a JPEG whose Make is `make` and whose maker note is
    /// `note`: its preview is listed when `read`, else not at all.
    private func assertMakerNoteRead(
        _ cases: [(make: String, note: [UInt8], read: Bool)], file: StaticString = #filePath, line: UInt = #line
    ) throws {
        for (make, note, read) in cases {
            var facts = B.ExifFacts()
            facts.make = make
            let result = try listing(B.exifJPEG(facts, note: note), file: file, line: line)
            XCTAssertEqual(result.pictures.contains { $0.kind == .makerNote }, read, "\(make) \(note.prefix(4))", file: file, line: line)
        }
    }

    /// An index that names 10,000 images (MPEntry of 160,000 bytes) with
    /// 100 entries present, each a picture of its own: SHIM_EP_MAX_MPF_ENTRIES
    /// entries are read, SHIM_EP_MAX_PICTURES listed, the rest refused.
    func testMPFIndexNamingTenThousandImagesIsCapped() throws {
        let pictures = (0..<100).map { B.tinyJPEG(width: 32 + $0, height: 24) }
        let bytes = B.mpfJPEG(pictures: pictures, declared: 10_000 * 16) { offsets in
            zip(pictures, offsets).map { B.MPEntry(type: 0x010001, length: UInt32($0.count), offset: $1) }
        }
        let result = try listing(bytes)
        XCTAssertTrue(result.capped)
        XCTAssertEqual(result.pictures.count, Int(SHIM_EP_MAX_PICTURES))
        XCTAssertEqual(result.refused, 10_000 - Int(SHIM_EP_MAX_MPF_ENTRIES) + (Int(SHIM_EP_MAX_MPF_ENTRIES) - 1 - Int(SHIM_EP_MAX_PICTURES)))
        XCTAssertEqual(result.pictures.map(\.width), Array(32..<32 + Int(SHIM_EP_MAX_PICTURES)))
    }

    /// An index whose next directory is itself, whose entries name one
    /// picture over and over, and one entry naming the MPF header itself:
    /// the picture is listed once, the header as no JPEG, the rest refused.
    func testMPFIndexThatLoops() throws {
        let bytes = B.mpfJPEG(pictures: [preview], next: 8) { offsets in
            Array(repeating: B.MPEntry(type: 0x010001, length: UInt32(self.preview.count), offset: offsets[0]), count: 20)
                + [B.MPEntry(type: 0x010001, length: 64, offset: 8)]
        }
        let result = try listing(bytes)
        XCTAssertEqual(result.pictures.count, 2)
        XCTAssertEqual(result.refused, 19)
        XCTAssertEqual(result.pictures[0].width, 32)
        XCTAssertTrue(result.pictures[1].has(Int32(SHIM_EP_NOT_JPEG)))
    }

    /// Entries past the end of the file, longer than what follows them, or
    /// whose offset plus length wraps 32 bits, and an Exif thumbnail past
    /// the end: none is listed.
    func testPicturesOutsideTheFileAreRefused() throws {
        let bytes = B.mpfJPEG(pictures: [preview]) { offsets in
            [
                B.MPEntry(type: 0x010001, length: 35, offset: offsets[0] + 1000),
                B.MPEntry(type: 0x010001, length: 36, offset: offsets[0]),
                B.MPEntry(type: 0x010001, length: 0xFFFF_FFFF, offset: 0xFFFF_FFF0),
                B.MPEntry(type: 0x010001, length: 3, offset: offsets[0]),
            ]
        }
        let result = try listing(bytes)
        XCTAssertEqual(result.pictures.count, 0)
        XCTAssertEqual(result.refused, 4)

        let thumbnailPast = try listing(B.exifJPEG(thumbnail: (offset: 0xFFFF_FF00, length: 0x200)))
        XCTAssertNil(thumbnailPast.pictures.first { $0.kind == .exifThumbnail })
        XCTAssertEqual(thumbnailPast.refused, 1)
    }

    /// Two entries sharing bytes (neither the same as the other) are both
    /// flagged; a third beside them is not.
    func testOverlappingPicturesAreFlagged() throws {
        let bytes = B.mpfJPEG(pictures: [preview, preview, preview]) { offsets in
            [
                B.MPEntry(type: 0x010001, length: 35, offset: offsets[0]),
                B.MPEntry(type: 0x010001, length: 35, offset: offsets[0] + 10),
                B.MPEntry(type: 0x010001, length: 35, offset: offsets[2]),
            ]
        }
        let result = try listing(bytes)
        XCTAssertEqual(result.pictures.map { $0.has(Int32(SHIM_EP_OVERLAPS)) }, [true, true, false])
    }

    /// A Nikon maker note in a file whose Make is another maker's is not
    /// read; the same note under a Nikon Make is.
    func testMakerNoteClaimingAnotherCamerasIsNotTrusted() throws {
        let nikon = B.nikonNote()
        try assertMakerNoteRead([
            ("Canon", nikon, false), ("SONY", nikon, false), ("", nikon, false), ("NIKON CORPORATION", nikon, true), ("NIKON", nikon, true),
        ])
    }

    /// A Sony Ericsson note is read under a "Sony Ericsson" Make only: not
    /// under Sony's own cameras', another maker's, or none.
    func testSonyEricssonNoteUnderAnotherMakeIsNotTrusted() throws {
        let semc = B.semcNote()
        try assertMakerNoteRead([
            ("SONY", semc, false), ("Sony", semc, false), ("Canon", semc, false), ("", semc, false), ("Sony Ericsson", semc, true),
        ])
    }

    /// The Coolpix, Minolta, Casio and Samsung notes are read under their
    /// own maker's Make only: a headerless directory under another Make, a
    /// "QVC" or "STMN" note under Nikon's (whose headerless reader must not
    /// take it), or none, lists no preview.
    func testCoolpixMinoltaCasioAndSamsungNotesUnderAnotherMakeAreNotTrusted() throws {
        let coolpix = B.headerlessNote(nikon: true, bigEndian: false)
        let minolta = B.headerlessNote(nikon: false, bigEndian: false)
        let casio = B.casioNote(bigEndian: false)
        let samsung = B.samsungNote(bigEndian: false)
        try assertMakerNoteRead([
            ("NIKON", coolpix, true), ("Canon", coolpix, false), ("SONY", coolpix, false), ("", coolpix, false),
            ("Minolta Co., Ltd.", minolta, true), ("SONY", minolta, false), ("NIKON", minolta, false), ("", minolta, false),
            ("CASIO", casio, true), ("NIKON", casio, false), ("Minolta Co., Ltd.", casio, false), ("", casio, false),
            ("SAMSUNG", samsung, true), ("NIKON", samsung, false), ("Canon", samsung, false), ("", samsung, false),
        ])
    }

    /// Coolpix, Minolta, Casio and Samsung notes naming their preview past
    /// the file, past the 32-bit end, or over the Exif thumbnail; a
    /// headerless directory that reads in neither byte order (its first
    /// entry of no TIFF type), a Minolta note in another layout (Konica's
    /// "KC"), a Samsung note too short for its length: nothing outside the
    /// file is listed, the overlap is flagged, and the rest list nothing.
    func testCoolpixMinoltaCasioAndSamsungNotesOutsideTheFileOrOverlapping() throws {
        let makes = ["NIKON", "Minolta Co., Ltd.", "CASIO", "SAMSUNG"]
        func note(_ maker: Int, start: UInt32, length: UInt32) -> [UInt8] {
            switch maker {
            case 0: B.headerlessNote(nikon: true, bigEndian: false, start: start, length: length)
            case 1: B.headerlessNote(nikon: false, bigEndian: false, start: start, length: length)
            case 2: B.casioNote(bigEndian: false, start: start, length: length)
            default: B.samsungNote(bigEndian: false, start: start, length: length)
            }
        }
        for maker in 0..<4 {
            var facts = B.ExifFacts()
            facts.make = makes[maker]
            for (start, length) in [(UInt32(0x0100_0000), UInt32(35)), (0xFFFF_FFF0, 0x100), (UInt32(B.notePreviewInTIFF), 0xFFFF_FFFF)] {
                let result = try listing(B.exifJPEG(facts, note: note(maker, start: start, length: length)))
                XCTAssertNil(result.pictures.first { $0.kind == .makerNote }, "\(makes[maker]) \(start) +\(length)")
                XCTAssertEqual(result.refused, 1, "\(makes[maker]) \(start) +\(length)")
            }
            // Over the Exif thumbnail, at 3072 from the TIFF header (12 in the file).
            let thumbnail = UInt32(B.thumbnailOffset + (maker == 3 ? B.tiffStart : 0))
            let over = try listing(B.exifJPEG(facts, note: note(maker, start: thumbnail, length: 20)))
            let preview = try XCTUnwrap(over.pictures.first { $0.kind == .makerNote }, makes[maker])
            XCTAssertEqual(preview.range.lowerBound, B.tiffStart + B.thumbnailOffset, makes[maker])
            XCTAssertTrue(preview.has(Int32(SHIM_EP_OVERLAPS)), makes[maker])
        }

        var facts = B.ExifFacts()
        facts.make = "NIKON"
        var untyped = B.headerlessNote(nikon: true, bigEndian: false)
        untyped.replaceSubrange(4..<6, with: [0xFF, 0xFF])  // the first entry's type, in either order
        XCTAssertNil(try listing(B.exifJPEG(facts, note: untyped)).pictures.first { $0.kind == .makerNote })

        facts.make = "Minolta Co., Ltd."
        var otherLayout = B.headerlessNote(nikon: false, bigEndian: false)
        otherLayout.replaceSubrange(0..<2, with: Array("KC".utf8))  // Konica's layout: 0x4B43 entries, or 0x434B
        XCTAssertNil(try listing(B.exifJPEG(facts, note: otherLayout)).pictures.first { $0.kind == .makerNote })

        facts.make = "SAMSUNG"
        let short = try listing(B.exifJPEG(facts, note: Array(B.samsungNote(bigEndian: false).prefix(12))))
        XCTAssertNil(short.pictures.first { $0.kind == .makerNote })
        XCTAssertEqual(short.refused, 0)  // its length, past the note's 12 bytes, was not read
    }

    /// A wrong first byte is repaired for a Minolta preview only, and only
    /// before 0xD8 0xFF 0xDB: the same bytes under Casio's note, or a
    /// Minolta preview whose next marker is no DQT, are no JPEG.
    func testOnlyAMinoltaPreviewsFirstByteIsRepaired() throws {
        var preview = B.tinyJPEG(width: 40, height: 30)
        preview.insert(contentsOf: B.segment(0xDB, Array(repeating: 1, count: 65)), at: 2)
        preview[0] = 0
        var noDQT = B.tinyJPEG(width: 40, height: 30)
        noDQT[0] = 0
        var facts = B.ExifFacts()
        facts.make = "CASIO"
        let casio = try XCTUnwrap(try listing(B.exifJPEG(facts, note: B.casioNote(bigEndian: false, preview: preview))).pictures.first { $0.kind == .makerNote })
        XCTAssertEqual(casio.flags, Int32(SHIM_EP_NOT_JPEG))
        facts.make = "Minolta Co., Ltd."
        let minolta = try XCTUnwrap(try listing(B.exifJPEG(facts, note: B.headerlessNote(nikon: false, bigEndian: false, preview: noDQT))).pictures.first { $0.kind == .makerNote })
        XCTAssertEqual(minolta.flags, Int32(SHIM_EP_NOT_JPEG))
    }

    /// Sony Ericsson notes that name their preview outside the file, past
    /// the 32-bit end, or over the Exif thumbnail, and one whose TIFF header
    /// has no byte order: nothing outside the file is listed, the overlap
    /// is flagged, the note without a byte order is not read.
    func testSonyEricssonNoteOffsetsOutsideTheFileOrOverlapping() throws {
        var facts = B.ExifFacts()
        facts.make = "Sony Ericsson"
        for (start, length) in [(UInt32(0x0100_0000), UInt32(35)), (0xFFFF_FFF0, 0x100), (64, 0xFFFF_FFFF)] {
            let result = try listing(B.exifJPEG(facts, note: B.semcNote(start: start, length: length)))
            XCTAssertNil(result.pictures.first { $0.kind == .makerNote }, "\(start) +\(length)")
            XCTAssertEqual(result.refused, 1, "\(start) +\(length)")
        }
        // The note's header is 12 + 1536 into the TIFF structure; the
        // thumbnail at 3072: 1524 past the note's header.
        let overThumbnail = try listing(B.exifJPEG(facts, note: B.semcNote(start: UInt32(B.thumbnailOffset - B.makerNoteOffset - 12), length: 20)))
        let preview = try XCTUnwrap(overThumbnail.pictures.first { $0.kind == .makerNote })
        XCTAssertEqual(preview.range.lowerBound, B.tiffStart + B.thumbnailOffset)
        XCTAssertTrue(preview.has(Int32(SHIM_EP_OVERLAPS)))
        XCTAssertTrue(try XCTUnwrap(overThumbnail.pictures.first { $0.kind == .exifThumbnail }).has(Int32(SHIM_EP_OVERLAPS)))

        var unordered = B.semcNote()  // big-endian throughout, but its header's "MM" made "XX"
        unordered.replaceSubrange(12..<14, with: Array("XX".utf8))
        let noOrder = try listing(B.exifJPEG(facts, note: unordered))
        XCTAssertNil(noOrder.pictures.first { $0.kind == .makerNote })
        XCTAssertEqual(noOrder.refused, 0)
    }

    /// A Sony Ericsson note cut short by the end of its APP1 segment (the
    /// file ends there too, a guard page right after): at every length from
    /// its 8-byte signature to the whole note, nothing is read past the
    /// segment and no preview is listed, its bytes being past the file.
    func testSonyEricssonNoteCutByItsSegmentsEnd() throws {
        var facts = B.ExifFacts()
        facts.make = "Sony Ericsson"
        let whole = B.exifJPEG(facts, note: B.semcNote())
        let note = B.tiffStart + B.makerNoteOffset
        for kept in 8..<B.semcNote().count {
            var bytes = Array(whole[..<(note + kept)])
            let app1 = bytes.count - 4  // the APP1 (marker at 2) now ends with the bytes
            bytes[4] = UInt8(app1 >> 8)
            bytes[5] = UInt8(app1 & 0xFF)
            let result = try listing(bytes)
            XCTAssertNil(result.pictures.first { $0.kind == .makerNote }, "\(kept)")
            for p in result.pictures { XCTAssertLessThanOrEqual(p.range.upperBound, bytes.count, "\(kept)") }
        }
    }

    /// A picture whose bytes are no JPEG, one cut before its EOI, one whose
    /// frame is not reached within it, one padded with zeros after its EOI,
    /// one with 6 bytes after its EOI (as Minolta's DiMAGE A1 writes its
    /// preview), and one with 9: more than a camera's trailer.
    func testPreviewsThatAreNotJPEGsOrAreTruncated() throws {
        let notJPEG = Array("this is not a JPEG at all, only text".utf8)
        let truncated = Array(preview.dropLast(2))
        let noFrame: [UInt8] = [0xFF, 0xD8] + B.segment(0xE0, Array(repeating: 0, count: 16)) + [0xFF, 0xD9]
        let padded = preview + Array(repeating: 0, count: 16)
        let trailer = preview + [0x4B, 0x9E, 0xFF, 0xFF, 0xFF, 0xFF]
        let longTrailer = preview + Array(repeating: 0xFF, count: 9)
        let pictures = [notJPEG, truncated, noFrame, padded, trailer, longTrailer]
        let bytes = B.mpfJPEG(pictures: pictures) { offsets in
            zip(pictures, offsets).map { B.MPEntry(type: 0x010001, length: UInt32($0.count), offset: $1) }
        }
        let result = try listing(bytes)
        XCTAssertEqual(result.pictures.count, 6)
        XCTAssertTrue(result.pictures[0].has(Int32(SHIM_EP_NOT_JPEG)))
        XCTAssertTrue(result.pictures[1].has(Int32(SHIM_EP_NO_EOI)))
        XCTAssertEqual([result.pictures[1].width, result.pictures[1].height], [32, 24])
        XCTAssertTrue(result.pictures[2].has(Int32(SHIM_EP_NOT_JPEG)))
        XCTAssertEqual(result.pictures[3].flags, 0)
        XCTAssertEqual(result.pictures[4].flags, 0)
        XCTAssertEqual(result.pictures[5].flags, Int32(SHIM_EP_NO_EOI))
    }

    /// IFD0's chain back to itself, a SubIFD naming IFD0, IFD1's chain back
    /// to IFD0: each directory is read once, and the listing ends there
    /// (not at the cap on directories visited).
    func testTIFFDirectoriesThatLoop() throws {
        for (next, sub, next1) in [(UInt32(8), UInt32(256), UInt32(0)), (1536, 8, 0), (1536, 256, 8)] {
            let result = try listing(EmbeddedRawBytes.raw(bigEndian: false, ifd0Next: next, subIFD: sub, ifd1Next: next1), tiff: true)
            XCTAssertFalse(result.pictures.isEmpty)
            XCTAssertLessThanOrEqual(result.pictures.count, 4)
            XCTAssertFalse(result.capped)
            XCTAssertEqual(result.refused, 0)
        }
    }

    /// Every prefix of each crafted structure, read as the header of a file
    /// of the whole's size: nothing read past the bytes given (guard page),
    /// nothing listed outside the file.
    func testEveryCutOfCraftedStructures() throws {
        var sonyEricsson = B.ExifFacts()
        sonyEricsson.make = "Sony Ericsson"
        var coolpix = B.ExifFacts(), minolta = B.ExifFacts(), casio = B.ExifFacts(), samsung = B.ExifFacts()
        coolpix.make = "NIKON"
        minolta.make = "Minolta Co., Ltd."
        casio.make = "CASIO"
        samsung.make = "SAMSUNG"
        let files: [([UInt8], Bool)] = [
            (B.exifJPEG(note: B.nikonNote()), false),
            (B.exifJPEG(bigEndian: true, note: B.nikonNote()), false),
            (B.exifJPEG(sonyEricsson, note: B.semcNote()), false),
            (B.exifJPEG(coolpix, note: B.headerlessNote(nikon: true, bigEndian: false)), false),
            (B.exifJPEG(minolta, bigEndian: true, note: B.headerlessNote(nikon: false, bigEndian: true)), false),
            (B.exifJPEG(casio, bigEndian: true, note: B.casioNote(bigEndian: true)), false),
            (B.exifJPEG(samsung, note: B.samsungNote(bigEndian: false)), false),
            (B.mpfJPEG(pictures: [preview, preview]) { $0.map { B.MPEntry(type: 0x010002, length: 35, offset: $0) } }, false),
            (EmbeddedRawBytes.raw(bigEndian: false), true),
            (EmbeddedRawBytes.raw(bigEndian: true), true),
        ]
        for (bytes, tiff) in files {
            for cut in 0..<bytes.count {
                guard let result = EmbeddedPicturesTests.listing(Array(bytes[..<cut]), fileSize: bytes.count, tiff: tiff) else { continue }
                for p in result.pictures { XCTAssertLessThanOrEqual(p.range.upperBound, bytes.count) }
            }
        }
    }
}
