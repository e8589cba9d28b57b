import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// What a source's first bytes say before the rest is read: the format and,
/// for the simple headers, the stored size (checked against what libvips
/// wrote); nothing for content that is not an image, and no crash on any
/// cut or damaged header.
final class SourceHeaderTests: TemporaryFolderTestCase {
    func header(_ path: String) throws -> SourceHeader? {
        try SourceHeader.read(SourceFile(path: path))
    }

    func testFormatsAndSizesMatchWhatWasWritten() throws {
        for (name, options) in [("a.jpg", ""), ("a.png", ""), ("a.webp", ""), ("lossless.webp", "[lossless]"),
                                ("a.tif", ""), ("deflate.tif", "[compression=deflate]"), ("a.gif", "")] {
            let path = TestImages.write(root + "/" + name, width: 321, height: 123, options: options)
            let found = try XCTUnwrap(try header(path), name)
            XCTAssertEqual([found.width, found.height], [321, 123], name)
        }
        XCTAssertEqual(try header(TestImages.write(root + "/b.jpg", width: 9, height: 7))?.format, "jpeg")
        XCTAssertEqual(try header(TestImages.write(root + "/b.png", width: 9, height: 7))?.format, "png")
        let bmp = root + "/a.bmp"
        try Data(TestImages.bmp(width: 60, height: 40)).write(to: URL(fileURLWithPath: bmp))
        XCTAssertEqual(try header(bmp), SourceHeader(format: "bmp", width: 60, height: 40))
        TestImages.writeAnimation(root + "/anim.webp", width: 50, height: 30, frames: 3)
        XCTAssertEqual(try header(root + "/anim.webp"), SourceHeader(format: "webp", width: 50, height: 30))
    }

