import CVipsShim
import XCTest
@testable import ThumbsKit

/// Hostile files for the embedded-picture parser (issue 35, §4): offsets
/// and lengths outside the file or overlapping, an MPF index that loops or
/// names 10,000 images, a maker note (Nikon's, Sony Ericsson's) that claims
/// another camera's, a preview that is not a JPEG or is truncated, TIFF
/// directories that loop.
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
        var facts = B.ExifFacts()
        for (make, read) in [("Canon", false), ("SONY", false), ("", false), ("NIKON CORPORATION", true), ("NIKON", true)] {
            facts.make = make
            let result = try listing(B.exifJPEG(facts, note: B.nikonNote()))
            XCTAssertEqual(result.pictures.contains { $0.kind == .makerNote }, read, make)
        }
    }

    /// A Sony Ericsson note is read under a "Sony Ericsson" Make only: not
    /// under Sony's own cameras', another maker's, or none.
    func testSonyEricssonNoteUnderAnotherMakeIsNotTrusted() throws {
        var facts = B.ExifFacts()
        for (make, read) in [("SONY", false), ("Sony", false), ("Canon", false), ("", false), ("Sony Ericsson", true)] {
            facts.make = make
            let result = try listing(B.exifJPEG(facts, note: B.semcNote()))
            XCTAssertEqual(result.pictures.contains { $0.kind == .makerNote }, read, make)
        }
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
    /// frame is not reached within it, one padded with zeros after its EOI.
    func testPreviewsThatAreNotJPEGsOrAreTruncated() throws {
        let notJPEG = Array("this is not a JPEG at all, only text".utf8)
        let truncated = Array(preview.dropLast(2))
        let noFrame: [UInt8] = [0xFF, 0xD8] + B.segment(0xE0, Array(repeating: 0, count: 16)) + [0xFF, 0xD9]
        let padded = preview + Array(repeating: 0, count: 16)
        let pictures = [notJPEG, truncated, noFrame, padded]
        let bytes = B.mpfJPEG(pictures: pictures) { offsets in
            zip(pictures, offsets).map { B.MPEntry(type: 0x010001, length: UInt32($0.count), offset: $1) }
        }
        let result = try listing(bytes)
        XCTAssertEqual(result.pictures.count, 4)
        XCTAssertTrue(result.pictures[0].has(Int32(SHIM_EP_NOT_JPEG)))
        XCTAssertTrue(result.pictures[1].has(Int32(SHIM_EP_NO_EOI)))
        XCTAssertEqual([result.pictures[1].width, result.pictures[1].height], [32, 24])
        XCTAssertTrue(result.pictures[2].has(Int32(SHIM_EP_NOT_JPEG)))
        XCTAssertEqual(result.pictures[3].flags, 0)
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
        let files: [([UInt8], Bool)] = [
            (B.exifJPEG(note: B.nikonNote()), false),
            (B.exifJPEG(bigEndian: true, note: B.nikonNote()), false),
            (B.exifJPEG(sonyEricsson, note: B.semcNote()), false),
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
