import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// A run over millions keeps what must be looked up across all its items in
/// files under OUT/.thumbs/tmp (look-alike hashes, finished duplicates,
/// output paths for --prune, the previous run's index) once they pass
/// `SpillLimit`. `THUMBS_IN_MEMORY_LIMIT=0` sends a run of a few images
/// down those paths: it must write what the in-memory run writes, and
/// leave no scratch file behind.
final class BoundedMemoryRunTests: TemporaryFolderTestCase {
    private var source: String { root + "/in" }

    override func setUp() {
        super.setUp()
        // One gradient at several sizes: look-alikes of one another.
        for (i, width) in [96, 120, 160, 200, 240, 280].enumerated() {
            TestImages.write(source + "/g\(i).jpg", width: width, height: width * 3 / 4)
        }
        // Identical bytes: decoded once, the others duplicates.
        try? FileManager.default.copyItem(atPath: source + "/g2.jpg", toPath: source + "/copy-a.jpg")
        try? FileManager.default.copyItem(atPath: source + "/g2.jpg", toPath: source + "/copy-b.jpg")
        try? Data("not an image".utf8).write(to: URL(fileURLWithPath: source + "/broken.jpg"))
    }

    override func tearDown() {
        unsetenv("THUMBS_IN_MEMORY_LIMIT")
        super.tearDown()
    }

    private func run(into out: String, onDisk: Bool, _ configure: (inout RunOptions) -> Void = { _ in }) async throws -> ThumbsRun.Outcome {
        if onDisk { setenv("THUMBS_IN_MEMORY_LIMIT", "0", 1) } else { unsetenv("THUMBS_IN_MEMORY_LIMIT") }
        defer { unsetenv("THUMBS_IN_MEMORY_LIMIT") }
        return try await runThumbs([source], out: out) {
            $0.size([64, 32])
            configure(&$0)
        }
    }

    /// Items without what differs from run to run: the time taken, and
    /// which of identical files leads (the first to be hashed: a race).
    private func items(_ out: String) throws -> [ManifestItem] {
        try readManifest(out).items.map { item in
            var item = item
            item.ms = 0
            if item.status == .duplicate { item.status = .ok }
            item.duplicateOf = nil
            return item
        }
    }

    private func lookalikeSection(_ out: String) throws -> String {
        let html = try String(contentsOfFile: out + "/report.html", encoding: .utf8)
        let start = try XCTUnwrap(html.range(of: "<section id=lookalikes>"))
        let end = try XCTUnwrap(html.range(of: "</section>", range: start.upperBound..<html.endIndex))
        return String(html[start.lowerBound..<end.upperBound]).replacingOccurrences(of: "<li class=dup>", with: "<li>")
    }