    /// Exif, ICC and XMP can put a JPEG's frame header past the first 64 KiB:
    /// it is found by following the segments through byte ranges.
    func testAJPEGFrameAfterMoreThanThePrefixIsFound() throws {
        let jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: TestImages.write(root + "/small.jpg", width: 40, height: 30))))
        var padded = Array(jpeg[0..<2])
        for _ in 0..<3 {  // three APP2 segments of 60,000 bytes: 180 KB before the SOF
            padded += [0xFF, 0xE2, UInt8(60_000 >> 8), UInt8(60_000 & 0xFF)] + [UInt8](repeating: 0x41, count: 59_998)
        }
        padded += jpeg[2...]
        XCTAssertGreaterThan(padded.count, SourceFile.prefixLength * 2)
        let path = root + "/padded.jpg"
        try Data(padded).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(try header(path), SourceHeader(format: "jpeg", width: 40, height: 30))
    }

    func testContentThatIsNotAnImageHasNoHeader() throws {
        for (name, bytes) in [("zeros.jpg", [UInt8](repeating: 0, count: 100_000)),
                              ("text.png", Array("hello, not a picture\n".utf8)),
                              ("zip.jpg", [0x50, 0x4B, 0x03, 0x04] + [UInt8](repeating: 7, count: 100))] {
            try Data(bytes).write(to: URL(fileURLWithPath: root + "/" + name))
            XCTAssertNil(try header(root + "/" + name), name)
        }
        XCTAssertEqual(ImageSniffer.describe([UInt8](repeating: 0, count: 65536)), "its first 65536 bytes are all zero")
        XCTAssertEqual(ImageSniffer.describe(Array("hello".utf8)), "the content is text")
        XCTAssertEqual(ImageSniffer.describe([0x50, 0x4B, 0x03, 0x04, 0xFF]), "it is a ZIP archive, it starts 50 4b 03 04")
    }

    /// Every cut of a real header, and a header of random bytes, gives a
    /// format with or without a size: never a crash, never a read out of
    /// bounds (Swift traps on one).
    func testCutAndDamagedHeadersNeverCrash() throws {
        for name in ["c.jpg", "c.png", "c.tif", "c.webp", "c.gif"] {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: TestImages.write(root + "/" + name, width: 20, height: 10))))
            // Every length through the first headers, then every 13th.
            for length in Array(1..<min(bytes.count, 64)) + Array(stride(from: 64, to: min(bytes.count, 700), by: 13)) {
                let path = root + "/cut-" + name
                try Data(bytes.prefix(length)).write(to: URL(fileURLWithPath: path))
                _ = try header(path)
            }
        }
        var seed: UInt64 = 1
        for signature in [[0xFF, 0xD8, 0xFF], [0x49, 0x49, 0x2A, 0x00], [0x4D, 0x4D, 0x00, 0x2A], Array("RIFF\0\0\0\0WEBPVP8X".utf8)] as [[UInt8]] {
            for _ in 0..<30 {
                var bytes = signature
                for _ in 0..<Int(seed % 300) {
                    seed = seed &* 6364136223846793005 &+ 1442695040888963407
                    bytes.append(UInt8(truncatingIfNeeded: seed >> 33))
                }
                let path = root + "/random"
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                _ = try header(path)
            }
        }
    }

    // MARK: - Limits

    func testLimitsRefuseWhatCannotBeAnImageOfItsSize() throws {
        let limits = SourceLimits(maxPixels: 100_000_000)
        let camera = SourceHeader(format: "jpeg", width: 4000, height: 3000)
        XCTAssertNoThrow(try limits.check(camera, size: 12 << 20, name: "a.jpg"))
        // 12 MP may hold up to 16 bytes a pixel and 64 MiB more.
        XCTAssertNoThrow(try limits.check(camera, size: 12_000_000 * 16 + (64 << 20), name: "a.jpg"))
        XCTAssertThrowsError(try limits.check(camera, size: 12_000_000 * 16 + (64 << 20) + 1, name: "a.jpg"))
        let pixel = SourceHeader(format: "jpeg", width: 1, height: 1)
        XCTAssertThrowsError(try limits.check(pixel, size: 65 << 20, name: "dot.jpg")) { error in
            let error = error as? ItemError
            XCTAssertEqual(error?.code, .tooLarge)
            XCTAssertEqual(error?.message, "dot.jpg is 65.0 MB, far more than a 1×1 JPEG holds (at most 64.0 MB); the rest is not image data, and the file was not read")
        }
        XCTAssertThrowsError(try limits.check(SourceHeader(format: "png", width: 20000, height: 20000), size: 1000, name: "b.png")) { error in
            XCTAssertEqual((error as? ItemError)?.code, .tooLarge)
            XCTAssertTrue((error as? ItemError)?.message.contains("raise --max-pixels") ?? false)
        }
        // Other formats are not bounded by their size (animations, layers,
        // a scan's 16-bit strips): no source is held whole.
        XCTAssertNoThrow(try limits.check(SourceHeader(format: "gif", width: 1, height: 1), size: 500 << 20, name: "anim.gif"))
        XCTAssertNoThrow(try limits.check(SourceHeader(format: "tiff", width: 9000, height: 9000), size: 3 << 30, name: "scan.tif"))
    }
}

/// Issue 39: a file packed in gzip (or an archive) is named as such.
final class PackedContentDescriptionTests: XCTestCase {
    func testPackedFormatsAreNamed() {
        XCTAssertEqual(ImageSniffer.describe([0x1F, 0x8B, 0x08, 0x00, 0x12]), "it is gzip-compressed data, it starts 1f 8b 08 00")
        XCTAssertEqual(ImageSniffer.describe([0x50, 0x4B, 0x03, 0x04, 0x14]), "it is a ZIP archive, it starts 50 4b 03 04")
        XCTAssertEqual(ImageSniffer.describe([0x01, 0x8B, 0x08, 0x00]), "it starts 01 8b 08 00")
    }

    func testLoaderMessagesOfACutShortFileSaySo() {
        let libheif = "source: bad seek to 1003078; heif: Invalid input: Unexpected end of file: Extent in iloc box "
            + "references data outside of file bounds (points to file position 591240); (2.100)"
        let error = LoaderErrors.headerFailure(loader: "heifload_source", format: "heif", detail: libheif, sniffedName: "HEIF")
        XCTAssertEqual(error.message, "cannot read the heif header: the file is cut short "
                       + "(Unexpected end of file: Extent in iloc box references data outside of file bounds)")
        XCTAssertEqual(LoaderErrors.headerFailure(loader: "pngload", format: "png", detail: "bad IHDR", sniffedName: nil).message,
                       "cannot read the png header: bad IHDR")
    }
}
