import XCTest
@testable import ThumbsKit

/// Videos are recognised by content, and the ISO-BMFF brands of still
/// images (HEIC, AVIF, CR3) stay images.
final class VideoSnifferTests: XCTestCase {
    private func ftyp(_ major: String, _ compatible: [String] = []) -> [UInt8] {
        let size = 16 + 4 * compatible.count
        var b: [UInt8] = [0, 0, 0, UInt8(size)] + Array("ftyp".utf8) + Array(major.utf8) + [0, 0, 2, 0]
        for brand in compatible { b += Array(brand.utf8) }
        return b + [0, 0, 0, 8] + Array("free".utf8)
    }

    func testISOBrands() {
        XCTAssertEqual(ImageSniffer.format(of: ftyp("isom", ["isom", "avc1"])), "mp4")
        XCTAssertEqual(ImageSniffer.format(of: ftyp("mp42")), "mp4")
        XCTAssertEqual(ImageSniffer.format(of: ftyp("qt  ")), "mov")
        XCTAssertEqual(ImageSniffer.format(of: ftyp("M4V ")), "m4v")
        XCTAssertEqual(ImageSniffer.format(of: ftyp("3gp5")), "3gp")
        XCTAssertEqual(ImageSniffer.format(of: ftyp("XYZW", ["mp41"])), "mp4", "an unknown major brand compatible with mp41")
        // Still images share the box: they stay images.
        XCTAssertEqual(ImageSniffer.format(of: ftyp("heic", ["mif1", "heic"])), "heif")
        XCTAssertEqual(ImageSniffer.format(of: ftyp("mif1", ["heic"])), "heif")
        XCTAssertEqual(ImageSniffer.format(of: ftyp("avif", ["mif1"])), "avif")
        XCTAssertEqual(ImageSniffer.format(of: ftyp("avif", ["isom"])), "avif", "an image major brand decides")
        XCTAssertNil(VideoSniffer.format(of: ftyp("crx ", ["crx ", "isom"])), "a Canon CR3 is a RAW")
        XCTAssertNil(VideoSniffer.format(of: ftyp("XYZW", ["isom", "mif1"])), "compatible with an image brand")
        XCTAssertNil(VideoSniffer.format(of: ftyp("M4A ", ["M4A ", "isom"])), "sound only, by its major brand")
    }

    func testOtherContainers() {
        let ebml: [UInt8] = [0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x84] + Array("webm".utf8)
        XCTAssertEqual(ImageSniffer.format(of: ebml), "webm")
        let mkv: [UInt8] = [0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x82, 0x88] + Array("matroska".utf8)
        XCTAssertEqual(ImageSniffer.format(of: mkv), "mkv")
        XCTAssertEqual(ImageSniffer.format(of: Array("RIFF\u{0}\u{0}\u{0}\u{0}AVI LIST".utf8)), "avi")
        XCTAssertEqual(ImageSniffer.format(of: Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)), "webp")
        var ts = [UInt8](repeating: 0xFF, count: 188 * 4)
        for k in 0..<4 { ts[188 * k] = 0x47 }
        XCTAssertEqual(ImageSniffer.format(of: ts), "ts")
        var m2ts = [UInt8](repeating: 0, count: 192 * 4)
        for k in 0..<4 { m2ts[192 * k + 4] = 0x47 }
        XCTAssertEqual(ImageSniffer.format(of: m2ts), "m2ts")
        ts[188 * 2] = 0x48
        XCTAssertNil(VideoSniffer.format(of: ts), "a sync byte missing")
        // "GIF8…" starts with 0x47 too: a GIF stays a GIF.
        XCTAssertEqual(ImageSniffer.format(of: Array("GIF89a".utf8) + [UInt8](repeating: 0x47, count: 600)), "gif")
    }

    func testVideoNamesAreItemsEvenWhenBroken() {
        for name in ["a.mp4", "b.MOV", "c.m4v", "d.3gp", "e.mkv", "f.webm", "g.avi", "h.mts", "i.m2ts"] {
            XCTAssertTrue(ImageSniffer.isNamedLikeImage(name), name)
        }
        XCTAssertFalse(ImageSniffer.isNamedLikeImage("code.ts"), "TypeScript")
    }
}
