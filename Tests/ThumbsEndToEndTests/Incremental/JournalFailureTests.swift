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
        let said = limited.stderr.split(separator: "\n").filter { $0.contains("journal") }
        XCTAssertEqual(said.count, 1, "one line says it: \(limited.stderr)")
        XCTAssertTrue(said.first?.contains("cannot write the journal \(journal): \(String(cString: strerror(EFBIG)))") == true,
                      limited.stderr)
        let partial = try readManifest(out)
        XCTAssertEqual(partial.interrupted, true, "no new image started after the failure")
        XCTAssertGreaterThan(partial.items.count, 0)
        XCTAssertLessThan(partial.items.count, 12)
        for item in partial.items {
            XCTAssertEqual(item.status, .ok, item.id)
            for output in item.outputs {
                XCTAssertNotNil(TestImages.header(out + "/" + output.path), "\(item.id): the thumbnails made are kept")
            }
        }

        // Without the limit the next run finishes, skipping what was made.
        let again = try ThumbsProcess.capture(arguments(root + "/new"))
        XCTAssertEqual(again.status, 0, again.stderr)
        let finished = try readManifest(out)
        XCTAssertEqual(finished.items.count, 12)
        XCTAssertNil(finished.interrupted)
        XCTAssertEqual(finished.items.filter { $0.status == .unchanged }.count, partial.items.count)
    }

    /// Runs `thumbs` with a file size limit of `fileSize` bytes and SIGXFSZ
    /// ignored (inherited through exec).
    private func runLimited(fileSize: Int, _ arguments: [String]) throws -> (status: Int32, stderr: String) {
        try ThumbsProcess.run(arguments, launcher: ["/bin/sh", "-c", "trap '' XFSZ; exec prlimit --fsize=\(fileSize) \"$@\"", "sh"])
    }
}
