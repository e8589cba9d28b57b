import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Issue 14, "messages a person can act on": a format libvips reads only
/// through a loader it marks untrusted is named, with the option that
/// enables it, and recorded as `unsupported`; item messages stay short; an
/// unreadable previous manifest is announced once.
final class MessageTests: XCTestCase {
    func testFormatNamesFromTheFirstBytes() {
        func name(_ bytes: [UInt8]) -> String? {
            bytes.withUnsafeBytes { LoaderErrors.formatName(of: $0) }
        }
        XCTAssertEqual(name(TestImages.bmp(width: 2, height: 2)), "BMP")
        XCTAssertEqual(name([0, 0, 1, 0, 1, 0, 16, 16, 0, 0]), "ICO (Windows icon)")
        XCTAssertEqual(name([0, 0, 2, 0, 1, 0, 16, 16, 0, 0]), "CUR (Windows cursor)")
        XCTAssertEqual(name(Array("P5\n4 4\n255\n".utf8) + [UInt8](repeating: 7, count: 16)), "PGM (Netpbm)")
        XCTAssertEqual(name(Array("P2\n# comment\n".utf8)), "PGM (Netpbm)")
        XCTAssertEqual(name([0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]), "JPEG 2000")
        XCTAssertEqual(name([0xFF, 0x4F, 0xFF, 0x51, 0, 0x2F]), "JPEG 2000")
        XCTAssertEqual(name(Array("8BPS".utf8) + [0, 1]), "PSD (Photoshop)")
        XCTAssertEqual(name(Array("%PDF-1.7\n".utf8)), "PDF")
        XCTAssertEqual(name(Array("gimp xcf v011".utf8)), "XCF (GIMP)")
        XCTAssertNil(name(Array("plain text".utf8)))
        let error = [UInt8](TestImages.bmp(width: 2, height: 2)).withUnsafeBytes {
            LoaderErrors.headerFailure(loader: "magickload_buffer", format: "magick", detail: "magickload_buffer: operation is blocked", bytes: $0)
        }
        XCTAssertEqual(error.code, .unsupported)
        XCTAssertEqual(error.message, "BMP image: libvips reads BMP only through ImageMagick (magickload), a loader it marks untrusted; run with --allow-untrusted to enable it")
        let pgm = Array("P5\n4 4\n255\n".utf8).withUnsafeBytes {
            LoaderErrors.headerFailure(loader: "magickload_buffer", format: "magick", detail: "magickload_buffer: operation is blocked", bytes: $0)
        }
        XCTAssertEqual(pgm.message, "PGM image (Netpbm): libvips reads PGM only through ImageMagick (magickload), a loader it marks untrusted; run with --allow-untrusted to enable it")
        let jp2 = [UInt8]([0xFF, 0x4F, 0xFF, 0x51, 0, 0x2F]).withUnsafeBytes {
            LoaderErrors.headerFailure(loader: "jp2kload_buffer", format: "jp2k", detail: "jp2kload_buffer: operation is blocked", bytes: $0)
        }
        XCTAssertEqual(jp2, .unsupported("JPEG 2000 image: libvips reads JPEG 2000 only through jp2kload, a loader it marks untrusted; run with --allow-untrusted to enable it"))
        let unknown = [UInt8]([9, 9, 9, 9]).withUnsafeBytes {
            LoaderErrors.headerFailure(loader: "matrixload_source", format: "matrix", detail: "matrixload_source: operation is blocked", bytes: $0)
        }
        XCTAssertEqual(unknown, .unsupported("libvips reads this file only through matrixload, a loader it marks untrusted; run with --allow-untrusted to enable it"))
        let other = [UInt8]([1, 2, 3]).withUnsafeBytes {
            LoaderErrors.headerFailure(loader: "jpegload_buffer", format: "jpeg", detail: "VipsJpeg: Premature end of input file", bytes: $0)
        }
        XCTAssertEqual(other, .decode("cannot read the jpeg header: VipsJpeg: Premature end of input file"))
    }

