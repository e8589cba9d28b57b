import CThumbsTestShim
import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// `verify --against` by eye, on a sample set (the repo's Samples, plus a
/// Display P3 copy of one photo): the changes that must pass do, each change
/// that must fail does, with its `changed-pixels` line. The measures of each
/// kind of change are printed (`VISUAL` lines): they are the README's table.
final class VisualRegressionTests: XCTestCase {
    nonisolated(unsafe) static var root: String?
    nonisolated(unsafe) static var baseline: String?

    override class func tearDown() {
        if let root { try? FileManager.default.removeItem(atPath: root) }
        super.tearDown()
    }

    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../Samples").standardizedFileURL.path
    static let photos = ["landscape.jpg", "greyscale.jpg", "cmyk.jpg", "wide.webp", "portrait-exif-rotated.jpg", "nested/square.tif"]
    static let box = ThumbSize(width: 256, height: 256)

    private func cover(_ options: inout RunOptions) {
        options.output.sizes = [Self.box]
        options.output.fit = .cover
    }

    /// The sample set and its baseline run (--size 256x256 --fit cover: every
    /// output has the same dimensions, so even another photo is compared).
    private func sampleSet() async throws -> (root: String, baseline: String) {
        if let root = Self.root, let baseline = Self.baseline { return (root, baseline) }
        let root = TestImages.temporaryDirectory("VisualRegressionTests")
        Self.root = root
        let src = root + "/src"
        try FileManager.default.createDirectory(atPath: src + "/nested", withIntermediateDirectories: true)
        for photo in Self.photos {
            try FileManager.default.copyItem(atPath: Self.samples + "/" + photo, toPath: src + "/" + photo)
        }
        XCTAssertEqual(test_write_display_p3(Self.samples + "/landscape.jpg", src + "/p3.jpg", 1), 0)
        _ = try await runThumbs([src], out: root + "/baseline") { cover(&$0) }
        Self.baseline = root + "/baseline"
        return (root, root + "/baseline")
    }

    private func copy(_ baseline: String) throws -> String {
        let copy = Self.root! + "/run-\(UUID().uuidString.prefix(8))"
        try FileManager.default.copyItem(atPath: baseline, toPath: copy)
        return copy
    }

    private func verify(_ out: String, against baseline: String, limits: DifferenceLimits = DifferenceLimits()) throws -> VerifyResult {
        try ManifestVerifier(manifestPath: out + "/manifest.json", baselinePath: baseline, limits: limits).run()
    }

    /// Replaces the output of `id` in `out` by `bytes`, and its manifest
    /// record to match, as if the run had made it.
    private func replaceOutput(_ out: String, _ id: String, with bytes: Data) throws {
        var manifest = try readManifest(out)
        let index = try XCTUnwrap(manifest.items.firstIndex { $0.id == id })
        let path = manifest.items[index].outputs[0].path
        try bytes.write(to: URL(fileURLWithPath: out + "/" + path))
        manifest.items[index].outputs[0].bytes = Int64(bytes.count)
        manifest.items[index].outputs[0].sha256 = SHA256Hex.of(bytes)
        try JSONCoding.encode(manifest).write(to: URL(fileURLWithPath: out + "/manifest.json"))
    }

    private func output(_ out: String, _ id: String) throws -> (path: String, pixels: SRGBPixels) {
        let path = try XCTUnwrap(readManifest(out).item(id)?.outputs.first?.path)
        return (path, try SRGBPixels.decode(Data(contentsOf: URL(fileURLWithPath: out + "/" + path))))
    }

    /// `pixels` as a JPEG at quality 80, as thumbs writes them.
    private func jpeg(_ pixels: SRGBPixels) throws -> Data {
        let file = Self.root! + "/tmp-\(UUID().uuidString.prefix(8)).jpg"
        let status = pixels.bytes.withUnsafeBufferPointer { test_write_rgb8(file + "[Q=80,strip]", $0.baseAddress, Int32(pixels.width), Int32(pixels.height)) }
        XCTAssertEqual(status, 0)
        defer { try? FileManager.default.removeItem(atPath: file) }
        return try Data(contentsOf: URL(fileURLWithPath: file))
    }

    private func ids(_ baseline: String) throws -> [String] { try readManifest(baseline).items.filter { $0.status != .failed }.map(\.id) }

