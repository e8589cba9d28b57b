import CVips
import CThumbsTestShim
import CVipsShim
import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Placeholders, colour, perceptual hash and look-alike groups through real
/// runs: what the manifest, stats, report, verify and merge make of them.
final class PlaceholderRunTests: TemporaryFolderTestCase {
    /// A photo-like picture: a few soft blobs placed by `seed`, so that
    /// different seeds give different perceptual hashes.
    @discardableResult
    private func blobs(_ path: String, seed: UInt64, width: Int = 320, height: Int = 240, options: String = "[Q=90]") -> String {
        var random = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        func next() -> Double {
            random ^= random << 13
            random ^= random >> 7
            random ^= random << 17
            return Double(random % 10_000) / 10_000
        }
        let spots = (0..<6).map { _ in (x: next(), y: next(), r: 0.08 + next() * 0.25, c: (next(), next(), next())) }
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                var rgb = (0.15, 0.15, 0.15)
                for spot in spots {
                    let dx = Double(x) / Double(width) - spot.x, dy = Double(y) / Double(height) - spot.y
                    let w = exp(-(dx * dx + dy * dy) / (spot.r * spot.r))
                    rgb.0 += w * spot.c.0
                    rgb.1 += w * spot.c.1
                    rgb.2 += w * spot.c.2
                }
                let i = (y * width + x) * 3
                pixels[i] = UInt8(clamping: Int(min(1, rgb.0) * 255))
                pixels[i + 1] = UInt8(clamping: Int(min(1, rgb.1) * 255))
                pixels[i + 2] = UInt8(clamping: Int(min(1, rgb.2) * 255))
            }
        }
        try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let image = pixels.withUnsafeBytes {
            vips_image_new_from_memory_copy($0.baseAddress, $0.count, Int32(width), Int32(height), 3, VIPS_FORMAT_UCHAR)
        }!
        image.pointee.Type = VIPS_INTERPRETATION_sRGB
        precondition(shim_save_file(image, path + options) == 0, "cannot write \(path)")
        shim_unref(image)
        return path
    }

    func testEveryItemWithPixelsGetsPlaceholdersColourAndHash() async throws {
        let source = root + "/in"
        blobs(source + "/a.jpg", seed: 1)
        blobs(source + "/b.png", seed: 2, options: "")
        try FileManager.default.copyItem(atPath: source + "/a.jpg", toPath: source + "/copy-of-a.jpg")
        try Data("broken".utf8).write(to: URL(fileURLWithPath: source + "/broken.jpg"))
        _ = try await runThumbs([source], out: root + "/out") { $0.maxFailures = .count(1) }
        let manifest = try readManifest(root + "/out")
        for id in ["a.jpg", "b.png", "copy-of-a.jpg"] {
            let item = try XCTUnwrap(manifest.item(id))
            let placeholder = try XCTUnwrap(item.placeholder, id)
            XCTAssertNil(PlaceholderCheck.thumbHashProblem(placeholder.thumbhash), id)
            XCTAssertNil(PlaceholderCheck.blurHashProblem(placeholder.blurhash), id)
            XCTAssertEqual(placeholder.blurhash.count, 28, "4×3 components")
            XCTAssertNotNil(ReportWriter.safeColour(item.color), id)
            XCTAssertEqual(item.phash?.count, 16, id)
        }
        XCTAssertEqual(manifest.item("copy-of-a.jpg")?.placeholder, manifest.item("a.jpg")?.placeholder)
        let broken = try XCTUnwrap(manifest.item("broken.jpg"))
        XCTAssertNil(broken.placeholder)
        XCTAssertNil(broken.phash)
        XCTAssertTrue(manifest.settings.placeholders)
        // The same fields as written by hand-made JSON: key order of PRODUCT.md.
        let text = try String(contentsOfFile: root + "/out/manifest.json", encoding: .utf8)
        let line = try XCTUnwrap(text.split(separator: "\n").first { $0.contains("\"id\": \"a.jpg\"") })
        let keys = ["\"outputs\"", "\"placeholder\"", "\"color\"", "\"phash\"", "\"ms\""].map { line.range(of: $0)!.lowerBound }
        XCTAssertEqual(keys, keys.sorted())

        // Re-run: unchanged items keep theirs without decoding.
        let again = try await runThumbs([source], out: root + "/out") { $0.maxFailures = .count(1) }
        XCTAssertEqual(again.statistics?.counts.unchanged, 3)
        XCTAssertEqual(try readManifest(root + "/out").item("a.jpg")?.placeholder, manifest.item("a.jpg")?.placeholder)
        XCTAssertTrue(try ManifestVerifier(manifestPath: root + "/out/manifest.json").run().isClean)
    }

    func testNoPlaceholdersIsRecordedAndKeepsTheHash() async throws {
        blobs(root + "/in/a.jpg", seed: 3)
        _ = try await runThumbs([root + "/in"], out: root + "/out") { $0.output.placeholders = false }
        let manifest = try readManifest(root + "/out")
        XCTAssertFalse(manifest.settings.placeholders)
        XCTAssertNil(manifest.items[0].placeholder)
        XCTAssertNil(manifest.items[0].color)
        XCTAssertNotNil(manifest.items[0].phash)
        let settings = try String(contentsOfFile: root + "/out/manifest.json", encoding: .utf8)
        XCTAssertTrue(settings.contains("\"placeholders\":false"))
    }

    /// The same photo re-encoded and resized is found; different photos are
    /// not; the group names the first item in manifest order.
    func testLookalikesAreGroupedAndShown() async throws {
        let source = root + "/in"
        let original = blobs(source + "/1-original.jpg", seed: 10, width: 640, height: 480)
        blobs(source + "/2-other.jpg", seed: 11)
        blobs(source + "/3-reencoded.jpg", seed: 10, width: 640, height: 480, options: "[Q=40]")
        blobs(source + "/4-smaller.jpg", seed: 10, width: 320, height: 240)
        blobs(source + "/5-another.jpg", seed: 12)
        XCTAssertTrue(FileManager.default.fileExists(atPath: original))
        let outcome = try await runThumbs([source], out: root + "/out")
        let manifest = try readManifest(root + "/out")
        XCTAssertNil(manifest.item("1-original.jpg")?.similarTo, "the first of a group carries nothing")
        XCTAssertEqual(manifest.item("3-reencoded.jpg")?.similarTo?.id, "1-original.jpg")
        XCTAssertEqual(manifest.item("4-smaller.jpg")?.similarTo?.id, "1-original.jpg")
        XCTAssertNil(manifest.item("2-other.jpg")?.similarTo)
        XCTAssertNil(manifest.item("5-another.jpg")?.similarTo)
        XCTAssertLessThanOrEqual(manifest.item("3-reencoded.jpg")?.similarTo?.distance ?? 99, LookalikeGrouping.defaultDistance)
        XCTAssertEqual(outcome.statistics?.similar, LookalikeGroups.Summary(groups: 1, images: 3))
        XCTAssertEqual(manifest.run?.similar, LookalikeGrouping.defaultDistance)
        let stats = try String(contentsOfFile: root + "/out/stats.json", encoding: .utf8)
        XCTAssertTrue(stats.contains("\"similar\""))
        let html = try String(contentsOfFile: root + "/out/report.html", encoding: .utf8)
        XCTAssertTrue(html.contains("<section id=lookalikes>"))
        XCTAssertEqual(html.components(separatedBy: "<ol class=\"grid group\">").count - 1, 1)
        XCTAssertTrue(html.contains(" bits</i>") || html.contains(" bit</i>"))
        XCTAssertTrue(html.contains("style=\"background:#"), "tiles show the average colour while loading")
        XCTAssertTrue(StatisticsTable(try XCTUnwrap(outcome.statistics)).render().contains("look-alikes"))

        // --similar 0 turns grouping off; a re-run regroups unchanged items.
        let off = try await runThumbs([source], out: root + "/out") { $0.similar = 0 }
        XCTAssertEqual(off.statistics?.counts.unchanged, 5)
        XCTAssertEqual(off.statistics?.similar, LookalikeGroups.Summary())
        XCTAssertTrue(try readManifest(root + "/out").items.allSatisfy { $0.similarTo == nil })
    }

    func testMergeGroupsAcrossShards() async throws {
        let source = root + "/in"
        for seed in 0..<8 { blobs(source + "/p\(seed).jpg", seed: UInt64(100 + seed)) }
        // Re-encoded at Q60: at Q45 one of these synthetic pairs sits right
        // at the default distance, and a 0.1-level change in the resize
        // (libvips' reduce or resample.c) flips it to one bit over.
        for seed in 0..<8 { blobs(source + "/q\(seed).jpg", seed: UInt64(100 + seed), options: "[Q=60]") }
        let single = try await runThumbs([source], out: root + "/single")
        let outs = try await ShardFixture.runShards([source], count: 3, into: root)
        _ = try ThumbsMerge(manifests: outs.map { $0 + "/manifest.json" }, outputDirectory: root + "/merged").run()
        let merged = try readManifest(root + "/merged")
        let whole = try readManifest(root + "/single")
        XCTAssertEqual(merged.items.map(\.similarTo), whole.items.map(\.similarTo))
        XCTAssertEqual(single.statistics?.similar.groups, 8)
    }

    func testVerifyFindsMalformedPlaceholders() async throws {
        blobs(root + "/in/a.jpg", seed: 4)
        _ = try await runThumbs([root + "/in"], out: root + "/out")
        var manifest = try readManifest(root + "/out")
        manifest.items[0].placeholder?.blurhash = "not a blurhash!"
        manifest.items[0].placeholder?.thumbhash = "%%%"
        manifest.items[0].color = "red"
        manifest.items[0].phash = "12345"
        try JSONCoding.encode(manifest).write(to: URL(fileURLWithPath: root + "/out/manifest.json"))
        let result = try ManifestVerifier(manifestPath: root + "/out/manifest.json").run()
        XCTAssertEqual(result.findings.filter { $0.kind == .badPlaceholder }.count, 4, result.lines.joined(separator: "\n"))
        XCTAssertEqual(result.exitStatus, .failures)
    }
}
