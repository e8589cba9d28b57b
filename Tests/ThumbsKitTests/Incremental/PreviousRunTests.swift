import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// What a re-run may skip: the last manifest and the journal of an
/// interrupted run, read with the current settings, and a source that has
/// not changed with outputs still intact.
final class PreviousRunTests: TemporaryFolderTestCase {
    var manifestPath: String { root + "/manifest.json" }
    var journalPath: String { root + "/journal.ndjson" }

    static func item(_ id: String, status: ItemStatus = .ok, bytes: Int64 = 100, modified: Double = 1_700_000_000,
                     outputs: [ManifestOutput] = []) -> ManifestItem {
        ManifestItem(id: id, source: "/in/" + id, status: status, sha256: "ab", bytes: bytes, format: "jpeg",
                     width: 40, height: 30, outputs: outputs, ms: 1, modified: modified)
    }

    private func writeManifest(_ items: [ManifestItem], settings: OutputSettings = OutputSettings()) throws {
        let manifest = Manifest(tool: .init(libvips: "8.14.1"), startedAt: "s", finishedAt: "f", settings: settings, items: items)
        try ManifestWriter.encode(manifest).write(to: URL(fileURLWithPath: manifestPath))
    }

    private func load(_ settings: OutputSettings = OutputSettings()) -> PreviousRun {
        PreviousRun.load(manifestPath: manifestPath, journalPath: journalPath, settings: settings)
    }

    /// The ids of every record, in order (`forEachRecord`, as `OutputPruner` reads them).
    private func ids(_ previous: PreviousRun) -> [String] {
        var ids: [String] = []
        previous.forEachRecord { record, _ in ids.append(record.id) }
        return ids
    }

    private func file(_ id: String, size: Int64 = 100, modified: Double = 1_700_000_000) -> SourceItem {
        SourceItem(id: id, source: "/in/" + id, origin: .file(path: "/in/" + id, size: size, modified: modified))
    }

    func testNothingBeforeIsAFirstRun() {
        let previous = load()
        XCTAssertEqual(previous.count, 0)
        XCTAssertTrue(previous.settingsMatch)
        XCTAssertFalse(previous.resumed)
        XCTAssertNil(previous.unreadableManifest)
    }

    func testTheManifestIsUsedOnlyWithTheSameSettings() throws {
        try writeManifest([Self.item("a.jpg"), Self.item("b.jpg")])
        let same = load()
        XCTAssertTrue(same.settingsMatch)
        XCTAssertEqual(ids(same), ["a.jpg", "b.jpg"])
        XCTAssertEqual(same.record(for: "b.jpg"), Self.item("b.jpg"))
        var other = OutputSettings()
        other.quality = 50
        let changed = load(other)
        XCTAssertFalse(changed.settingsMatch)
        XCTAssertNil(changed.unchangedSource(file("a.jpg")), "other settings: everything is redone")
        XCTAssertNil(changed.record(for: "b.jpg"), "no record is reused")
        // Issue 39, point 1: still known, for what is gone and what is no
        // longer produced.
        XCTAssertEqual(changed.count, 2)
        var known: [String] = []
        changed.forEachRecord { record, seen in known.append(record.id + (seen ? " seen" : "")) }
        XCTAssertEqual(known, ["a.jpg seen", "b.jpg seen"])
        let forced = PreviousRun.load(manifestPath: manifestPath, journalPath: journalPath, settings: OutputSettings(), force: true)
        XCTAssertNil(forced.record(for: "a.jpg"), "--force reuses no record")
        XCTAssertEqual(forced.count, 2)
    }

    func testJournalRecordsWinAndNewOnesFollowTheManifestsOrder() throws {
        try writeManifest([Self.item("a.jpg"), Self.item("b.jpg")])
        let journal = Journal(path: journalPath)
        try journal.open(settings: OutputSettings(), keepExisting: false)
        journal.append(Self.item("b.jpg", bytes: 222))
        journal.append(Self.item("c.jpg"))
        let previous = load()
        XCTAssertTrue(previous.resumed)
        XCTAssertEqual(ids(previous), ["a.jpg", "b.jpg", "c.jpg"])
        XCTAssertEqual(previous.record(for: "b.jpg")?.bytes, 222)
    }

