import Foundation
import ThumbsTestSupport
import XCTest
import ThumbsKit

/// libvips keeps one error buffer for the whole process, written by every
/// thread (its worker threads included, where lazy decodes fail). Each
/// failed item's message must still be its own: many broken files of four
/// kinds at once, over several runs, each message checked against its own
/// file's kind.
///
/// Before the fix (`VipsRuntime.lastError` took whatever the buffer held,
/// and the header path cleared it speculatively) about one broken file in
/// 200 got another's message, or none, at `--jobs 16`.
final class ErrorAttributionTests: TemporaryFolderTestCase {
    /// Words that name a kind's loader in libvips' messages.
    private static let kinds: [(ext: String, words: [String])] = [
        ("jpg", ["jpeg", "jpg"]),
        ("png", ["png"]),
        ("webp", ["webp"]),
        ("gif", ["gif"]),
    ]

    func testEveryBrokenItemGetsItsOwnMessage() async throws {
        let perKind = 100, runs = 4
        let folder = root + "/in"
        try makeBrokenFiles(in: folder, perKind: perKind)

        var wrong: [String] = []
        var checked = 0
        for run in 0..<runs {
            let out = root + "/out\(run)"
            let outcome = try await runThumbs([folder], out: out) {
                $0.jobs = 16
                $0.maxFailures = .percent(100)
                $0.size([32])
                $0.output.placeholders = false
            }
            let items = try XCTUnwrap(outcome.manifest?.items)
            XCTAssertEqual(items.count, perKind * Self.kinds.count)
            for item in items {
                checked += 1
                guard let error = item.error else {
                    wrong.append("run \(run) \(item.id): not failed (\(item.status))")
                    continue
                }
                let ext = (item.id as NSString).pathExtension
                if let problem = Self.mismatch(message: error.message, ext: ext) {
                    wrong.append("run \(run) \(item.id): \(problem): \(error.message)")
                }
            }
            try? FileManager.default.removeItem(atPath: out)
        }
        XCTAssertEqual(checked, perKind * Self.kinds.count * runs)
        XCTAssertTrue(wrong.isEmpty, "\(wrong.count) of \(checked) messages are not their item's own:\n" + wrong.prefix(20).joined(separator: "\n"))
    }

    /// Why `message` cannot be the message of a broken file of kind `ext`,
    /// or nil. libvips' part (after thumbs' "cannot decode png image: ")
    /// must name the item's own loader and no other kind's.
    static func mismatch(message: String, ext: String) -> String? {
        guard let own = kinds.first(where: { $0.ext == ext }) else { return "unknown kind" }
        let parts = message.lowercased().components(separatedBy: ": ")
        guard parts.count >= 2 else { return "no libvips detail" }
        let detail = parts.dropFirst().joined(separator: ": ")
        for other in kinds where other.ext != ext {
            if let word = other.words.first(where: { detail.contains($0) }) { return "mentions \(word)" }
        }
        guard own.words.contains(where: { detail.contains($0) }) else { return "does not name its own loader" }
        return nil
    }

    /// `perKind` distinct files of each kind, written by libvips and then
    /// damaged: cut short (the decode fails, on libvips' worker threads),
    /// or for PNG, WebP and GIF every other one overwritten in the middle.
    private func makeBrokenFiles(in folder: String, perKind: Int) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let scratch = root + "/scratch"
        for kind in Self.kinds {
            // One image per kind, then distinct copies (a byte after the
            // damage changes), so that no two files share their bytes.
            let path = TestImages.write(scratch + "/source.\(kind.ext)", width: 320, height: 240,
                                        options: kind.ext == "png" ? "[compression=1]" : "")
            let whole = try Data(contentsOf: URL(fileURLWithPath: path))
            for i in 0..<perKind {
                var bytes = whole
                // libjpeg takes corrupt data in its stride (warnings, which
                // --fail-on error tolerates): JPEGs are only cut short.
                if i % 2 == 0 || kind.ext == "jpg" {
                    bytes = bytes.prefix(bytes.count * 6 / 10)
                } else {
                    let start = bytes.count / 3
                    for k in start..<(start + 64) { bytes[k] = UInt8(truncatingIfNeeded: k &* 97) }
                    bytes = bytes.prefix(bytes.count * 8 / 10)
                }
                bytes.append(contentsOf: withUnsafeBytes(of: UInt32(i).bigEndian) { Array($0) })
                try bytes.write(to: URL(fileURLWithPath: folder + String(format: "/%@-%03d.%@", kind.ext, i, kind.ext)))
            }
        }
    }
}