    /// Every output changed by `change`, compared with the baseline at
    /// --max-difference 1 (nothing fails), to print the measures; then the
    /// findings at the default.
    private func measure(_ name: String, _ change: (String, SRGBPixels) throws -> SRGBPixels?) async throws -> VerifyResult {
        let (_, baseline) = try await sampleSet()
        let out = try copy(baseline)
        for id in try ids(baseline) {
            guard let changed = try change(id, output(baseline, id).pixels) else { continue }
            try replaceOutput(out, id, with: jpeg(changed))
        }
        try report(name, out: out, baseline: baseline)
        return try verify(out, against: baseline)
    }

    /// Prints min SSIM, max mean ΔE, max p99 ΔE over the set (`VISUAL` lines).
    private func report(_ name: String, out: String, baseline: String) throws {
        let all = try verify(out, against: baseline, limits: DifferenceLimits(maxDifference: 0))
        let measures = all.findings.compactMap(\.difference)
        let line = String(format: "VISUAL | %@ | %d | %.4f | %.4f | %.2f | %.2f | %.2f |", name, measures.count,
                          measures.map(\.ssim).min() ?? 1, measures.map(\.ssim).max() ?? 1,
                          measures.map(\.meanDeltaE).min() ?? 0, measures.map(\.meanDeltaE).max() ?? 0,
                          measures.map(\.p99DeltaE).max() ?? 0)
        print(line)
    }

    private func changedPixels(_ result: VerifyResult) -> [VerifyFinding] { result.findings.filter { $0.kind == .changedPixels } }

    // MARK: What must pass

    func testCopyOfTheRunPasses() async throws {
        let (_, baseline) = try await sampleSet()
        let out = try copy(baseline)
        let result = try verify(out, against: baseline)
        XCTAssertEqual(result.findings, [], result.lines.joined(separator: "\n"))
        XCTAssertEqual(result.exitStatus, .success)
    }

    func testQuality84AgainstQuality80Passes() async throws {
        let (root, baseline) = try await sampleSet()
        let out = root + "/q84"
        _ = try await runThumbs([root + "/src"], out: out) { cover(&$0); $0.output.quality = 84 }
        try report("--quality 84 vs 80", out: out, baseline: baseline)
        let result = try verify(out, against: baseline)
        // Passes whole: sizes moved by more than 10%, and the settings
        // differ (a note), but by eye nothing changed.
        XCTAssertEqual(result.findings, [], result.lines.joined(separator: "\n"))
        XCTAssertEqual(result.exitStatus, .success)
        XCTAssertEqual(result.notes.count, 1)
        XCTAssertTrue(result.lines.contains { $0.hasPrefix("note: settings differ from the baseline:") && $0.contains("--quality 84") },
                      result.lines.joined(separator: "\n"))
    }

    func testLibvipsThumbnailAgainstThumbsOwnPasses() async throws {
        let (root, baseline) = try await sampleSet()
        let out = try copy(baseline)
        // Not the P3 photo: vips_thumbnail keeps its profile where thumbs
        // converts, which is the other test's business.
        for id in try ids(baseline) where id != "p3.jpg" {
            let file = root + "/vips-\(UUID().uuidString.prefix(8)).jpg"
            XCTAssertEqual(test_vips_thumbnail(root + "/src/" + id, file + "[Q=80,strip]", 256, 256, 1), 0)
            try replaceOutput(out, id, with: Data(contentsOf: URL(fileURLWithPath: file)))
        }
        try report("libvips thumbnail vs thumbs", out: out, baseline: baseline)
        let result = try verify(out, against: baseline)
        XCTAssertEqual(changedPixels(result), [], result.lines.joined(separator: "\n"))
    }

    func testResamplerTweakOfOneLevelPasses() async throws {
        let result = try await measure("every pixel one level up") { _, pixels in
            var tweaked = pixels
            for i in tweaked.bytes.indices where tweaked.bytes[i] < 255 { tweaked.bytes[i] += 1 }
            return tweaked
        }
        XCTAssertEqual(changedPixels(result), [], result.lines.joined(separator: "\n"))
    }

    // MARK: What must fail

    private func assertEveryOutputFails(_ result: VerifyResult, _ ids: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let failed = changedPixels(result)
        XCTAssertEqual(Set(failed.map(\.id)), Set(ids), result.lines.joined(separator: "\n"), file: file, line: line)
        XCTAssertEqual(result.exitStatus, .failures, file: file, line: line)
        for finding in failed {
            XCTAssertTrue(finding.line.hasPrefix("changed-pixels"), finding.line, file: file, line: line)
            XCTAssertTrue(finding.line.contains(" \(finding.id) 256: SSIM "), finding.line, file: file, line: line)
            XCTAssertTrue(finding.line.contains("colour ΔE"), finding.line, file: file, line: line)
        }
    }

