import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Issue 27, point 5: a signal is never lost. SIGTERM is sent to a real
/// `thumbs` process while its last image is in flight, at delays that
/// spread over the end of the run, twenty times over. Every signal sent
/// while OUT had no manifest yet must give exit 130 and `interrupted: true`
/// (the run used to say exit 0 when no image was left unstarted).
final class LateSignalTests: TemporaryFolderTestCase {
    func testASIGTERMWhileTheLastImageIsInFlightAlwaysGives130() throws {
        try ThumbsProcess.requireExecutable()
        let source = root + "/in"
        for i in 0..<5 {
            TestImages.write(source + "/a\(i).jpg", width: 480, height: 360, options: "[Q=90]")
        }
        // The last takes longest (decoded at 1/2): the signal has time to
        // land while it is in flight.
        TestImages.write(source + "/z-last.jpg", width: 3000, height: 2000, options: "[Q=90]")
        let fm = FileManager.default
        var before = 0
        let started = Date()
        for run in 0..<20 {
            let out = root + "/out\(run)"
            let process = try ThumbsProcess.start(["run", source, "--out", out, "--jobs", "1", "--size", "1200",
                                                   "--no-report", "--progress", "never"])
            ThumbsProcess.wait(for: process) { ThumbsProcess.journaled(out) >= 5 }
            // 0 to 57 ms after the other five were journaled.
            usleep(UInt32(run % 20) * 3000)
            let manifestBefore = fm.fileExists(atPath: out + "/manifest.json")
            let sent = process.isRunning && kill(process.processIdentifier, SIGTERM) == 0
            process.waitUntilExit()
            guard sent else { continue }
            let manifest = try readManifest(out)
            if !manifestBefore {
                before += 1
                XCTAssertEqual(process.terminationReason, .exit, "run \(run)")
                XCTAssertEqual(process.terminationStatus, 130, "run \(run): SIGTERM before the manifest, after \(run % 20 * 3) ms")
                XCTAssertEqual(manifest.interrupted, true, "run \(run)")
                XCTAssertTrue(fm.fileExists(atPath: out + "/.thumbs/journal.ndjson"), "run \(run): an interrupted run keeps its journal")
            } else if process.terminationReason == .exit {
                // After the manifest: the exit status and the manifest agree.
                XCTAssertEqual(process.terminationStatus == 130, manifest.interrupted == true, "run \(run)")
            } else {
                // The run had ended and given SIGTERM its default effect back.
                XCTAssertNil(manifest.interrupted, "run \(run)")
                XCTAssertEqual(manifest.items.count, 6, "run \(run)")
            }
        }
        XCTAssertGreaterThanOrEqual(before, 5, "too few signals landed before the manifest to show anything")
        XCTAssertLessThan(Date().timeIntervalSince(started), 120)
    }

    /// The narrowest moment: the signal comes just as the manifest is
    /// renamed into place (raised from the rename itself, seen through
    /// `DurableSteps`), after the manifest was built saying "not
    /// interrupted". The run writes it again, saying so, and exits 130.
    func testASignalWhileTheManifestIsWrittenIsNotLost() async throws {
        for i in 0..<3 {
            TestImages.write(root + "/in/p\(i).jpg", width: 200, height: 150)
        }
        let out = URL(fileURLWithPath: root).resolvingSymlinksInPath().path + "/out"
        let interrupt = InterruptSignal()
        DurableSteps.watch { step in
            if case .rename(_, out + "/manifest.json") = step, !interrupt.isRaised { interrupt.raise() }
        }
        var options = RunOptions(sources: [root + "/in"], outputDirectory: out)
        options.progress = .never
        options.verbosity = .quiet
        let outcome: ThumbsRun.Outcome
        do {
            defer { DurableSteps.watch(nil) }
            outcome = try await ThumbsRun(options: options, interrupt: interrupt).run()
        }
        XCTAssertTrue(interrupt.isRaised, "the manifest was never renamed into place")
        XCTAssertEqual(outcome.status, .interrupted)
        let manifest = try readManifest(out)
        XCTAssertEqual(manifest.interrupted, true)
        XCTAssertEqual(manifest.items.count, 3)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/.thumbs/journal.ndjson"), "an interrupted run keeps its journal")
    }
}