    func testLongMessagesAreFoldedAndCut() {
        // What libtiff said about one damaged file: one line per strip.
        var lines = ["tiff2vips: TIFFReadDirectory: unexpected end of directory"]
        for strip in 0..<400 { lines.append("TIFFFillStrip: Read error on strip \(strip); got 0 bytes, expected 8192") }
        lines += Array(repeating: "tiff2vips: out of order read", count: 30)
        lines.append("VipsImage: load failed")
        let folded = MessageFolding.fold(lines.joined(separator: "\n"))
        XCTAssertLessThanOrEqual(folded.count, MessageFolding.limit)
        XCTAssertTrue(folded.hasPrefix("tiff2vips: TIFFReadDirectory: unexpected end of directory; "), folded)
        XCTAssertTrue(folded.contains("TIFFFillStrip: Read error on strip 0 (×400 alike)"), folded)
        XCTAssertTrue(folded.contains("tiff2vips: out of order read (×30)"), folded)
        XCTAssertTrue(folded.contains("VipsImage: load failed"), folded)
        XCTAssertFalse(folded.contains("\n"))

        // Too many different lines: the first ones stay, the count of the rest is given.
        let many = (0..<50).map { "problem number \($0) of a kind \(String(repeating: "z", count: $0))" }
        let cut = MessageFolding.fold(many.joined(separator: "; "))
        XCTAssertLessThanOrEqual(cut.count, MessageFolding.limit)
        XCTAssertTrue(cut.hasPrefix("problem number 0 of a kind"), cut)
        XCTAssertTrue(cut.range(of: #"… \d+ more messages left out$"#, options: .regularExpression) != nil, cut)

        // One enormous line is cut, and says so.
        let huge = MessageFolding.fold(String(repeating: "x", count: 10_000))
        XCTAssertEqual(huge.count, MessageFolding.limit)
        XCTAssertTrue(huge.hasSuffix("…"))

        // Short messages are left exactly as they are.
        XCTAssertEqual(MessageFolding.fold("cannot open /x: No such file or directory"), "cannot open /x: No such file or directory")
    }

    func testItemErrorsAreCappedWhereverTheyAreMade() {
        let long = (0..<1000).map { "warning \($0)" }.joined(separator: "\n")
        for error in [ItemError.decode(long), ItemError.io(long), ItemError(.unsupported, long)] {
            XCTAssertLessThanOrEqual(error.message.count, MessageFolding.limit)
            XCTAssertTrue(error.message.hasPrefix("warning 0"), error.message)
            XCTAssertEqual(ErrorRecord(error).message, error.message)
        }
        var grown = ItemError.download("HTTP 500")
        grown.message += "; " + long
        XCTAssertLessThanOrEqual(grown.message.count, MessageFolding.limit)
        XCTAssertTrue(grown.message.hasPrefix("HTTP 500"), grown.message)
    }

    func testPreviousRunKnowsWhyTheManifestWasUnusable() throws {
        let root = TestImages.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let settings = OutputSettings()
        let missing = PreviousRun.load(manifestPath: root + "/manifest.json", journalPath: root + "/journal", settings: settings)
        XCTAssertNil(missing.unreadableManifest, "no manifest is no problem")
        try Data("not json".utf8).write(to: URL(fileURLWithPath: root + "/manifest.json"))
        let garbage = PreviousRun.load(manifestPath: root + "/manifest.json", journalPath: root + "/journal", settings: settings)
        XCTAssertNotNil(garbage.unreadableManifest)
        XCTAssertEqual(garbage.count, 0)
        try FileManager.default.removeItem(atPath: root + "/manifest.json")
        try FileManager.default.createDirectory(atPath: root + "/manifest.json", withIntermediateDirectories: true)
        let folder = PreviousRun.load(manifestPath: root + "/manifest.json", journalPath: root + "/journal", settings: settings)
        XCTAssertNotNil(folder.unreadableManifest, "a folder where the manifest should be")
    }
}
