import CThumbsTestShim
import CVipsShim
import Foundation
import XCTest
@testable import ThumbsKit

/// The embedded-picture parser (embedded_pictures.c) on real cameras'
/// files (Tests/Fixtures/previews: where each picture lies is what
/// `exiftool -PreviewImageStart -PreviewImageLength -MPImageStart
/// -ThumbnailOffset` reports for the same file), and the facts that say a
/// photo was edited. Every parse runs on bytes that end where a PROT_NONE
/// page begins (`test_embedded_pictures_guarded`).
final class EmbeddedPicturesTests: XCTestCase {
    typealias B = EmbeddedPictureBytes

    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/previews")

    static func fixture(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: fixtures.appendingPathComponent(name)))
    }

    /// The listing of `bytes` (a JPEG, or a TIFF with `tiff`), the file
    /// `fileSize` bytes long (default: the bytes given).
    static func listing(
        _ bytes: [UInt8], fileSize: Int? = nil, tiff: Bool = false, file: StaticString = #filePath, line: UInt = #line
    ) -> EmbeddedPictureListing? {
        var raw = shim_embedded_listing()
        let status = bytes.withUnsafeBufferPointer {
            test_embedded_pictures_guarded($0.baseAddress, $0.count, UInt64(fileSize ?? bytes.count), tiff ? 1 : 0, &raw)
        }
        XCTAssertNotEqual(status, -2, "could not map the guard page", file: file, line: line)
        return status == 0 ? EmbeddedPictureListing(raw) : nil
    }

    private func picture(_ listing: EmbeddedPictureListing?, _ kind: EmbeddedPictureListing.Picture.Kind) -> EmbeddedPictureListing.Picture? {
        listing?.pictures.first { $0.kind == kind }
    }

    /// The listing of fixture `name` checked as its camera wrote it: `make`,
    /// the photo's `size`, nothing that says edited (checked when
    /// `unedited`), two pictures only: the maker note's baseline (SOF0)
    /// three-component preview from `maker` at `preview`, `previewSize` and
    /// probed (no flag), and the Exif thumbnail at `thumbnail`. Returns the
    /// listing, for what a camera adds.
    @discardableResult
    private func assertCameraMakerNotePreview(
        _ name: String, make: String, size: [Int], preview range: Range<Int>, previewSize: [Int], maker: Int32,
        thumbnail: Range<Int>, unedited: Bool = true, file: StaticString = #filePath, line: UInt = #line
    ) throws -> EmbeddedPictureListing {
        let listing = try XCTUnwrap(Self.listing(try Self.fixture(name), file: file, line: line), file: file, line: line)
        XCTAssertEqual(listing.make, make, file: file, line: line)
        XCTAssertEqual([listing.width, listing.height], size, file: file, line: line)
        if unedited { XCTAssertEqual(listing.edits, 0, file: file, line: line) }
        let preview = try XCTUnwrap(picture(listing, .makerNote), file: file, line: line)
        XCTAssertEqual(preview.range, range, file: file, line: line)
        XCTAssertEqual([preview.width, preview.height, preview.frameMarker, preview.components], previewSize + [0xC0, 3],
                       file: file, line: line)
        XCTAssertEqual(preview.maker, maker, file: file, line: line)
        XCTAssertEqual(preview.flags, 0, file: file, line: line)
        XCTAssertEqual(try XCTUnwrap(picture(listing, .exifThumbnail), file: file, line: line).range, thumbnail, file: file, line: line)
        XCTAssertEqual(listing.pictures.count, 2, file: file, line: line)
        return listing
    }

    /// The listing of fixture `name`, the head of a file of `fileSize` bytes
    /// whose maker note names its preview past that head, checked as its
    /// camera wrote it: `make`, the photo's `size`, nothing that says
    /// edited, the preview from `maker` at `preview`, listed unprobed, the
    /// Exif thumbnail at `thumbnail`, nothing refused. Returns the head.
    @discardableResult
    private func assertUnprobedMakerNotePreview(
        _ name: String, fileSize: Int, make: String, size: [Int], preview range: Range<Int>, maker: Int32,
        thumbnail: Range<Int>, file: StaticString = #filePath, line: UInt = #line
    ) throws -> [UInt8] {
        let head = try Self.fixture(name)
        let listing = try XCTUnwrap(Self.listing(head, fileSize: fileSize, file: file, line: line), file: file, line: line)
        XCTAssertEqual(listing.make, make, file: file, line: line)
        XCTAssertEqual([listing.width, listing.height], size, file: file, line: line)
        XCTAssertEqual(listing.edits, 0, file: file, line: line)
        let preview = try XCTUnwrap(picture(listing, .makerNote), file: file, line: line)
        XCTAssertEqual(preview.range, range, file: file, line: line)
        XCTAssertEqual(preview.maker, maker, file: file, line: line)
        XCTAssertEqual(preview.flags, Int32(SHIM_EP_UNPROBED), file: file, line: line)
        XCTAssertEqual(try XCTUnwrap(picture(listing, .exifThumbnail), file: file, line: line).range, thumbnail, file: file, line: line)
        XCTAssertEqual(listing.refused, 0, file: file, line: line)
        return head
    }

    // MARK: - Real cameras

    /// A Nikon D40's JPEG (its segments up to the scan): the maker note's
    /// 570 x 375 preview at 7754 (+28320) and the 160 x 120 Exif thumbnail
    /// at 36280 (+6833), as exiftool finds them; turned (orientation 6),
    /// written by the camera (nothing says edited).
    func testNikonMakerNotePreview() throws {
        let listing = try assertCameraMakerNotePreview(
            "nikon-d40-head.jpg", make: "NIKON CORPORATION", size: [3008, 2000], preview: 7754..<7754 + 28320,
            previewSize: [570, 375], maker: Int32(SHIM_EP_MAKER_NIKON), thumbnail: 36280..<36280 + 6833
        )
        XCTAssertTrue(listing.complete)
        XCTAssertEqual(listing.orientation, 6)
        let thumbnail = try XCTUnwrap(picture(listing, .exifThumbnail))
        XCTAssertEqual([thumbnail.width, thumbnail.height], [160, 120])
    }

    /// A Pentax *ist D's: the maker note's 640 x 480 preview at 6248
    /// (+40264), a 4:3 picture of a 3:2 photo (the camera letterboxes it).
    func testPentaxMakerNotePreview() throws {
        let listing = try XCTUnwrap(Self.listing(try Self.fixture("pentax-istd-head.jpg")))
        XCTAssertEqual([listing.width, listing.height], [1536, 1024])
        let preview = try XCTUnwrap(picture(listing, .makerNote))
        XCTAssertEqual(preview.range, 6248..<6248 + 40264)
        XCTAssertEqual([preview.width, preview.height], [640, 480])
        XCTAssertEqual(preview.maker, Int32(SHIM_EP_MAKER_PENTAX))
        XCTAssertEqual(listing.edits, 0)
    }

    /// A Sony Ericsson C905c's segments: its "SEMC MS" maker note's 320 x
    /// 240 preview at 780 (+11909) and the 160 x 120 Exif thumbnail at 12714
    /// (+5031), as exiftool finds them (PreviewImageStart, ThumbnailOffset).
    func testSonyEricssonMakerNotePreview() throws {
        let listing = try assertCameraMakerNotePreview(
            "sony-ericsson-c905c-head.jpg", make: "Sony Ericsson", size: [3264, 2448], preview: 780..<780 + 11909,
            previewSize: [320, 240], maker: Int32(SHIM_EP_MAKER_SONY_ERICSSON), thumbnail: 12714..<12714 + 5031,
            unedited: false
        )
        XCTAssertTrue(listing.complete)
    }

    /// A Sony Ericsson U10i's: its maker note names a "preview" at 804
    /// (+51856), as exiftool finds it, that is an ETC1 texture ("PKM 10"),
    /// not a JPEG (exiftool: "PreviewImage is not a valid JPEG image").
    func testSonyEricssonMakerNotePreviewThatIsNoJPEG() throws {
        let listing = try XCTUnwrap(Self.listing(try Self.fixture("sony-ericsson-u10i-head.jpg")))
        let preview = try XCTUnwrap(picture(listing, .makerNote))
        XCTAssertEqual(preview.range, 804..<804 + 51856)
        XCTAssertEqual(preview.maker, Int32(SHIM_EP_MAKER_SONY_ERICSSON))
        XCTAssertTrue(preview.has(Int32(SHIM_EP_NOT_JPEG)))
        XCTAssertEqual([preview.width, preview.height], [0, 0])
        let thumbnail = try XCTUnwrap(picture(listing, .exifThumbnail))
        XCTAssertEqual(thumbnail.range, 52684..<52684 + 7053)
    }

    /// A Minolta DiMAGE A1's segments, from a file of 2,305,884 bytes: its
    /// headerless maker note names a preview at 2246067 (+59817), after the
    /// photo's EOI (exiftool: PreviewImageStart 0x0088, PreviewImageLength
    /// 0x0089, from the Exif header), so not yet probed. Told the file ends
    /// with the bytes given, the preview is outside it: refused.
    func testMinoltaMakerNotePreview() throws {
        let head = try assertUnprobedMakerNotePreview(
            "minolta-dimage-a1-head.jpg", fileSize: 2_305_884, make: "Minolta Co., Ltd.", size: [2560, 1920],
            preview: 2_246_067..<2_246_067 + 59817, maker: Int32(SHIM_EP_MAKER_MINOLTA), thumbnail: 30210..<30210 + 3725
        )
        let cut = try XCTUnwrap(Self.listing(head))
        XCTAssertNil(picture(cut, .makerNote))
        XCTAssertEqual(cut.refused, 1)
    }

    /// A Casio EX-Z3's segments: its type 2 ("QVC") maker note's 320 x 240
    /// PreviewImage (0x2000) at 1272 (+28348) and the 160 x 120 Exif
    /// thumbnail at 29744 (+7942), as exiftool finds them.
    func testCasioMakerNotePreview() throws {
        let listing = try assertCameraMakerNotePreview(
            "casio-ex-z3-head.jpg", make: "CASIO COMPUTER CO.,LTD", size: [2048, 1536], preview: 1272..<1272 + 28348,
            previewSize: [320, 240], maker: Int32(SHIM_EP_MAKER_CASIO), thumbnail: 29744..<29744 + 7942
        )
        XCTAssertEqual(listing.refused, 0)
    }

    /// A Nikon E995's segments: its headerless maker note (exiftool's
    /// MakerNoteNikon3) names a PreviewIFD whose 320 x 240 preview lies at
    /// 7583 (+19286), from the Exif header; the Exif thumbnail at 1506 (+6077).
    func testNikonHeaderlessMakerNotePreview() throws {
        try assertCameraMakerNotePreview(
            "nikon-e995-head.jpg", make: "NIKON", size: [2048, 1536], preview: 7583..<7583 + 19286,
            previewSize: [320, 240], maker: Int32(SHIM_EP_MAKER_NIKON), thumbnail: 1506..<1506 + 6077
        )
    }

    /// A Samsung S730's segments, from a file of 3,412,531 bytes: its
    /// "STMN0100" maker note names a preview at 3361053 (+51478) from the
    /// file's first byte, after the photo's EOI (exiftool); not yet probed.
    func testSamsungMakerNotePreview() throws {
        try assertUnprobedMakerNotePreview(
            "samsung-s730-head.jpg", fileSize: 3_412_531, make: "Samsung Techwin", size: [3072, 2304],
            preview: 3_361_053..<3_361_053 + 51478, maker: Int32(SHIM_EP_MAKER_SAMSUNG), thumbnail: 31058..<31058 + 3689
        )
    }

    /// A Panasonic DMC-LX7's segments, from a file of 4,148,224 bytes: its
    /// MPF names a full-HD large thumbnail (type 0x010002) at 3428864
    /// (+718934), past the bytes given, so not yet probed. Told the file
    /// ends with the bytes given, the same entry is outside it: refused.
    func testPanasonicMPFLargeThumbnailFromTheHeaderAlone() throws {
        let head = try Self.fixture("panasonic-lx7-head.jpg")
        let listing = try XCTUnwrap(Self.listing(head, fileSize: 4_148_224))
        let preview = try XCTUnwrap(picture(listing, .mpf))
        XCTAssertEqual(preview.range, 3_428_864..<3_428_864 + 718_934)
        XCTAssertEqual(preview.mpfType, 0x010002)
        XCTAssertTrue(preview.has(Int32(SHIM_EP_UNPROBED)))
        XCTAssertEqual(listing.refused, 0)

        let cut = try XCTUnwrap(Self.listing(head))
        XCTAssertNil(picture(cut, .mpf))
        XCTAssertEqual(cut.refused, 1)
    }

    /// MPF images that are not previews keep their type for the chooser to
    /// refuse: an iPhone 14 Pro Max's HDR gain map (type 0, one grey
    /// component, 349 x 434), a Samsung NX1000's stereo view (0x020002).
    /// Both from Pillow's test images.
    func testMPFImagesThatAreNotPreviewsKeepTheirType() throws {
        let gainMap = try XCTUnwrap(picture(Self.listing(try Self.fixture("iphone-gain-map.mpo")), .mpf))
        XCTAssertEqual(gainMap.mpfType, 0)
        XCTAssertEqual([gainMap.width, gainMap.height, gainMap.components], [349, 434, 1])
        let stereo = try XCTUnwrap(picture(Self.listing(try Self.fixture("samsung-nx1000-disparity.mpo")), .mpf))
        XCTAssertEqual(stereo.mpfType, 0x020002)
    }

    /// Every prefix of each real header is read within its bytes (a guard
    /// page follows), and whatever it lists lies inside the file.
    func testEveryCutOfARealHeaderStaysInsideItsBytes() throws {
        for name in [
            "nikon-d40-head.jpg", "pentax-istd-head.jpg", "panasonic-lx7-head.jpg", "iphone-gain-map.mpo",
            "sony-ericsson-c905c-head.jpg", "sony-ericsson-u10i-head.jpg", "minolta-dimage-a1-head.jpg",
            "casio-ex-z3-head.jpg", "nikon-e995-head.jpg", "samsung-s730-head.jpg",
        ] {
            let bytes = try Self.fixture(name)
            for cut in stride(from: 0, to: bytes.count, by: cutStep(bytes.count)) {
                guard let listing = Self.listing(Array(bytes[..<cut]), fileSize: bytes.count) else { continue }
                for p in listing.pictures {
                    XCTAssertLessThanOrEqual(p.range.upperBound, bytes.count, "\(name) cut at \(cut)")
                }
            }
        }
    }

    private func cutStep(_ count: Int) -> Int { max(1, count / 3000) }

    // MARK: - What says a photo was edited

    /// The frame's size against PixelXDimension/PixelYDimension: the same
    /// size (the camera's), another (a jpegtran crop or rotation keeps the
    /// Exif as it was), or none recorded (nothing to check against).
    func testFrameSizeAgainstTheRecordedSize() throws {
        let camera = try XCTUnwrap(Self.listing(B.exifJPEG(width: 64, height: 48)))
        XCTAssertEqual(camera.edits, 0)
        XCTAssertEqual([camera.pixelX, camera.pixelY], [64, 48])

        let cropped = try XCTUnwrap(Self.listing(B.exifJPEG(width: 48, height: 48)))
        XCTAssertEqual(cropped.edits, Int32(SHIM_EP_EDIT_FRAME_SIZE))
        let turned = try XCTUnwrap(Self.listing(B.exifJPEG(width: 48, height: 64)))
        XCTAssertEqual(turned.edits, Int32(SHIM_EP_EDIT_FRAME_SIZE))

        var facts = B.ExifFacts()
        facts.pixel = nil
        let unrecorded = try XCTUnwrap(Self.listing(B.exifJPEG(facts)))
        XCTAssertEqual(unrecorded.edits, Int32(SHIM_EP_EDIT_SIZE_UNRECORDED))
    }

    /// Software as real cameras write it (from the fixtures' and public
    /// sample files' Exif) reads as firmware; editors' and unknown
    /// programs' names do not.
    func testSoftwareNamesFirmwareOrAnEditor() throws {
        let firmware = [
            "Ver.1.00", "Version 1.3", "1.01+R", "E5000v1.6", "*ist D      Ver 1.10", "29-1102", "703121",
            "1.01.0.000000000", "Digital Camera DX-10 Ver1.00", "K10D Ver 1.30", "HDR+ 1.0.570503588zd", "10.0.2",
            "HD6.01.01.51.00", "Firmware Version 1.0.0", "NIKON D90 Ver.1.00",
            // Samsung phones' build codes (S7 Edge, Note 3, Galaxy SII, SC-02C)
            "G935LKLU1APL1", "N900AUCUCNC2", "I9100XWLPT", "SC02COMMP7",
        ]
        let editors = [
            "GIMP 2.4.5", "Adobe Photoshop 7.0", "Nikon Transfer 1.1 W", "Windows Photo Editor 10.0.10011.16384",
            "Microsoft Windows Photo Gallery 6.0.6001.18000", "PMB Service Uploader", "Adobe Photoshop Elements 7.0",
            "OLYMPUS CAMEDIA Master", "Adobe Photoshop Lightroom Classic 12.0 (Windows)", "darktable 4.6.1",
            "Some Program", "PICASA", "GIMP2", "Photos 1.0",
        ]
        for (names, edited) in [(firmware, false), (editors, true)] {
            for name in names {
                var facts = B.ExifFacts()
                facts.software = name
                let listing = try XCTUnwrap(Self.listing(B.exifJPEG(facts)))
                XCTAssertEqual(listing.software, name)
                XCTAssertEqual(listing.edits & Int32(SHIM_EP_EDIT_SOFTWARE) != 0, edited, name)
            }
        }
    }

    /// ModifyDate against DateTimeOriginal: equal, later, or one absent
    /// (nothing said).
    func testModifyDateAgainstTheOriginal() throws {
        var facts = B.ExifFacts()
        facts.modifyDate = "2024:02:03 10:00:00"
        XCTAssertEqual(try XCTUnwrap(Self.listing(B.exifJPEG(facts))).edits, Int32(SHIM_EP_EDIT_MODIFY_DATE))
        facts.modifyDate = nil
        XCTAssertEqual(try XCTUnwrap(Self.listing(B.exifJPEG(facts))).edits, 0)
    }

    /// XMP's CreatorTool (as an attribute or an element) naming an editor,
    /// or naming the camera's firmware; xmpMM:History.
    func testXMPCreatorToolAndHistory() throws {
        func xmp(_ body: String) -> [UInt8] {
            B.segment(0xE1, Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + Array(body.utf8))
        }
        let cases: [(String, Int32, String)] = [
            ("<rdf:Description xmp:CreatorTool=\"Adobe Photoshop CC 2019\"/>", Int32(SHIM_EP_EDIT_XMP_CREATOR_TOOL), "Adobe Photoshop CC 2019"),
            ("<xmp:CreatorTool>GIMP 2.10</xmp:CreatorTool>", Int32(SHIM_EP_EDIT_XMP_CREATOR_TOOL), "GIMP 2.10"),
            ("<rdf:Description xmp:CreatorTool=\"Ver.1.00\"/>", 0, "Ver.1.00"),
            ("<xmpMM:History><rdf:Seq/></xmpMM:History>", Int32(SHIM_EP_EDIT_XMP_HISTORY), ""),
        ]
        for (body, edits, tool) in cases {
            let listing = try XCTUnwrap(Self.listing(B.exifJPEG(extraSegments: xmp(body))))
            XCTAssertEqual(listing.edits, edits, body)
            XCTAssertEqual(listing.creatorTool, tool, body)
        }
    }

    // MARK: - Each maker's layout

    /// The Nikon note's preview, the IFD1 thumbnail, and the main frame, in
    /// both byte orders of the Exif block.
    func testCraftedNikonNoteAndThumbnail() throws {
        for bigEndian in [false, true] {
            let listing = try XCTUnwrap(Self.listing(B.exifJPEG(bigEndian: bigEndian, note: B.nikonNote())))
            let preview = try XCTUnwrap(picture(listing, .makerNote))
            XCTAssertEqual(preview.range.lowerBound, B.nikonPreviewOffset)
            XCTAssertEqual([preview.width, preview.height], [40, 30])
            let thumbnail = try XCTUnwrap(picture(listing, .exifThumbnail))
            XCTAssertEqual(thumbnail.range.lowerBound, B.tiffStart + B.thumbnailOffset)
            XCTAssertEqual([thumbnail.width, thumbnail.height], [16, 12])
        }
    }

    /// The Sony Ericsson note's preview (its offsets from the note's own
    /// TIFF header) in either byte order of the note and of the Exif block.
    func testCraftedSonyEricssonNote() throws {
        var facts = B.ExifFacts()
        facts.make = "Sony Ericsson"
        for (bigEndian, order) in [(false, "MM"), (true, "II"), (false, "II"), (true, "MM")] {
            let listing = try XCTUnwrap(Self.listing(B.exifJPEG(facts, bigEndian: bigEndian, note: B.semcNote(byteOrder: order))))
            let preview = try XCTUnwrap(picture(listing, .makerNote), order)
            XCTAssertEqual(preview.range, B.semcPreviewOffset..<B.semcPreviewOffset + 35, order)
            XCTAssertEqual([preview.width, preview.height], [40, 30], order)
            XCTAssertEqual(preview.maker, Int32(SHIM_EP_MAKER_SONY_ERICSSON))
        }
    }

    /// The headerless notes (Nikon's Coolpix, Minolta's DiMAGE), Casio's
    /// type 2 (by 0x2000, or by 0x0004 and 0x0003) and Samsung's STMN, in
    /// both byte orders of the Exif block; a headerless note in the other
    /// byte order than the Exif block's is read in its own.
    func testCraftedCoolpixMinoltaCasioAndSamsungNotes() throws {
        for bigEndian in [false, true] {
            var facts = B.ExifFacts()
            let cases: [(make: String, note: [UInt8], maker: Int32, offset: Int)] = [
                ("NIKON", B.headerlessNote(nikon: true, bigEndian: bigEndian), Int32(SHIM_EP_MAKER_NIKON), B.notePreviewOffset),
                ("NIKON", B.headerlessNote(nikon: true, bigEndian: !bigEndian), Int32(SHIM_EP_MAKER_NIKON), B.notePreviewOffset),
                ("Minolta Co., Ltd.", B.headerlessNote(nikon: false, bigEndian: bigEndian), Int32(SHIM_EP_MAKER_MINOLTA), B.notePreviewOffset),
                ("KONICA MINOLTA", B.headerlessNote(nikon: false, bigEndian: !bigEndian), Int32(SHIM_EP_MAKER_MINOLTA), B.notePreviewOffset),
                ("CASIO COMPUTER CO.,LTD.", B.casioNote(bigEndian: bigEndian), Int32(SHIM_EP_MAKER_CASIO), B.notePreviewOffset),
                ("CASIO", B.casioNote(bigEndian: bigEndian, imageTag: false), Int32(SHIM_EP_MAKER_CASIO), B.notePreviewOffset),
                ("Samsung Techwin", B.samsungNote(bigEndian: bigEndian), Int32(SHIM_EP_MAKER_SAMSUNG), B.samsungPreviewOffset),
                ("SAMSUNG", B.samsungNote(bigEndian: bigEndian), Int32(SHIM_EP_MAKER_SAMSUNG), B.samsungPreviewOffset),
            ]
            for (make, note, maker, offset) in cases {
                facts.make = make
                let listing = try XCTUnwrap(Self.listing(B.exifJPEG(facts, bigEndian: bigEndian, note: note)))
                let preview = try XCTUnwrap(picture(listing, .makerNote), "\(make) \(bigEndian)")
                XCTAssertEqual(preview.range, offset..<offset + 35, "\(make) \(bigEndian)")
                XCTAssertEqual([preview.width, preview.height], [40, 30], "\(make) \(bigEndian)")
                XCTAssertEqual(preview.maker, maker, "\(make) \(bigEndian)")
                XCTAssertEqual(preview.flags, 0, "\(make) \(bigEndian)")
                XCTAssertEqual(listing.refused, 0, "\(make) \(bigEndian)")
            }
        }
    }

    /// A Minolta preview whose first byte is 0x00 where its SOI's 0xFF
    /// belongs (the DiMAGE A1's and 7Hi's, which exiftool repairs) is
    /// listed with SHIM_EP_SOI_REPAIRED and probed as if the 0xFF were
    /// there; shim_embedded_probe reads it so only when told.
    func testMinoltaPreviewWithAWrongFirstByte() throws {
        var facts = B.ExifFacts()
        facts.make = "Minolta Co., Ltd."
        var preview = B.tinyJPEG(width: 40, height: 30)
        preview.insert(contentsOf: B.segment(0xDB, Array(repeating: 1, count: 65)), at: 2)
        preview[0] = 0
        let listing = try XCTUnwrap(Self.listing(B.exifJPEG(facts, note: B.headerlessNote(nikon: false, bigEndian: false, preview: preview))))
        let listed = try XCTUnwrap(picture(listing, .makerNote))
        XCTAssertEqual(listed.flags, Int32(SHIM_EP_SOI_REPAIRED))
        XCTAssertEqual([listed.width, listed.height], [40, 30])

        var raw = shim_embedded_picture()
        preview.withUnsafeBufferPointer { _ = shim_embedded_probe($0.baseAddress, $0.count, &raw) }
        XCTAssertEqual(raw.flags, Int32(SHIM_EP_NOT_JPEG))
        raw = shim_embedded_picture()
        raw.flags = Int32(SHIM_EP_SOI_REPAIRED)
        preview.withUnsafeBufferPointer { _ = shim_embedded_probe($0.baseAddress, $0.count, &raw) }
        XCTAssertEqual(raw.flags, Int32(SHIM_EP_SOI_REPAIRED))
        XCTAssertEqual([raw.width, raw.height], [40, 30])
    }

    /// A TIFF RAW: IFD0's uncompressed image (its size from its tags), a
    /// SubIFD's JPEG (JpgFromRaw), IFD1's JPEG (PreviewImage), and the
    /// Nikon maker note's preview under the Exif IFD.
    func testTIFFRawPictures() throws {
        for bigEndian in [false, true] {
            let bytes = EmbeddedRawBytes.raw(bigEndian: bigEndian)
            let listing = try XCTUnwrap(Self.listing(bytes, tiff: true))
            let image = try XCTUnwrap(picture(listing, .tiffImage))
            XCTAssertEqual([image.width, image.height, image.compression], [8, 6, 1])
            XCTAssertEqual(image.range, 1024..<1024 + 8 * 6 * 3)
            let full = try XCTUnwrap(picture(listing, .jpgFromRaw))
            XCTAssertEqual([full.width, full.height], [48, 32])
            let preview = try XCTUnwrap(picture(listing, .previewImage))
            XCTAssertEqual([preview.width, preview.height], [24, 16])
            let note = try XCTUnwrap(picture(listing, .makerNote))
            XCTAssertEqual([note.width, note.height], [40, 30])
            XCTAssertEqual(listing.make, "NIKON CORPORATION")
        }
    }
}