    /// Orientation 3 lost: the same photo upside down, same dimensions.
    func testOrientationLostFails() async throws {
        let (_, baseline) = try await sampleSet()
        let result = try await measure("orientation 3 lost (180°)") { _, pixels in
            var turned = pixels
            let n = pixels.width * pixels.height
            for i in 0..<n { for c in 0..<3 { turned.bytes[3 * i + c] = pixels.bytes[3 * (n - 1 - i) + c] } }
            return turned
        }
        // square.tif, greyscale… every photo of the set has structure a flip shows.
        try assertEveryOutputFails(result, ids(baseline))
    }

    func testRedBlueSwappedFails() async throws {
        let (_, baseline) = try await sampleSet()
        let result = try await measure("red and blue swapped") { _, pixels in
            var swapped = pixels
            for i in stride(from: 0, to: pixels.bytes.count, by: 3) { swapped.bytes.swapAt(i, i + 2) }
            return swapped
        }
        // A grey photo has nothing to swap.
        try assertEveryOutputFails(result, ids(baseline).filter { $0 != "greyscale.jpg" })
    }

    /// The crop of a 256x256 cover box moved by 10% of the box (26 pixels)
    /// from the centre, cut from libvips' own 256-high thumbnail.
    func testCropMovedFails() async throws {
        let (root, baseline) = try await sampleSet()
        let out = try copy(baseline)
        var moved: [String] = []
        for id in try ids(baseline) where id != "p3.jpg" {
            let file = root + "/wide-\(UUID().uuidString.prefix(8)).png"
            XCTAssertEqual(test_vips_thumbnail(root + "/src/" + id, file, 100_000, 256, 0), 0)
            let wide = try SRGBPixels.decode(Data(contentsOf: URL(fileURLWithPath: file)))
            let left = (wide.width - 256) / 2 + 26
            guard wide.height == 256, left + 256 <= wide.width else { continue }
            var crop = SRGBPixels(width: 256, height: 256, bytes: [])
            for y in 0..<256 { crop.bytes += wide.bytes[(y * wide.width + left) * 3 ..< (y * wide.width + left + 256) * 3] }
            try replaceOutput(out, id, with: jpeg(crop))
            moved.append(id)
        }
        XCTAssertGreaterThanOrEqual(moved.count, 3, "landscape photos to move the crop of")
        try report("crop moved by 10% of the box", out: out, baseline: baseline)
        try assertEveryOutputFails(try verify(out, against: baseline), moved)
    }

    /// Colour management lost: the P3 photo's numbers read as sRGB.
    func testColourManagementLostFails() async throws {
        let (root, baseline) = try await sampleSet()
        let src = root + "/src-no-profile"
        try FileManager.default.createDirectory(atPath: src, withIntermediateDirectories: true)
        XCTAssertEqual(test_write_display_p3(Self.samples + "/landscape.jpg", src + "/p3.jpg", 0), 0)
        let lost = root + "/lost"
        _ = try await runThumbs([src], out: lost) { cover(&$0) }
        let out = try copy(baseline)
        try replaceOutput(out, "p3.jpg", with: Data(contentsOf: URL(fileURLWithPath: lost + "/" + output(lost, "p3.jpg").path)))
        try report("colour management lost (Display P3)", out: out, baseline: baseline)
        try assertEveryOutputFails(try verify(out, against: baseline), ["p3.jpg"])
    }

    func testAnotherPhotoFails() async throws {
        let (_, baseline) = try await sampleSet()
        let others = ["landscape.jpg": "cmyk.jpg", "cmyk.jpg": "wide.webp", "wide.webp": "landscape.jpg"]
        let result = try await measure("another photo") { id, _ in
            guard let other = others[id] else { return nil }
            return try output(baseline, other).pixels
        }
        try assertEveryOutputFails(result, Array(others.keys))
    }

    // MARK: --diff and --update

