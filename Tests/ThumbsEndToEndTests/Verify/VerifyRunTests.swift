import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

final class VerifyRunTests: XCTestCase {
    /// One real run shared by the tests: each copies its OUT and damages the copy.
    nonisolated(unsafe) static var pristine: String?
    nonisolated(unsafe) static var root: String?

    override class func tearDown() {
        if let root { try? FileManager.default.removeItem(atPath: root) }
        super.tearDown()
    }

    private func freshRun() async throws -> String {
        if Self.pristine == nil {
            let root = TestImages.temporaryDirectory("VerifyTests")
            Self.root = root
            TestImages.write(root + "/src/a.jpg", width: 200, height: 150)
            TestImages.write(root + "/src/b.png", width: 90, height: 160)
            TestImages.write(root + "/src/c/d.webp", width: 50, height: 40)
            _ = try await runThumbs([root + "/src"], out: root + "/pristine") {
                $0.output.sizes = [ThumbSize(width: 64, height: 64), ThumbSize(parsing: "100x40")!]
            }
            Self.pristine = root + "/pristine"
        }
        let copy = Self.root! + "/out-\(UUID().uuidString.prefix(8))"
        try FileManager.default.copyItem(atPath: Self.pristine!, toPath: copy)
        return copy
    }

    private func verify(_ out: String, against baseline: String? = nil) throws -> VerifyResult {
        try ManifestVerifier(manifestPath: out + "/manifest.json", baselinePath: baseline).run()
    }

    private func rewriteManifest(_ out: String, _ change: (inout Manifest) -> Void) throws {
        var manifest = try readManifest(out)
        change(&manifest)
        try JSONCoding.encode(manifest).write(to: URL(fileURLWithPath: out + "/manifest.json"))
    }

    func testCleanRunHasNoFindings() async throws {
        let out = try await freshRun()
        let result = try verify(out)
        XCTAssertEqual(result.findings, [])
        XCTAssertEqual(result.items, 3)
        XCTAssertEqual(result.outputs, 6)
        XCTAssertEqual(result.exitStatus, .success)
        XCTAssertEqual(result.lines.count, 1)
        // The sources were read whole: as many bytes read as they hold.
        let held = ReportFormat.bytes(try readManifest(out).items.compactMap(\.bytes).reduce(0, +))
        XCTAssertEqual(result.lines.first, "verify: ok, 3 items, 6 outputs checked; read \(held) of \(held)")
        // Against itself: still clean.
        XCTAssertEqual(try verify(out, against: out + "/manifest.json").findings, [])
    }

    func testDeletedOutputIsOneFinding() async throws {
        let out = try await freshRun()
        let manifest = try readManifest(out)
        let path = try XCTUnwrap(manifest.item("b.png")?.outputs.first?.path)
        try FileManager.default.removeItem(atPath: out + "/" + path)
        let result = try verify(out)
        XCTAssertEqual(result.findings.map(\.kind), [.missingOutput])
        XCTAssertEqual(result.findings.first?.id, "b.png")
        XCTAssertEqual(result.findings.first?.path, path)
        XCTAssertEqual(result.exitStatus, .failures)
        XCTAssertEqual(result.lines.count, 2)
        XCTAssertTrue(result.lines[0].contains("b.png: \(path) does not exist"), result.lines[0])
        XCTAssertTrue(result.lines[1].hasPrefix("verify: 1 finding (1 in the outputs)"), result.lines[1])
    }

    func testAlteredByteIsOneFinding() async throws {
        let out = try await freshRun()
        let path = try XCTUnwrap(readManifest(out).item("a.jpg")?.outputs.first?.path)
        let url = URL(fileURLWithPath: out + "/" + path)
        var bytes = try Data(contentsOf: url)
        bytes[bytes.count - 20] ^= 0x55  // in the entropy-coded data, before the end marker
        try bytes.write(to: url)
        let result = try verify(out)
        XCTAssertEqual(result.findings.map(\.kind), [.hashMismatch])
        XCTAssertEqual(result.findings.first?.id, "a.jpg")
    }

    func testTruncatedOutputIsASizeMismatch() async throws {
        let out = try await freshRun()
        let path = try XCTUnwrap(readManifest(out).item("c/d.webp")?.outputs.last?.path)
        let url = URL(fileURLWithPath: out + "/" + path)
        try Data(contentsOf: url).prefix(10).write(to: url)
        let result = try verify(out)
        // Ten bytes of WebP: a size mismatch, and no header to read.
        XCTAssertEqual(result.findings.map(\.kind), [.sizeMismatch, .unreadableOutput])
    }

    func testRecordedDimensionsThatLieAreOneFinding() async throws {
        let out = try await freshRun()
        try rewriteManifest(out) { manifest in
            manifest.items[0].outputs[0].width += 1
        }
        let result = try verify(out)
        XCTAssertEqual(result.findings.map(\.kind), [.dimensionMismatch])
        XCTAssertTrue(result.findings[0].message.contains("the manifest says"), result.findings[0].message)
    }

