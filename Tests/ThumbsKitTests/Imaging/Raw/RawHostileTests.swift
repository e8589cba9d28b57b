import CVipsShim
import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Damaged and hostile RAWs: every prefix of a small DNG, directories that
/// point anywhere, a preview that claims to be huge. Never a crash, never a
/// hang: a picture, or one item error.
final class RawHostileTests: TemporaryFolderTestCase {
    private func smallDNG() -> TestDNG.Layout {
        TestDNG.make(width: 32, height: 24, orientation: 6,
                     previews: [TestDNG.writePattern(root + "/p.jpg", width: 32, height: 24, options: "[Q=50,strip]")],
                     thumbnail: (2, 2))
    }

    private static func run(_ bytes: [UInt8], box: Int = 32, maxPixels: Int = 100_000_000) -> Result<DecodePath, ItemError> {
        var settings = OutputSettings()
        settings.sizes = [ThumbSize(width: box, height: box)]
        let limits = DecodeLimits(maxPixels: maxPixels)
        return bytes.withUnsafeBytes { raw in
            do throws(ItemError) {
                let decoded = try Thumbnailer.decode(raw, settings: settings, limits: limits)
                _ = try Thumbnailer.finish(decoded, settings: settings)
                return .success(decoded.decoder)
            } catch {
                return .failure(error)
            }
        }
    }

    /// Every prefix: recognised or not, each ends in pixels or an item error.
    /// (32×24: LibRaw takes no sensor smaller than 22 pixels a side.)
    func testEveryPrefixOfASmallDNG() {
        let bytes = smallDNG().bytes
        XCTAssertEqual(try Self.run(bytes).get(), .rawPreview)
        assertFinishes(within: 120, "prefixes of a \(bytes.count)-byte DNG") {
            var outcomes: [String: Int] = [:]
            for length in 0..<bytes.count {
                let key: String
                switch Self.run(Array(bytes[0..<length])) {
                case .success(let path): key = path.rawValue
                case .failure(let error): key = error.code.rawValue
                }
                outcomes[key, default: 0] += 1
            }
            // Cut in its sensor data (written last), the preview still serves.
            XCTAssertGreaterThan(outcomes["raw-preview"] ?? 0, 0, "\(outcomes)")
            XCTAssertEqual(outcomes.values.reduce(0, +), bytes.count)
        }
    }

    /// Every 4-byte field of the directories set to values that point
    /// outside the file, at its end, or at 0: sniffing, the preview walk and
    /// LibRaw survive each.
    func testDirectoryFieldsPointingAnywhere() {
        let layout = smallDNG()
        let bytes = layout.bytes
        // The directories lie between the preview's JPEG and the sensor data (32×24×2 bytes, last).
        let start = layout.previewOffsetFields[0].offset - 120, end = bytes.count - 32 * 24 * 2
        assertFinishes(within: 120, "damaged directories") {
            for at in stride(from: max(8, start), to: end - 4, by: 2) {
                for value in [0, bytes.count - 2, 0xFFFF_FFFF] {
                    var damaged = bytes
                    for i in 0..<4 { damaged[at + i] = UInt8(truncatingIfNeeded: value >> (8 * i)) }
                    _ = Self.run(damaged)
                }
            }
        }
    }

    /// A truncated DNG whose box no preview covers: LibRaw meets the end of
    /// the sensor data, and says so.
    func testTruncatedSensorDataFailsWithLibRawsWords() throws {
        let preview = TestDNG.writePattern(root + "/p.jpg", width: 300, height: 200)
        let bytes = TestDNG.make(width: 1200, height: 800, previews: [preview]).bytes
        // The sensor data comes last: cut through it.
        switch Self.run(Array(bytes[0..<bytes.count - 600_000]), box: 1024) {
        case .success(let path): XCTFail("decoded by \(path)")
        case .failure(let error):
            XCTAssertEqual(error.code, .decode, error.message)
            XCTAssertTrue(error.message.contains("LibRaw cannot develop this DNG file"), error.message)
        }
    }

    /// A preview whose header claims more pixels than --max-pixels is never
    /// decoded; the photo itself over the limit fails the item as too large.
    func testPreviewOverMaxPixels() throws {
        let preview = TestDNG.writePattern(root + "/p.jpg", width: 1200, height: 800)
        let bytes = TestDNG.make(width: 1200, height: 800, previews: [preview]).bytes
        switch Self.run(bytes, box: 256, maxPixels: 900_000) {
        case .success(let path): XCTFail("decoded by \(path)")
        case .failure(let error): XCTAssertEqual(error.code, .tooLarge, error.message)
        }
        // A listed preview whose frame claims 60000x40000: never chosen, never probed.
        var huge = shim_embedded_picture()
        huge.length = 4
        huge.kind = Int32(SHIM_EP_PREVIEW_IMAGE)
        huge.width = 60000
        huge.height = 40000
        huge.sof = 0xC0
        huge.components = 3
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xD9]
        jpeg.withUnsafeBytes { raw in
            XCTAssertNil(RawPreviewFinder.choose([EmbeddedPictureListing.Picture(huge)], in: .memory(raw), photo: (60000, 40000),
                                                 orientation: 1, needed: (256, 171), maxPixels: 100_000_000))
        }
    }

    /// ExifTool's IIQ with one byte inserted (found by fuzz/raw.sh): LibRaw's
    /// parse_phase_one then walks 2^32 directory entries, reading on past
    /// the end for minutes. CRawShim's read budget ends it: one failed item
    /// within a second, from memory and from the file.
    func testIIQWhoseDirectoryNeverEndsFailsQuickly() throws {
        var fixture = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "/raw/PhaseOne.iiq")))
        fixture.insert(0xF0, at: 1788)
        try assertEndsQuickly(fixture, kind: "IIQ", reading: "past the end of the file")
    }

    /// A CR3 from the fuzzer whose boxes point back at each other: LibRaw's
    /// parseCR3 reads the same bytes without end (main's thumbs spent over
    /// 12 minutes of CPU on its 1.5 KB). Ended by the budget on reads.
    func testCR3WhoseBoxesLoopFailsQuickly() throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "/raw-hostile/cr3-box-loop.cr3")))
        try assertEndsQuickly(bytes, kind: "CR3", reading: "the same bytes over and over")
    }

    private static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures").path

    /// `bytes` fail within 10 s (under a second in a release build) with the
    /// budget's words, from memory and from a file.
    private func assertEndsQuickly(_ bytes: [UInt8], kind: String, reading: String, line: UInt = #line) throws {
        let path = root + "/hostile." + kind.lowercased()
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let file = try SourceFile(path: path)
        var box = OutputSettings()
        box.sizes = [ThumbSize(width: 256, height: 256)]
        let settings = box, limits = DecodeLimits()
        assertFinishes(within: 10, "a \(kind) LibRaw reads without end", line: line) {
            for (name, outcome) in [("memory", Self.run(bytes, box: 256)),
                                    ("file", Result { () throws(ItemError) in try RawEntries.plan(.file(file), settings: settings, limits: limits)?.path ?? .libvips })] {
                switch outcome {
                case .success(let path): XCTFail("\(name): decoded by \(path)", line: line)
                case .failure(let error):
                    XCTAssertTrue(error.message.contains("LibRaw cannot open this \(kind) file"), "\(name): \(error.message)", line: line)
                    XCTAssertTrue(error.message.contains("kept reading \(reading)"), "\(name): \(error.message)", line: line)
                }
            }
        }
    }
}