    func testAnUnchangedSourceIsOneWithTheSameSizeAndTime() throws {
        try writeManifest([Self.item("a.jpg"), Self.item("broken.jpg", status: .failed)])
        let previous = load()
        XCTAssertEqual(previous.unchangedSource(file("a.jpg"))?.id, "a.jpg")
        XCTAssertNil(previous.unchangedSource(file("a.jpg", size: 101)), "size changed")
        XCTAssertNil(previous.unchangedSource(file("a.jpg", modified: 1_700_000_001)), "modified since")
        XCTAssertNil(previous.unchangedSource(file("broken.jpg")), "failures are retried")
        XCTAssertNil(previous.unchangedSource(file("new.jpg")), "not in the manifest")
        let remote = SourceItem(id: "a.jpg", source: "http://h/a.jpg", origin: .remote(url: "http://h/a.jpg", meta: EntryMeta([:], url: nil)))
        XCTAssertNil(previous.unchangedSource(remote), "remote sources are not judged by size and time")
    }

    /// Returns once a file written now gets a later status change time than
    /// `path`'s. The kernel stamps files from a coarse clock (a few ms), so
    /// an output rewritten in the manifest's own tick carries the manifest's
    /// change time, which `RecordedOutput.matches` reads as "not changed
    /// since": the rewrite below must come after that tick, as a user's would.
    private func waitForAChangeTimeAfter(_ path: String) throws {
        let settled = try XCTUnwrap(FileInfo.of(pathBytes: Array(path.utf8), followLinks: false)).changed
        let probe = root + "/tick-probe"
        for _ in 0..<100_000 {
            try Data().write(to: URL(fileURLWithPath: probe))
            if let info = FileInfo.of(pathBytes: Array(probe.utf8), followLinks: false), info.changed > settled { return }
        }
        XCTFail("no file written got a change time after \(path)'s")
    }

    func testOutputsMustStillBeThereWithTheirRecordedBytes() throws {
        let out = try OutputDirectory(path: root + "/out", synchronise: false)
        let bytes = Data("a thumbnail".utf8)
        try FileManager.default.createDirectory(atPath: out.absolute("256"), withIntermediateDirectories: true)
        try bytes.write(to: URL(fileURLWithPath: out.absolute("256/a.jpg")))
        let output = ManifestOutput(size: "256", path: "256/a.jpg", width: 4, height: 3, bytes: Int64(bytes.count),
                                    format: "jpeg", sha256: SHA256Hex.of(bytes))
        try writeManifest([Self.item("a.jpg", outputs: [output])])
        let previous = load()
        XCTAssertEqual(previous.unchangedRecord(for: file("a.jpg"), expectedPaths: { _ in ["256/a.jpg"] }, out: out)?.id, "a.jpg")
        XCTAssertNil(previous.unchangedRecord(for: file("a.jpg"), expectedPaths: { _ in ["512/a.jpg"] }, out: out), "other sizes asked")
        try waitForAChangeTimeAfter(manifestPath)
        try Data("a thumbnaiL".utf8).write(to: URL(fileURLWithPath: out.absolute("256/a.jpg")))
        XCTAssertNil(previous.unchangedRecord(for: file("a.jpg"), expectedPaths: { _ in ["256/a.jpg"] }, out: out), "same size, other bytes")
        try FileManager.default.removeItem(atPath: out.absolute("256/a.jpg"))
        XCTAssertNil(previous.unchangedRecord(for: file("a.jpg"), expectedPaths: { _ in ["256/a.jpg"] }, out: out), "output deleted")
    }

    /// A rewrite in the manifest's own clock tick carries the manifest's
    /// change time exactly: the same time proves nothing, so the output is
    /// hashed, and other bytes of the recorded size are caught.
    func testAnOutputChangedInTheManifestsOwnTickIsRead() throws {
        let path = root + "/same-tick.jpg"
        let recorded = Data("a thumbnail".utf8)
        try Data("a thumbnaiL".utf8).write(to: URL(fileURLWithPath: path))
        let changed = try XCTUnwrap(FileInfo.of(pathBytes: Array(path.utf8), followLinks: false)).changed
        let output = ManifestOutput(size: "256", path: "256/a.jpg", width: 4, height: 3, bytes: Int64(recorded.count),
                                    format: "jpeg", sha256: SHA256Hex.of(recorded))
        XCTAssertFalse(RecordedOutput.matches(output, at: path, settled: changed), "the manifest's own change time: read")
        let later = FileInfo.Instant(seconds: changed.seconds + 1, nanoseconds: changed.nanoseconds)
        XCTAssertTrue(RecordedOutput.matches(output, at: path, settled: later), "changed before the manifest: trusted unread")
        try recorded.write(to: URL(fileURLWithPath: path))
        let rewritten = try XCTUnwrap(FileInfo.of(pathBytes: Array(path.utf8), followLinks: false)).changed
        XCTAssertTrue(RecordedOutput.matches(output, at: path, settled: rewritten), "read, and the recorded bytes")
    }

