import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Issue 4, point 3, with a real `thumbs` process: killed with SIGKILL at
/// several moments, then run again, the result equals a clean run.
final class KillTests: TemporaryFolderTestCase {
    /// The 40 sources, written once for all the tests of the class: the runs
    /// only read them (each test writes into its own `root`).
    nonisolated(unsafe) static var sources: String?
    var source: String { Self.sources! + "/in" }

    override func setUpWithError() throws {
        try ThumbsProcess.requireExecutable()
        try super.setUpWithError()
        if Self.sources == nil {
            let folder = TestImages.temporaryDirectory("KillTests-sources")
            for i in 0..<40 {
                TestImages.write(folder + "/in/d\(i % 4)/photo\(i).jpg", width: 1200, height: 900, options: "[Q=90]")
            }
            Self.sources = folder
        }
    }

    override class func tearDown() {
        if let sources { try? FileManager.default.removeItem(atPath: sources) }
        super.tearDown()
    }

    func arguments(_ out: String) -> [String] {
        ["run", source, "--out", out, "--jobs", "2", "--size", "200", "--size", "64x64", "--progress", "never"]
    }

    func outputsByID(_ manifest: Manifest) -> [String: [String]] {
        Dictionary(uniqueKeysWithValues: manifest.items.map { ($0.id, $0.outputs.map(\.sha256)) })
    }

    func testKilledRunsResumeToTheSameResultAsACleanRun() throws {
        let clean = root + "/clean"
        XCTAssertEqual(try ThumbsProcess.run(arguments(clean)).status, 0)
        let reference = try readManifest(clean)
        XCTAssertEqual(reference.items.count, 40)

        for moment in [0, 1, 12, 39] {
            let out = root + "/killed-\(moment)"
            let process = try ThumbsProcess.start(arguments(out))
            ThumbsProcess.wait(for: process) { ThumbsProcess.journaled(out) >= moment && (moment > 0 || FileManager.default.fileExists(atPath: out + "/.thumbs/lock")) }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let finishedBefore = ThumbsProcess.journaled(out)

            // No final name holds a partial file.
            if let files = FileManager.default.enumerator(atPath: out) {
                for case let path as String in files where path.hasSuffix(".jpg") && !path.hasPrefix(".thumbs") {
                    XCTAssertNotNil(TestImages.header(out + "/" + path), "moment \(moment): \(path) is damaged")
                }
            }

            let again = try ThumbsProcess.run(arguments(out))
            XCTAssertEqual(again.status, 0, "moment \(moment): \(again.stderr)")
            let resumed = try readManifest(out)
            XCTAssertEqual(resumed.items.map(\.id), reference.items.map(\.id), "moment \(moment): every source once, in order")
            XCTAssertEqual(outputsByID(resumed), outputsByID(reference), "moment \(moment): outputs byte-identical to a clean run")
            let unchanged = resumed.items.filter { $0.status == .unchanged }.count
            XCTAssertGreaterThanOrEqual(unchanged, finishedBefore, "moment \(moment): finished images are not redone")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out + "/.thumbs/tmp"), [], "moment \(moment): temporary files left")
            XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/.thumbs/journal.ndjson"))
        }
    }

    func testSIGTERMFinishesInFlightWritesTheManifestAndExits130() throws {
        let out = root + "/term"
        let process = try ThumbsProcess.start(arguments(out))
        ThumbsProcess.wait(for: process) { ThumbsProcess.journaled(out) >= 4 }
        XCTAssertTrue(process.isRunning, "the run ended before the signal could be sent")
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130)
        let partial = try readManifest(out)
        XCTAssertEqual(partial.interrupted, true)
        XCTAssertGreaterThanOrEqual(partial.items.count, 4)
        XCTAssertLessThan(partial.items.count, 40)
        XCTAssertTrue(partial.items.allSatisfy { $0.status == .ok })

        XCTAssertEqual(try ThumbsProcess.run(arguments(out)).status, 0)
        let finished = try readManifest(out)
        XCTAssertEqual(finished.items.count, 40)
        XCTAssertEqual(finished.items.filter { $0.status == .unchanged }.count, partial.items.count)
    }

    func testASecondProcessOnTheSameOutputExits3AtOnce() throws {
        let out = root + "/locked"
        let first = try ThumbsProcess.start(arguments(out))
        ThumbsProcess.wait(for: first) { ThumbsProcess.journaled(out) >= 1 }
        kill(first.processIdentifier, SIGSTOP)
        defer {
            kill(first.processIdentifier, SIGCONT)
            first.waitUntilExit()
        }
        let second = try ThumbsProcess.run(arguments(out))
        XCTAssertEqual(second.status, 3)
        XCTAssertTrue(second.stderr.contains("another thumbs run"), second.stderr)
    }
}
