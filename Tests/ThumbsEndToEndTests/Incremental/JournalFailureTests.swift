import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// A journal write that fails (a full disk, an I/O error) used to be
/// ignored: resume was silently off. Here the journal meets a file size
/// limit (RLIMIT_FSIZE, set by `prlimit`, with SIGXFSZ ignored so that the
/// write fails with EFBIG instead of ending the process), while the
/// thumbnails, manifest and stats, smaller than the journal, still fit.
final class JournalFailureTests: TemporaryFolderTestCase {
    var out: String { root + "/out" }

    func arguments(_ source: String) -> [String] {
        ["run", source, "--out", out, "--jobs", "1", "--size", "32", "--no-report", "--progress", "never"]
    }

    func testAFailedJournalWriteIsSaidStopsNewImagesAndExits3() throws {
        try ThumbsProcess.requireExecutable()
        // A run over 40 images killed part way leaves a journal of 25 lines
        // or more; then those sources go away and 12 new ones come.
        for i in 0..<40 {
            TestImages.write(root + "/old/photo\(i).jpg", width: 320, height: 240)
        }
        let first = try ThumbsProcess.start(arguments(root + "/old"))
        ThumbsProcess.wait(for: first) { ThumbsProcess.journaled(out) >= 25 }
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        let journal = out + "/.thumbs/journal.ndjson"
        let journalBytes = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: journal)[.size] as? Int,
                                         "the first run ended before it could be killed")
        XCTAssertGreaterThanOrEqual(ThumbsProcess.journaled(out), 25)
        for i in 0..<12 {
            TestImages.write(root + "/new/n\(i).jpg", width: 320, height: 240)
        }

        // The journal may grow by 100 bytes, less than one line.
        let limited = try runLimited(fileSize: journalBytes + 100, arguments(root + "/new"))
        XCTAssertEqual(limited.status, 3, limited.stderr)
        let said = limited.stderr.split(separator: "\n").filter { $0.contains("cannot write the journal") }
        XCTAssertEqual(said.count, 1, "one line says it: \(limited.stderr)")
        XCTAssertTrue(said.first?.contains("cannot write the journal \(journal): \(String(cString: strerror(EFBIG)))") == true,
                      limited.stderr)
        // The killed run's sources are gone, and stay on record (the
        // manifest's `kept`): with them the manifest is larger than the
        // journal, and does not fit under the limit either. The run does
        // not claim otherwise (issue 39): its last line says that no
        // manifest was written and that the next run resumes.
        XCTAssertTrue(said.first?.contains("the manifest is written next if the disk takes it, else the journal keeps the images"
                                           + " finished so far and the next run resumes from it") == true, limited.stderr)
        XCTAssertTrue(limited.stderr.contains("no manifest was written: the journal keeps the images finished before this,"
                                              + " and the next run resumes from it"), limited.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/manifest.json"))
        let made = try FileManager.default.contentsOfDirectory(atPath: out + "/32").filter { $0.hasPrefix("n") }
        XCTAssertGreaterThan(made.count, 0)
        XCTAssertLessThan(made.count, 12, "no new image started after the failure")

        // Without the limit the next run finishes. The journal could take
        // no line of the new images (the limit left it less than one), so
        // none of them has a record: they are made again, none skipped on
        // the word of a record that was never written.
        let again = try ThumbsProcess.capture(arguments(root + "/new"))
        XCTAssertEqual(again.status, 0, again.stderr)
        let finished = try readManifest(out)
        XCTAssertEqual(finished.items.count, 12)
        XCTAssertNil(finished.interrupted)
        XCTAssertEqual(finished.items.filter { $0.status == .ok }.count, 12)
    }

    /// Runs `thumbs` with a file size limit of `fileSize` bytes and SIGXFSZ
    /// ignored (inherited through exec).
    private func runLimited(fileSize: Int, _ arguments: [String]) throws -> (status: Int32, stderr: String) {
        try ThumbsProcess.run(arguments, launcher: ["/bin/sh", "-c", "trap '' XFSZ; exec prlimit --fsize=\(fileSize) \"$@\"", "sh"])
    }
}