    /// One changed output: one side-by-side PNG of three panels, and an
    /// index.html that shows it with a slider, nothing fetched.
    func testDiffWritesTheImageAndTheIndex() async throws {
        let (root, baseline) = try await sampleSet()
        let out = try copy(baseline)
        var swapped = try output(baseline, "landscape.jpg").pixels
        for i in stride(from: 0, to: swapped.bytes.count, by: 3) { swapped.bytes.swapAt(i, i + 2) }
        try replaceOutput(out, "landscape.jpg", with: jpeg(swapped))
        let diff = root + "/diff-\(UUID().uuidString.prefix(8))"
        let result = try ManifestVerifier(manifestPath: out + "/manifest.json", baselinePath: baseline, diffFolder: diff).run()
        XCTAssertEqual(changedPixels(result).map(\.id), ["landscape.jpg"])
        let files = try FileManager.default.contentsOfDirectory(atPath: diff).sorted()
        XCTAssertEqual(files.count, 2, "\(files)")
        let png = try XCTUnwrap(files.first { $0.hasSuffix(".png") })
        let strip = try SRGBPixels.decode(Data(contentsOf: URL(fileURLWithPath: diff + "/" + png)))
        XCTAssertEqual(strip.width, 3 * 256 + 2 * DiffIndexPage.gap)
        XCTAssertEqual(strip.height, 256)
        let html = try String(contentsOfFile: diff + "/index.html", encoding: .utf8)
        XCTAssertTrue(html.contains("src=\"\(png)\""), html)
        XCTAssertTrue(html.contains("type=\"range\""), html)
        XCTAssertFalse(html.contains("http://") || html.contains("https://"), "index.html fetches nothing")
    }

    /// --update: the new outputs and manifest replace the baseline's, and
    /// the next check against it is clean; an output path that leads out of
    /// the run's folder refuses the update and writes nothing.
    func testUpdateMakesTheRunTheBaseline() async throws {
        let (root, baseline) = try await sampleSet()
        let base = try copy(baseline)
        let out = root + "/q90-\(UUID().uuidString.prefix(8))"
        _ = try await runThumbs([root + "/src"], out: out) { cover(&$0); $0.output.quality = 90 }
        let lines = try BaselineUpdate(manifestPath: out + "/manifest.json", baseline: BaselineLocation(base)).run()
        XCTAssertTrue(lines[0].contains("7 outputs replaced, 0 added"), lines.joined(separator: "\n"))
        XCTAssertEqual(try verify(out, against: base).findings, [])

        var hostile = try readManifest(out)
        hostile.items[0].outputs[0].path = "../../escape.jpg"
        try JSONCoding.encode(hostile).write(to: URL(fileURLWithPath: out + "/manifest.json"))
        let before = try Data(contentsOf: URL(fileURLWithPath: base + "/manifest.json"))
        let lastOutput = try XCTUnwrap(hostile.items.last?.outputs.first?.path)
        try Data("stays".utf8).write(to: URL(fileURLWithPath: base + "/" + lastOutput))
        XCTAssertThrowsError(try BaselineUpdate(manifestPath: out + "/manifest.json", baseline: BaselineLocation(base)).run()) { error in
            XCTAssertTrue((error as? RunError)?.message.contains("baseline not updated") == true, "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/../escape.jpg"))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: base + "/manifest.json")), before)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: base + "/" + lastOutput)), Data("stays".utf8), "no output written")
    }

    // MARK: A baseline that cannot be compared

    func testBaselineOutputMissingOrOutsideIsAFinding() async throws {
        let (root, baseline) = try await sampleSet()
        let base = try copy(baseline)
        var manifest = try readManifest(base)
        let gone = try XCTUnwrap(manifest.items.firstIndex { $0.id == "cmyk.jpg" })
        try FileManager.default.removeItem(atPath: base + "/" + manifest.items[gone].outputs[0].path)
        let outside = try XCTUnwrap(manifest.items.firstIndex { $0.id == "wide.webp" })
        try Data("secret".utf8).write(to: URL(fileURLWithPath: root + "/secret.jpg"))
        manifest.items[outside].outputs[0].path = "../secret.jpg"
        try JSONCoding.encode(manifest).write(to: URL(fileURLWithPath: base + "/manifest.json"))
        let result = try verify(try copy(baseline), against: base + "/manifest.json")
        let kinds = Dictionary(grouping: result.findings, by: \.id).mapValues { $0.map(\.kind) }
        XCTAssertEqual(kinds["cmyk.jpg"], [.baselineMissingOutput], result.lines.joined(separator: "\n"))
        XCTAssertEqual(kinds["wide.webp"], [.baselineOutsideFolder], result.lines.joined(separator: "\n"))
    }
}
