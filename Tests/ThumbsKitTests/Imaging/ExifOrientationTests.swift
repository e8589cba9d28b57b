import CThumbsTestShim
import CVipsShim
import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// The Exif orientation parser of the direct JPEG path (jpeg_exif.c) on
/// untrusted APP1 payloads. Each payload is copied to the very end of a
/// mapping followed by a PROT_NONE page (`test_exif_orientation_guarded`),
/// so a read past its end crashes the test run instead of going unseen:
/// libjpeg keeps saved markers inside its own memory pool, where not even
/// AddressSanitizer sees their ends.
final class ExifOrientationTests: XCTestCase {
    /// "Exif\0\0", a TIFF header of the given byte order and IFD0 offset,
    /// then `rest`.
    private func payload(bigEndian: Bool, ifd: UInt32, _ rest: [UInt8] = []) -> [UInt8] {
        var bytes = Array("Exif".utf8) + [0, 0]
        bytes += bigEndian ? Array("MM".utf8) + [0, 42] : Array("II".utf8) + [42, 0]
        bytes += bigEndian ? be32(ifd) : le32(ifd)
        return bytes + rest
    }

    /// 14 + `extra` bytes (extra 0...3), big-endian, IFD0 at the last two
    /// bytes, whose count is nonzero (6 when extra is 0: the low half of the
    /// IFD offset itself).
    private func shortPayload(extra: Int) -> [UInt8] {
        payload(bigEndian: true, ifd: UInt32(6 + extra), extra == 0 ? [] : Array(repeating: 0, count: extra - 1) + [6])
    }

    private func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    private func le16(_ v: Int) -> [UInt8] { be16(v).reversed() }
    private func be32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(v >> (24 - 8 * $0) & 0xFF) } }
    private func le32(_ v: UInt32) -> [UInt8] { be32(v).reversed() }

    /// One 12-byte IFD entry: tag, type, count 1, value.
    private func entry(bigEndian: Bool, tag: Int, type: Int, value: UInt32) -> [UInt8] {
        if bigEndian {
            let field = type == 3 ? be16(Int(value)) + [0, 0] : be32(value)
            return be16(tag) + be16(type) + be32(1) + field
        }
        let field = type == 3 ? le16(Int(value)) + [0, 0] : le32(value)
        return le16(tag) + le16(type) + le32(1) + field
    }

    private func orientation(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> Int32 {
        let result = bytes.withUnsafeBufferPointer { test_exif_orientation_guarded($0.baseAddress, $0.count) }
        XCTAssertNotEqual(result, -1, "could not map the guard page", file: file, line: line)
        return result
    }

    /// Payloads of 14 to 17 bytes whose IFD0 sits inside the TIFF header and
    /// counts entries: `entry > size - 12`, as the parser once wrote it,
    /// wrapped around for a TIFF part under 12 bytes and read the entries
    /// past the payload (SIGSEGV here, an ASan report in a sanitised build).
    func testShortPayloadsAreNotReadPastTheirEnd() {
        for extra in 0...3 {
            let bytes = shortPayload(extra: extra)
            XCTAssertEqual(bytes.count, 14 + extra)
            XCTAssertEqual(orientation(bytes), 1, "\(bytes.count) bytes")
        }
        // Every cut of a valid payload, both byte orders.
        for bigEndian in [true, false] {
            let whole = payload(bigEndian: bigEndian, ifd: 8,
                                (bigEndian ? be16(1) : le16(1)) + entry(bigEndian: bigEndian, tag: 0x0112, type: 3, value: 6))
            for cut in 0..<whole.count {
                XCTAssertEqual(orientation(Array(whole[..<cut])), 1, "cut at \(cut)")
            }
            XCTAssertEqual(orientation(whole), 6, "whole, bigEndian \(bigEndian)")
        }
    }

    /// The tag read as SHORT or LONG, after other entries; values outside
    /// 1...8, other types, and IFD offsets past the end give 1.
    func testOrientationTagIsRead() {
        for bigEndian in [true, false] {
            let count = bigEndian ? be16(2) : le16(2)
            let other = entry(bigEndian: bigEndian, tag: 0x010F, type: 2, value: 0)
            for (type, value, expected) in [(3, 8, 8), (4, 3, 3), (3, 9, 1), (3, 0, 1), (5, 6, 1)] {
                let bytes = payload(bigEndian: bigEndian, ifd: 8,
                                    count + other + entry(bigEndian: bigEndian, tag: 0x0112, type: type, value: UInt32(value)))
                XCTAssertEqual(orientation(bytes), Int32(expected), "type \(type) value \(value) bigEndian \(bigEndian)")
            }
            XCTAssertEqual(orientation(payload(bigEndian: bigEndian, ifd: 0xFFFF_FFFF, count)), 1)
            XCTAssertEqual(orientation(payload(bigEndian: bigEndian, ifd: 0xFFFF_FFF0, count)), 1)
        }
        XCTAssertEqual(orientation(Array("Exif".utf8) + [0, 0] + Array("XX".utf8) + [0, 42, 0, 0, 0, 8]), 1)
    }

    /// The same payloads through the probe of a real JPEG: the orientation
    /// it reports, and no crash for the short ones.
    func testProbeReadsOrientationFromAPP1() throws {
        TestImages.start()
        let dir = TestImages.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/plain.jpg"
        TestImages.write(path, width: 40, height: 30, bands: 3)
        let jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func withAPP1(_ body: [UInt8]) -> [UInt8] {
            Array(jpeg[..<2]) + [0xFF, 0xE1] + be16(body.count + 2) + body + Array(jpeg[2...])
        }
        let six = payload(bigEndian: false, ifd: 8, le16(1) + entry(bigEndian: false, tag: 0x0112, type: 3, value: 6))
        let header = try XCTUnwrap(withAPP1(six).withUnsafeBytes { DirectJPEG.probe($0) })
        XCTAssertEqual(header.orientation, 6)
        for extra in 0...3 {
            let probed = try XCTUnwrap(withAPP1(shortPayload(extra: extra)).withUnsafeBytes { DirectJPEG.probe($0) })
            XCTAssertEqual(probed.orientation, 1)
        }
    }
}
