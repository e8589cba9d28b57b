import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// A RAW read from its file by ranges (`ImageSource.file`, LibRaw through
/// `BoundedStream`) says and makes exactly what the same bytes in memory
/// do: the same plan (kind, the photo's size and orientation, the preview
/// chosen), the same thumbnails, or the same error. On ExifTool's
/// containers, on DNGs with and without a preview that serves (LibRaw then
/// develops from the file), and on damaged ones.
final class RawFileSourceTests: TemporaryFolderTestCase {
    private static func settings(_ box: Int) -> OutputSettings {
        var settings = OutputSettings()
        settings.sizes = [ThumbSize(width: box, height: box)]
        return settings
    }

    /// What a plan, decode and finish come to, as text to compare.
    private static func describe(
        box: Int, plan: () throws(ItemError) -> DecodePlan?, decode: (DecodePlan) throws(ItemError) -> DecodedImage
    ) -> String {
        let settings = settings(box)
        do throws(ItemError) {
            guard let plan = try plan() else { return "not a RAW" }
            var text = "\(plan.path) \(String(describing: plan.info)) shrink \(plan.shrink) reads \(plan.reads)"
            let decoded = try decode(plan)
            let rendered = try Thumbnailer.finish(decoded, settings: settings)
            text += " -> \(decoded.decoder) \(decoded.info) " + rendered.thumbnails.map { SHA256Hex.of($0.data) }.joined(separator: ",")
            return text
        } catch {
            return "error \(error.code.rawValue): \(error.message)"
        }
    }

    private func fromMemory(_ bytes: [UInt8], box: Int) -> String {
        let limits = DecodeLimits()
        return bytes.withUnsafeBytes { raw in
            Self.describe(box: box, plan: { () throws(ItemError) in try RawEntries.plan(.memory(raw), settings: Self.settings(box), limits: limits) },
                          decode: { plan throws(ItemError) in
                              guard let decoded = try RawEntries.decode(.memory(raw), plan: plan, settings: Self.settings(box), limits: limits) else { throw ItemError.decode("declined") }
                              return decoded
                          })
        }
    }

    private func fromFile(_ bytes: [UInt8], box: Int) throws -> String {
        let path = root + "/raw-\(bytes.count).bin"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = try SourceFile(path: path)
        let limits = DecodeLimits()
        return Self.describe(box: box, plan: { () throws(ItemError) in try RawEntries.plan(.file(file), settings: Self.settings(box), limits: limits) },
                             decode: { plan throws(ItemError) in
                                 guard let decoded = try RawEntries.decode(.file(file), plan: plan, settings: Self.settings(box), limits: limits) else { throw ItemError.decode("declined") }
                                 return decoded
                             })
    }

    private func assertSame(_ bytes: [UInt8], box: Int, _ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let memory = fromMemory(bytes, box: box)
        XCTAssertEqual(try fromFile(bytes, box: box), memory, name, file: file, line: line)
    }

