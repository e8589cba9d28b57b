import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Thumbnails' folders are flushed in a batch (`WrittenFolders`): each file
/// is still flushed before its rename, and each folder once per batch,
/// before the journal's lines that record its files are.
final class WrittenFoldersTests: TemporaryFolderTestCase {
    var temporary: String { root + "/tmp" }

    override func setUp() {
        super.setUp()
        try? FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
    }

    func testEachFolderIsFlushedOncePerBatchAfterItsRenames() throws {
        let out = root + "/out"
        for folder in ["256", "256/b", "1024"] {
            try FileManager.default.createDirectory(atPath: out + "/" + folder, withIntermediateDirectories: true)
        }
        let folders = WrittenFolders()
        let writer = AtomicFile(temporaryDirectory: temporary, root: out, writtenFolders: folders)
        let steps = DurableStepLog(under: root)
        defer { steps.stop() }
        for path in ["256/a.jpg", "256/c.jpg", "256/b/d.jpg", "1024/a.jpg", "256/e.jpg"] {
            try writer.write(Data(path.utf8), to: out + "/" + path)
        }
        let written = steps.steps
        XCTAssertEqual(written.count, 10, "a flush and a rename per file, no folder yet: \(written)")
        XCTAssertFalse(written.contains { if case .synchronise(let path) = $0 { !path.hasPrefix(temporary) } else { false } },
                       "no folder is flushed before the batch: \(written)")
        XCTAssertEqual(folders.count, 3)

        try folders.flush()
        let flushed = Array(steps.steps.dropFirst(written.count))
        XCTAssertEqual(flushed, ["1024", "256", "256/b"].map { DurableSteps.Step.synchronise(out + "/" + $0) }, "in the order of their paths")
        XCTAssertEqual(flushed.count, 3, "each folder once: \(flushed)")
        XCTAssertEqual(folders.count, 0)

        try folders.flush()
        XCTAssertEqual(steps.steps.count, written.count + 3, "nothing written since: nothing to flush")
        try writer.write(Data("again".utf8), to: out + "/256/a.jpg")
        try folders.flush()
        XCTAssertEqual(steps.steps.last, .synchronise(out + "/256"), "a new batch flushes its folder again")
        XCTAssertEqual(FileManager.default.contents(atPath: out + "/256/a.jpg"), Data("again".utf8))
    }

    /// Past `heldOpen` folders, a folder is flushed at once instead of held
    /// open: a batch of one photo per folder does not run out of descriptors.
    func testFoldersPastTheHeldLimitAreFlushedAtOnce() throws {
        let out = root + "/out"
        let count = WrittenFolders.heldOpen + 3
        for k in 0..<count { try FileManager.default.createDirectory(atPath: out + "/f\(k)", withIntermediateDirectories: true) }
        let folders = WrittenFolders()
        let writer = AtomicFile(temporaryDirectory: temporary, root: out, writtenFolders: folders)
        let steps = DurableStepLog(under: out)
        defer { steps.stop() }
        for k in 0..<count { try writer.write(Data("x".utf8), to: out + "/f\(k)/a.jpg") }
        XCTAssertEqual(folders.count, WrittenFolders.heldOpen)
        let atOnce = steps.steps.compactMap { if case .synchronise(let path) = $0 { path } else { nil } }
        XCTAssertEqual(atOnce, (WrittenFolders.heldOpen..<count).map { out + "/f\($0)" })
        try folders.flush()
        XCTAssertEqual(folders.count, 0)
    }

    /// The journal flushes the batch before its own lines: a line on the
    /// disk never records a thumbnail whose folder was not flushed first.
    func testTheJournalFlushesTheFoldersBeforeItsLines() throws {
        let out = root + "/out"
        try FileManager.default.createDirectory(atPath: out + "/256", withIntermediateDirectories: true)
        let folders = WrittenFolders()
        let writer = AtomicFile(temporaryDirectory: temporary, root: out, writtenFolders: folders)
        let journalPath = root + "/journal.ndjson"
        let journal = Journal(path: journalPath, thumbnailFolders: folders)
        try journal.open(settings: OutputSettings(), keepExisting: false)
        let steps = DurableStepLog(under: root)
        defer { steps.stop() }
        try writer.write(Data("a".utf8), to: out + "/256/a.jpg")
        journal.append(PreviousRunTests.item("a.jpg"))
        journal.synchronise()
        let recorded = steps.steps
        let folderFlushed = try XCTUnwrap(recorded.firstIndex(of: .synchronise(out + "/256")), "\(recorded)")
        let linesFlushed = try XCTUnwrap(recorded.firstIndex(of: .synchronise(journalPath)), "\(recorded)")
        XCTAssertLessThan(folderFlushed, linesFlushed)
        XCTAssertNil(journal.failure)
    }
}
