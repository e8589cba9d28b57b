import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// What a power cut can undo is decided by the order of fsync, rename and
/// unlink (SQLite's and PostgreSQL's rule): a file is flushed, renamed into
/// place, its folder flushed, and only then is anything that relies on the
/// new name done. A whole run, with every such step it takes recorded
/// (`DurableSteps`).
final class DurableOrderTests: TemporaryFolderTestCase {
    func testEveryFileIsFlushedUnderItsNameBeforeTheJournalIsRemoved() async throws {
        for i in 0..<3 {
            TestImages.write(root + "/in/p\(i).jpg", width: 320, height: 240)
        }
        let real = URL(fileURLWithPath: root).resolvingSymlinksInPath().path
        let out = real + "/out"
        let recorded = RecordedSteps()
        DurableSteps.watch { step in
            let paths: [String]
            switch step {
            case .synchronise(let path), .remove(let path): paths = [path]
            case .rename(let from, let to): paths = [from, to]
            }
            if paths.contains(where: { $0.hasPrefix(out + "/") || $0 == out }) { recorded.append(step) }
        }
        let outcome: ThumbsRun.Outcome
        do {
            defer { DurableSteps.watch(nil) }
            outcome = try await runThumbs([root + "/in"], out: out) { $0.size([64, 128]) }
        }
        XCTAssertEqual(outcome.status, .success)
        let steps = recorded.steps
        let journal = out + "/.thumbs/journal.ndjson"

        // The journal's name is flushed in .thumbs when it is created, and
        // its lines before the manifest replaces it.
        let journalCreated = try XCTUnwrap(steps.firstIndex(of: .synchronise(out + "/.thumbs")), "\(steps)")
        let journalFlushed = try XCTUnwrap(steps.lastIndex(of: .synchronise(journal)), "the journal is never flushed: \(steps)")
        let removal = try XCTUnwrap(steps.firstIndex(of: .remove(journal)), "\(steps)")
        XCTAssertEqual(steps.filter { $0 == .remove(journal) }.count, 1)

        let manifestRename = try XCTUnwrap(steps.firstIndex { if case .rename(_, out + "/manifest.json") = $0 { true } else { false } })

        // Thumbnails, then manifest, stats and report: each flushed, renamed,
        // its folder flushed (a thumbnail's in a batch: `WrittenFolders`,
        // before the journal's last flush and the manifest).
        var finals = ["manifest.json", "stats.json", "report.html"].map { out + "/" + $0 }
        finals += ["64", "128"].flatMap { size in (0..<3).map { out + "/\(size)/p\($0).jpg" } }
        for final in finals {
            guard let rename = steps.firstIndex(where: { if case .rename(_, final) = $0 { true } else { false } }),
                  case .rename(let temp, _) = steps[rename]
            else {
                XCTFail("\(final) was never renamed into place: \(steps)")
                continue
            }
            let flushed = steps[..<rename].firstIndex(of: .synchronise(temp))
            XCTAssertNotNil(flushed, "\(final): the file is flushed before its rename")
            let folder = (final as NSString).deletingLastPathComponent
            let folderFlushed = steps[(rename + 1)...].firstIndex(of: .synchronise(folder))
            XCTAssertNotNil(folderFlushed, "\(final): its folder is flushed after the rename")
            if final.hasSuffix(".json") || final.hasSuffix(".html"), let folderFlushed {
                XCTAssertLessThan(folderFlushed, removal, "\(final) is on the disk under its name before the journal goes")
            } else if let folderFlushed {
                XCTAssertLessThan(folderFlushed, journalFlushed, "\(final) is on the disk under its name before the journal's last flush")
                XCTAssertLessThan(folderFlushed, manifestRename, "\(final) is on the disk under its name before the manifest")
            }
            if final.hasSuffix("manifest.json") {
                XCTAssertLessThan(journalFlushed, rename, "the journal's lines are flushed before the manifest replaces it")
                XCTAssertLessThan(journalCreated, rename)
            }
        }
    }
}

/// Steps recorded from several threads, in the order they were taken.
private final class RecordedSteps: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [DurableSteps.Step] = []
    var steps: [DurableSteps.Step] { lock.withLock { list } }
    func append(_ step: DurableSteps.Step) { lock.withLock { list.append(step) } }
}