    func testExifToolContainersSayTheSameFromTheirFiles() throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/raw").path
        let names = try FileManager.default.contentsOfDirectory(atPath: fixtures).filter { !$0.hasSuffix(".md") }.sorted()
        XCTAssertGreaterThanOrEqual(names.count, 10)
        for name in names {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixtures + "/" + name)))
            try assertSame(bytes, box: 256, name)
        }
    }

    func testDNGsGiveTheSamePlansAndThumbnailsFromTheirFiles() throws {
        let full = TestDNG.jpegPreview(root, name: "full", width: 1200, height: 800)
        let small = TestDNG.jpegPreview(root, name: "small", width: 300, height: 200)
        let wide = TestDNG.jpegPreview(root, name: "wide", width: 1200, height: 600)
        var cases: [(String, TestDNG.Layout, Int)] = [
            ("full-size preview at 1/8", TestDNG.make(width: 1200, height: 800, previews: [full, small]), 100),
            ("rotated", TestDNG.make(width: 1200, height: 800, orientation: 6, previews: [full]), 256),
            ("letterboxed preview: developed at half size", TestDNG.make(width: 1200, height: 800, previews: [wide]), 256),
            ("no preview covers: developed in full", TestDNG.make(width: 1200, height: 800, previews: [small]), 1024),
        ]
        // A preview whose segments before the scan outgrow the first read
        // from a file (two 65 KB APP9 blocks): probed again in full.
        var padded = small
        let block: [UInt8] = [0xFF, 0xE9, 0xFF, 0xFF] + [UInt8](repeating: 0x55, count: 0xFFFD)
        padded.jpeg.insert(contentsOf: block + block, at: 2)
        XCTAssertGreaterThan(padded.jpeg.count, 2 * JPEGPreviewDecoder.headerBytes)
        cases.append(("preview with 130 KB of segments before its scan",
                      TestDNG.make(width: 1200, height: 800, previews: [padded]), 256))
        for (name, layout, box) in cases {
            let memory = fromMemory(layout.bytes, box: box)
            XCTAssertFalse(memory.hasPrefix("error"), "\(name): \(memory)")
            if name.hasPrefix("preview with") { XCTAssertTrue(memory.hasPrefix("rawPreview"), memory) }
            try assertSame(layout.bytes, box: box, name)
        }
    }

    /// Cut anywhere (every 23rd length, and whole), with a box the preview covers and
    /// one only LibRaw's development does, and with a directory field
    /// pointing past the end: the same outcome from the file as from memory.
    func testDamagedDNGsFailOrServeTheSameFromTheirFiles() throws {
        let preview = TestDNG.writePattern(root + "/p.jpg", width: 32, height: 24, options: "[Q=50,strip]")
        let layout = TestDNG.make(width: 64, height: 48, orientation: 6, previews: [preview], thumbnail: (2, 2))
        let bytes = layout.bytes
        var outcomes: Set<String> = []
        for box in [32, 64] {
            for length in Array(stride(from: 0, to: bytes.count, by: 23)) + [bytes.count] {
                let memory = fromMemory(Array(bytes[0..<length]), box: box)
                outcomes.insert(String(memory.prefix(while: { $0 != " " })))
                XCTAssertEqual(try fromFile(Array(bytes[0..<length]), box: box), memory, "cut at \(length) of \(bytes.count), box \(box)")
            }
        }
        XCTAssertEqual(outcomes, ["not", "rawPreview", "libraw", "error"], "cuts that fail and cuts that serve")
        var damaged = bytes
        let field = layout.previewOffsetFields[0].length
        for i in 0..<4 { damaged[field + i] = 0xFF }
        try assertSame(damaged, box: 32, "preview length past the end")
    }

    /// The preview is read after the hash: a file rewritten in between fails
    /// the item (`io`, read again next run) instead of pairing one file's
    /// hash with another's picture.
    func testRAWChangedAfterItsHashFailsAsChanged() throws {
        let full = TestDNG.jpegPreview(root, name: "full", width: 1200, height: 800)
        let layout = TestDNG.make(width: 1200, height: 800, previews: [full])
        let path = root + "/changing.dng"
        try Data(layout.bytes).write(to: URL(fileURLWithPath: path))
        let file = try SourceFile(path: path)
        let limits = DecodeLimits()
        let plan = try XCTUnwrap(try RawEntries.plan(.file(file), settings: Self.settings(256), limits: limits))
        XCTAssertEqual(plan.path, .rawPreview)
        // Rewritten in place: same size, another modification time.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.write(contentsOf: Data(layout.bytes))
        try handle.close()
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: path)
        XCTAssertThrowsError(try plan.decode(.file(file), Self.settings(256), limits)) { error in
            XCTAssertEqual((error as? ItemError)?.code, .io)
            XCTAssertTrue((error as? ItemError)?.message.contains("changed while being read") == true, "\(error)")
        }
    }
}