    /// An output untouched since the manifest was written (its status change
    /// time is no later) is not read again: a change made before the
    /// manifest, which no run leaves, goes unseen by design, and shows that
    /// the file was not hashed. A change made after it is caught by the hash.
    func testOutputsUntouchedSinceTheManifestAreNotReadAgain() throws {
        let out = try OutputDirectory(path: root + "/out", synchronise: false)
        let path = out.absolute("256/a.jpg"), link = out.absolute("256/b.jpg")
        let bytes = Data("a thumbnail".utf8)
        try FileManager.default.createDirectory(atPath: out.absolute("256"), withIntermediateDirectories: true)
        try Data("a thumbnaiL".utf8).write(to: URL(fileURLWithPath: path))
        // b.jpg's output is a link to other bytes of the same size, also
        // older than the manifest.
        try Data("a thumbnaiL".utf8).write(to: URL(fileURLWithPath: root + "/elsewhere.jpg"))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: root + "/elsewhere.jpg")
        func output(_ name: String) -> ManifestOutput {
            ManifestOutput(size: "256", path: "256/\(name)", width: 4, height: 3, bytes: Int64(bytes.count),
                           format: "jpeg", sha256: SHA256Hex.of(bytes))
        }
        usleep(20_000)  // ctime ticks can be coarse: the manifest comes clearly later
        try writeManifest([Self.item("a.jpg", outputs: [output("a.jpg")]), Self.item("b.jpg", outputs: [output("b.jpg")])])
        let previous = load()
        XCTAssertNotNil(previous.outputsSettled)
        XCTAssertNil(previous.unchangedRecord(for: file("b.jpg"), expectedPaths: { _ in ["256/b.jpg"] }, out: out),
                     "a link is never trusted by its times: read, and other bytes")
        XCTAssertEqual(previous.unchangedRecord(for: file("a.jpg"), expectedPaths: { _ in ["256/a.jpg"] }, out: out)?.id, "a.jpg",
                       "written before the manifest and not touched since: trusted without a read")
        usleep(20_000)
        try Data("a thumbnaiX".utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertNil(previous.unchangedRecord(for: file("a.jpg"), expectedPaths: { _ in ["256/a.jpg"] }, out: out),
                     "rewritten after the manifest: hashed, and other bytes")
        try bytes.write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(previous.unchangedRecord(for: file("a.jpg"), expectedPaths: { _ in ["256/a.jpg"] }, out: out)?.id, "a.jpg",
                       "rewritten with the recorded bytes: the hash says so")
    }

    /// A journal line can reach the disk before the folder of the thumbnail
    /// it records is flushed (`WrittenFolders`): after a power cut the name
    /// may hold the older thumbnail of the same size, written before the
    /// manifest. A journal record's outputs are therefore read, whatever
    /// their times; a manifest record's older output is trusted unread.
    func testAJournalRecordsOutputsAreReadWhateverTheirTimes() throws {
        let out = try OutputDirectory(path: root + "/out", synchronise: false)
        try FileManager.default.createDirectory(atPath: out.absolute("256"), withIntermediateDirectories: true)
        let older = Data("a thumbnaiL".utf8), recorded = Data("a thumbnail".utf8)
        try older.write(to: URL(fileURLWithPath: out.absolute("256/a.jpg")))
        try older.write(to: URL(fileURLWithPath: out.absolute("256/b.jpg")))
        let output = { (name: String) in
            ManifestOutput(size: "256", path: "256/\(name)", width: 4, height: 3, bytes: Int64(recorded.count),
                           format: "jpeg", sha256: SHA256Hex.of(recorded))
        }
        usleep(20_000)  // ctime ticks can be coarse: the manifest comes clearly later
        try writeManifest([Self.item("a.jpg", outputs: [output("a.jpg")]), Self.item("b.jpg")])
        let journal = Journal(path: journalPath)
        try journal.open(settings: OutputSettings(), keepExisting: false)
        journal.append(Self.item("b.jpg", outputs: [output("b.jpg")]))
        let previous = load()
        XCTAssertNotNil(previous.outputsSettled)
        XCTAssertEqual(previous.unchangedRecord(for: file("a.jpg"), expectedPaths: { _ in ["256/a.jpg"] }, out: out)?.id, "a.jpg",
                       "the manifest's record: its output is older than the manifest, trusted unread")
        XCTAssertNil(previous.unchangedRecord(for: file("b.jpg"), expectedPaths: { _ in ["256/b.jpg"] }, out: out),
                     "the journal's record: its output is read, and holds other bytes")
        try recorded.write(to: URL(fileURLWithPath: out.absolute("256/b.jpg")))
        XCTAssertEqual(load().unchangedRecord(for: file("b.jpg"), expectedPaths: { _ in ["256/b.jpg"] }, out: out)?.id, "b.jpg",
                       "the journal's record with its bytes on the disk")
    }
}