    func testOutputLargerThanItsBox() async throws {
        let out = try await freshRun()
        let manifest = try readManifest(out)
        let output = try XCTUnwrap(manifest.item("b.png")?.outputs.first { $0.size == "100x40" })
        // Replace the thumbnail by a bigger image and record it faithfully:
        // only the box is wrong.
        TestImages.write(out + "/" + output.path, width: 120, height: 50)
        let data = try Data(contentsOf: URL(fileURLWithPath: out + "/" + output.path))
        try rewriteManifest(out) { manifest in
            let i = manifest.items.firstIndex { $0.id == "b.png" }!
            let o = manifest.items[i].outputs.firstIndex { $0.size == "100x40" }!
            manifest.items[i].outputs[o].width = 120
            manifest.items[i].outputs[o].height = 50
            manifest.items[i].outputs[o].bytes = Int64(data.count)
            manifest.items[i].outputs[o].sha256 = SHA256Hex.of(data)
        }
        let result = try verify(out)
        XCTAssertEqual(result.findings.map(\.kind), [.outsideBox])
        XCTAssertTrue(result.findings[0].message.contains("larger than its box 100×40"), result.findings[0].message)
    }

    func testMissingSizeAndHostileIdStayOneLine() async throws {
        let out = try await freshRun()
        try rewriteManifest(out) { manifest in
            manifest.items[1].id = "evil\nid\u{1b}[31m"
            manifest.items[1].outputs.removeLast()
        }
        let result = try verify(out)
        XCTAssertEqual(result.findings.map(\.kind), [.missingSize])
        XCTAssertEqual(result.lines[0].split(separator: "\n").count, 1)
        XCTAssertTrue(result.lines[0].contains("evil\\nid\\u{1b}[31m: no output for size 100x40"), result.lines[0])
    }

    /// Against a baseline: an item added, one missing, a status change,
    /// changed dimensions, and an output more than 10% bigger.
    func testAgainstBaseline() async throws {
        let dir = TestImages.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let src = dir + "/src"
        TestImages.write(src + "/keep.jpg", width: 120, height: 90)
        TestImages.write(src + "/gone.jpg", width: 100, height: 100)
        TestImages.write(src + "/breaks.jpg", width: 80, height: 60)
        TestImages.write(src + "/grows.jpg", width: 90, height: 120)
        TestImages.write(src + "/resized.png", width: 150, height: 50)
        let sizes = [ThumbSize(width: 64, height: 64)]
        _ = try await runThumbs([src], out: dir + "/baseline") { $0.output.sizes = sizes }

        // The baseline recorded a smaller output for keep.jpg: it has grown by more than 10% since.
        var baseline = try readManifest(dir + "/baseline")
        let keep = baseline.items.firstIndex { $0.id == "keep.jpg" }!
        baseline.items[keep].outputs[0].bytes = baseline.items[keep].outputs[0].bytes * 10 / 13
        let grows = baseline.items.firstIndex { $0.id == "grows.jpg" }!
        baseline.items[grows].outputs[0].bytes = baseline.items[grows].outputs[0].bytes * 100 / 105  // +5%: tolerated
        let baselinePath = dir + "/baseline/manifest.json"
        try JSONCoding.encode(baseline).write(to: URL(fileURLWithPath: baselinePath))

        try FileManager.default.removeItem(atPath: src + "/gone.jpg")
        TestImages.write(src + "/new.jpg", width: 70, height: 70)
        try Data("no longer a JPEG".utf8).write(to: URL(fileURLWithPath: src + "/breaks.jpg"))
        TestImages.write(src + "/resized.png", width: 50, height: 150)
        _ = try await runThumbs([src], out: dir + "/now") { $0.output.sizes = sizes }

        let result = try ManifestVerifier(manifestPath: dir + "/now/manifest.json", baselinePath: baselinePath).run()
        let found = Dictionary(grouping: result.findings, by: \.id).mapValues { $0.map(\.kind) }
        // keep.jpg's recorded size is 30% off, but its file is the
        // baseline's own: compared by eye, its size is no finding.
        XCTAssertEqual(found, [
            "breaks.jpg": [.statusChanged],
            "resized.png": [.sourceDimensionsChanged, .outputDimensionsChanged],
            "new.jpg": [.added],
            "gone.jpg": [.missing],
        ], result.lines.joined(separator: "\n"))
        XCTAssertEqual(result.exitStatus, .failures)
        let status = result.findings.first { $0.kind == .statusChanged }!
        XCTAssertTrue(status.message.hasPrefix("status ok → failed (unsupported) ("), status.message)
        let resized = result.findings.first { $0.kind == .sourceDimensionsChanged }!
        XCTAssertEqual(resized.message, "source is 50×150, was 150×50")
        XCTAssertTrue(result.summary.contains("5 findings (5 against \(baselinePath))"), result.summary)
    }
    /// Issue 27, point 7: an output path that leads outside the manifest's
    /// folder is a finding and is never opened. The outside files are exact
    /// copies of the thumbnails (a hash check would pass, so only a finding
    /// shows the path was refused), and one is a FIFO whose writer, blocked
    /// until someone opens it for reading, tells whether verify opened it.
    func testPathsLeadingOutsideAreFindingsAndNeverOpened() async throws {
        let out = try await freshRun()
        let manifest = try readManifest(out)
        let outside = Self.root! + "/outside-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        let outsideName = (outside as NSString).lastPathComponent
        let a = try XCTUnwrap(manifest.item("a.jpg")?.outputs.first)
        let b = try XCTUnwrap(manifest.item("b.png")?.outputs.first)
        let d = try XCTUnwrap(manifest.item("c/d.webp")?.outputs)
        for output in [a, b, d[0]] {
            try FileManager.default.copyItem(atPath: out + "/" + output.path,
                                             toPath: outside + "/" + output.path.replacingOccurrences(of: "/", with: "_"))
        }
        // c/d.webp's first output: the file replaced by a link to its copy.
        try FileManager.default.removeItem(atPath: out + "/" + d[0].path)
        try FileManager.default.createSymbolicLink(atPath: out + "/" + d[0].path,
                                                   withDestinationPath: outside + "/" + d[0].path.replacingOccurrences(of: "/", with: "_"))
        XCTAssertEqual(mkfifo(outside + "/fifo", 0o644), 0)
        try rewriteManifest(out) { manifest in
            let ia = manifest.items.firstIndex { $0.id == "a.jpg" }!
            manifest.items[ia].outputs[0].path = "../" + outsideName + "/" + a.path.replacingOccurrences(of: "/", with: "_")
            let ib = manifest.items.firstIndex { $0.id == "b.png" }!
            manifest.items[ib].outputs[0].path = outside + "/" + b.path.replacingOccurrences(of: "/", with: "_")
            let id = manifest.items.firstIndex { $0.id == "c/d.webp" }!
            manifest.items[id].outputs[1].path = "64/../../" + outsideName + "/fifo"
        }

        let writer = FIFOWriter(outside + "/fifo")
        let result = try verify(out)
        let openedDuringVerify = writer.finish()
        XCTAssertFalse(openedDuringVerify, "verify opened the FIFO outside the manifest's folder")

        XCTAssertEqual(result.findings.map(\.kind), [.outsideFolder, .outsideFolder, .outsideFolder, .outsideFolder],
                       result.lines.joined(separator: "\n"))
        XCTAssertEqual(result.findings.map(\.id), ["a.jpg", "b.png", "c/d.webp", "c/d.webp"])
        guard result.findings.count == 4 else { return }
        XCTAssertTrue(result.findings[0].message.contains("leads outside the manifest's folder"), result.findings[0].message)
        XCTAssertTrue(result.findings[2].message.contains("is a symbolic link"), result.findings[2].message)
        XCTAssertTrue(result.findings.allSatisfy { $0.message.contains("not open") }, result.lines.joined(separator: "\n"))
        XCTAssertEqual(result.exitStatus, .failures)
    }