    private func scratchFiles(_ out: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: out + "/.thumbs/tmp")) ?? []
    }

    func testTheOnDiskPathsWriteWhatTheInMemoryOnesWrite() async throws {
        let memory = root + "/memory", disk = root + "/disk"
        let a = try await run(into: memory, onDisk: false)
        let b = try await run(into: disk, onDisk: true)
        XCTAssertEqual(a.status, .failures)
        XCTAssertEqual(b.status, .failures)
        let expected = try items(memory)
        XCTAssertEqual(expected.count, 9)
        XCTAssertEqual(try readManifest(memory).items.filter { $0.status == .duplicate }.count, 2, "the copies follow their leader")
        XCTAssertEqual(try readManifest(disk).items.filter { $0.status == .duplicate }.count, 2, "the copies follow their leader")
        XCTAssertGreaterThanOrEqual(expected.filter { $0.similarTo != nil }.count, 2, "the gradients are look-alikes")
        XCTAssertEqual(try items(disk), expected)
        XCTAssertEqual(a.statistics?.counts, b.statistics?.counts)
        XCTAssertEqual(a.statistics?.similar, b.statistics?.similar)
        XCTAssertEqual(try lookalikeSection(disk), try lookalikeSection(memory))
        XCTAssertEqual(scratchFiles(disk), [], "nothing left in OUT/.thumbs/tmp")

        // A no-op re-run reads the previous run through its index (a file
        // under the limit): everything unchanged, the same records.
        let again = try await run(into: disk, onDisk: true)
        XCTAssertEqual(again.statistics?.counts.unchanged, 8)
        XCTAssertEqual(try items(disk).map(\.id), expected.map(\.id))
        XCTAssertEqual(try items(disk).map(\.similarTo), expected.map(\.similarTo))
        XCTAssertEqual(scratchFiles(disk), [])

        // Sources gone: found unseen in the index, pruned, and a path that
        // a remaining item records is kept.
        try FileManager.default.removeItem(atPath: source + "/g5.jpg")
        try FileManager.default.removeItem(atPath: source + "/copy-b.jpg")
        for out in [memory, disk] {
            let pruned = try await run(into: out, onDisk: out == disk) {
                $0.prune = true
                $0.maxPrune = .percent(50)
            }
            XCTAssertEqual(try readManifest(out).gone, ["copy-b.jpg", "g5.jpg"], out)
            XCTAssertEqual(pruned.header?.run?.gone, 2, out)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/64/g5.jpg"), out)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/64/copy-b.jpg"), out)
            XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/64/copy-a.jpg"), out)
        }
        XCTAssertEqual(try items(disk).map(\.id), try items(memory).map(\.id))
        XCTAssertEqual(scratchFiles(disk), [])
    }

    /// A run killed part way with the on-disk paths, then finished: the
    /// journal's records are indexed with the manifest's.
    func testAnInterruptedRunResumesThroughTheIndex() async throws {
        let out = root + "/out"
        setenv("THUMBS_IN_MEMORY_LIMIT", "0", 1)
        var options = RunOptions(sources: [source], outputDirectory: out)
        options.jobs = 1
        options.progress = .never
        options.verbosity = .quiet
        let interrupt = InterruptSignal()
        interrupt.raise()
        let first = try await ThumbsRun(options: options, interrupt: interrupt).run()
        XCTAssertEqual(first.status, .interrupted)
        let partial = try readManifest(out).items.filter { $0.status != .failed }.map(\.id)
        XCTAssertGreaterThan(partial.count, 0)
        let resumed = try await run(into: out, onDisk: true) { $0.size([256]) }
        XCTAssertEqual(resumed.statistics?.counts.discovered, 9)
        let manifest = try readManifest(out)
        for id in partial {
            XCTAssertEqual(manifest.item(id)?.status, .unchanged, id)
        }
    }

    /// The previous run's index is made from manifest.json and the journal
    /// by every run and deleted at its end, never read from an earlier run:
    /// leftovers of a killed run (a truncated index, a spool cut short) are
    /// swept, and a manifest changed since the last run is what counts.
    func testTheIndexIsNeverTrustedAcrossRuns() async throws {
        let out = root + "/out"
        _ = try await run(into: out, onDisk: true)
        let tmp = out + "/.thumbs/tmp"
        XCTAssertEqual(scratchFiles(out), [], "the index goes with its run")

        // What a `kill -9` would leave: a damaged index and a spool cut short.
        let manifestBytes = try Data(contentsOf: URL(fileURLWithPath: out + "/manifest.json"))
        try manifestBytes.prefix(100).write(to: URL(fileURLWithPath: tmp + "/previous-0000.sqlite"))
        try Data("SQLite format 3\0".utf8).write(to: URL(fileURLWithPath: tmp + "/previous-0001.sqlite"))
        try Data("12 {\"id\": \"g0.jpg\"".utf8).write(to: URL(fileURLWithPath: tmp + "/run-items-0002.ndjson"))
        // manifest.json edited since: g3.jpg's record is gone from it, so
        // the index made from it cannot know g3.jpg.
        var manifest = try readManifest(out)
        manifest.items.removeAll { $0.id == "g3.jpg" }
        try ManifestWriter.encode(manifest).write(to: URL(fileURLWithPath: out + "/manifest.json"))

        let again = try await run(into: out, onDisk: true)
        XCTAssertEqual(again.statistics?.counts.unchanged, 7)
        XCTAssertEqual(again.statistics?.counts.ok, 1, "only g3.jpg is made again")
        let items = try readManifest(out).items
        XCTAssertEqual(items.first { $0.id == "g3.jpg" }?.status, .ok)
        XCTAssertEqual(items.count, 9)
        XCTAssertEqual(scratchFiles(out), [], "a killed run's leftovers are swept")
    }
}

