import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// The journal of finished items: appended line by line, read back only with
/// the settings it was written with, tolerant of a line cut by a crash.
/// Read back as a re-run reads it (`PreviousRun`: `JournalRecords`, then
/// `PreviousIndex`), with no manifest beside it.
final class JournalTests: TemporaryFolderTestCase {
    var path: String { root + "/journal.ndjson" }

    /// The records a re-run with `settings` finds in the journal at
    /// `journal`, in order.
    func records(_ settings: OutputSettings = OutputSettings(), at journal: String? = nil) -> [ManifestItem] {
        let previous = PreviousRun.load(manifestPath: root + "/no-manifest.json", journalPath: journal ?? path, settings: settings)
        var records: [ManifestItem] = []
        previous.forEachRecord { record, _ in records.append(record) }
        return records
    }

    static func item(_ id: String, bytes: Int64 = 10) -> ManifestItem {
        ManifestItem(id: id, source: "/in/" + id, status: .ok, sha256: "ab", bytes: bytes, format: "jpeg",
                     width: 40, height: 30, outputs: [], ms: 1, modified: 1_700_000_000.5)
    }

    func testAppendedItemsAreReadBackInOrder() throws {
        let settings = OutputSettings()
        let journal = Journal(path: path)
        try journal.open(settings: settings, keepExisting: false)
        journal.append(Self.item("a.jpg"))
        journal.append(Self.item("sub/b.png", bytes: 20))
        XCTAssertEqual(records(settings), [Self.item("a.jpg"), Self.item("sub/b.png", bytes: 20)])
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 3, "a header and one line per item")
        XCTAssertTrue(lines[0].contains("thumbs.journal/1"), String(lines[0]))
    }

    /// Issue 39, point 5: a record that cannot be encoded is not dropped in
    /// silence: it is a journal failure, which stops the run (exit 3).
    func testARecordThatCannotBeEncodedIsAJournalFailure() throws {
        let journal = Journal(path: path)
        try journal.open(settings: OutputSettings(), keepExisting: false)
        var bad = Self.item("nan.jpg")
        bad.ms = .nan
        journal.append(bad)
        let failure = try XCTUnwrap(journal.failure, "the record was dropped without a word")
        XCTAssertTrue(failure.contains("the record of nan.jpg cannot be written as JSON"), failure)
        XCTAssertTrue(failure.contains("ms"), failure)
        journal.append(Self.item("after.jpg"))
        XCTAssertEqual(records(), [], "nothing is written after a failure")
    }

    func testAJournalOfOtherSettingsIsIgnored() throws {
        let journal = Journal(path: path)
        try journal.open(settings: OutputSettings(), keepExisting: false)
        journal.append(Self.item("a.jpg"))
        var other = OutputSettings()
        other.quality = 90
        XCTAssertEqual(records(other), [])
        XCTAssertEqual(records(at: root + "/missing.ndjson"), [])
    }

    func testALineCutShortByACrashIsSkipped() throws {
        let settings = OutputSettings()
        let journal = Journal(path: path)
        try journal.open(settings: settings, keepExisting: false)
        journal.append(Self.item("a.jpg"))
        journal.append(Self.item("b.jpg"))
        // Cut the file in the middle of the last line, as kill -9 can.
        let data = try XCTUnwrap(FileManager.default.contents(atPath: path))
        try data.prefix(data.count - 20).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(records(settings).map(\.id), ["a.jpg"])
    }

    func testReopeningKeepsOrTruncates() throws {
        let settings = OutputSettings()
        let first = Journal(path: path)
        try first.open(settings: settings, keepExisting: false)
        first.append(Self.item("a.jpg"))
        let resumed = Journal(path: path)
        try resumed.open(settings: settings, keepExisting: true)
        resumed.append(Self.item("b.jpg"))
        XCTAssertEqual(records(settings).map(\.id), ["a.jpg", "b.jpg"], "one header, both items")
        let headers = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "thumbs.journal/1").count - 1
        XCTAssertEqual(headers, 1)
        let fresh = Journal(path: path)
        try fresh.open(settings: settings, keepExisting: false)
        XCTAssertEqual(records(settings), [])
        fresh.remove()
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
    }

    func testALinkAtTheJournalsPathIsRefused() throws {
        let target = root + "/elsewhere.txt"
        try Data("precious\n".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        XCTAssertThrowsError(try Journal(path: path).open(settings: OutputSettings(), keepExisting: true)) { error in
            XCTAssertEqual((error as? RunError)?.exitCode, .fatal)
            XCTAssertTrue((error as? RunError)?.message.contains("cannot write the journal") == true, "\(error)")
        }
        XCTAssertEqual(try String(contentsOfFile: target, encoding: .utf8), "precious\n")
    }

    /// A journal that cannot be written is never silent: on /dev/full every
    /// write fails with ENOSPC, and opening it (which writes the header)
    /// ends the run with exit 3 and the system's reason.
    func testAJournalOnAFullDiskIsAFailureNotASilence() throws {
        let journal = Journal(path: "/dev/full")
        XCTAssertThrowsError(try journal.open(settings: OutputSettings(), keepExisting: false)) { error in
            XCTAssertEqual((error as? RunError)?.exitCode, .fatal)
            XCTAssertEqual((error as? RunError)?.message, "cannot write the journal /dev/full: \(String(cString: strerror(ENOSPC)))")
        }
        XCTAssertNotNil(journal.failure)
    }

    /// Lines are flushed in batches: due after `syncLines` lines (or a
    /// second), not before; a flush resets the count.
    func testLinesAreFlushedInBatches() throws {
        let journal = Journal(path: path)
        try journal.open(settings: OutputSettings(), keepExisting: false)
        let steps = DurableStepLog(under: root)
        defer { steps.stop() }
        XCTAssertFalse(journal.needsSync, "the header was flushed by open")
        for i in 0..<(Journal.syncLines - 1) { journal.append(Self.item("\(i).jpg")) }
        // Well within a second of the open on any machine that runs tests.
        XCTAssertFalse(journal.needsSync)
        journal.append(Self.item("last.jpg"))
        XCTAssertTrue(journal.needsSync)
        XCTAssertEqual(steps.steps, [], "appending never waits on the disk")
        journal.synchronise()
        XCTAssertFalse(journal.needsSync)
        XCTAssertEqual(steps.steps, [.synchronise(URL(fileURLWithPath: path).resolvingSymlinksInPath().path)])
        XCTAssertNil(journal.failure)
        XCTAssertEqual(records().count, Journal.syncLines)
    }
}