    /// A folder on the way that is a link, even to a faithful copy, is not
    /// followed: every output below it is a finding.
    func testAFolderLinkedOutsideIsNotFollowed() async throws {
        let out = try await freshRun()
        let manifest = try readManifest(out)
        let outside = Self.root! + "/outside-\(UUID().uuidString.prefix(8))"
        try FileManager.default.moveItem(atPath: out + "/64", toPath: outside)
        try FileManager.default.createSymbolicLink(atPath: out + "/64", withDestinationPath: outside)
        let result = try verify(out)
        let below = manifest.items.flatMap(\.outputs).filter { $0.path.hasPrefix("64/") }.map(\.path)
        XCTAssertEqual(below.count, 3)
        XCTAssertEqual(result.findings.map(\.kind), [.outsideFolder, .outsideFolder, .outsideFolder], result.lines.joined(separator: "\n"))
        XCTAssertEqual(result.findings.compactMap(\.path), below)
        XCTAssertTrue(result.findings.allSatisfy { $0.message.contains("goes through the symbolic link 64") }, result.lines.joined(separator: "\n"))
    }
}

/// A writer blocked on a FIFO until some process opens it for reading: if
/// that happens before `finish()`, the FIFO was opened by someone else.
private final class FIFOWriter: @unchecked Sendable {
    private let path: String
    private let lock = NSLock()
    private var finishing = false
    private var openedEarly = false
    private let done = DispatchSemaphore(value: 0)

    init(_ path: String) {
        self.path = path
        Thread.detachNewThread { [self] in
            let fd = open(path, O_WRONLY | O_CLOEXEC)  // blocks until a reader comes
            lock.withLock { openedEarly = !finishing }
            if fd >= 0 { close(fd) }
            done.signal()
        }
    }

    /// Whether a reader came before this call; unblocks the writer.
    func finish() -> Bool {
        usleep(300_000)  // time for a reader that came during verify to be seen
        lock.withLock { finishing = true }
        let reader = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        done.wait()
        if reader >= 0 { close(reader) }
        return lock.withLock { openedEarly }
    }
}
