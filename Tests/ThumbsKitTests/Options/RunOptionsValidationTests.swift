import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// `RunOptions.validate()`: every bad option is a usage error (exit 2) whose
/// message names the option; the defaults pass.
final class RunOptionsValidationTests: XCTestCase {
    private func assertUsage(_ message: String, file: StaticString = #filePath, line: UInt = #line,
                             _ change: (inout RunOptions) -> Void) {
        var options = RunOptions(sources: ["photos"])
        change(&options)
        do {
            try options.validate()
            XCTFail("expected: \(message)", file: file, line: line)
        } catch {
            XCTAssertEqual(error.exitCode, .usage, file: file, line: line)
            XCTAssertEqual(error.message, message, file: file, line: line)
        }
    }

    func testDefaultsPass() throws {
        try RunOptions(sources: ["photos"]).validate()
        var options = RunOptions(sources: ["photos"])
        options.rate = 0.5
        options.maxPages = 1
        options.urlField = "urls.small"
        options.retries = 0
        options.similar = 0
        try options.validate()
    }

    func testEachBadOptionIsAUsageErrorNamingIt() {
        assertUsage("no SOURCE given: name a folder, an image, a photo list file or URL, or -") { $0.sources = [] }
        assertUsage("--size needs at least one size") { $0.output.sizes = [] }
        assertUsage("--quality must be 1..100, not 0") { $0.output.quality = 0 }
        assertUsage("--quality must be 1..100, not 101") { $0.output.quality = 101 }
        assertUsage("--jobs must be at least 1") { $0.jobs = 0 }
        assertUsage("--download-jobs must be at least 1") { $0.downloadJobs = 0 }
        assertUsage("--max-pages must be at least 1") { $0.maxPages = 0 }
        assertUsage("--similar must be 0..\(LookalikeGrouping.maxDistance) bits, not \(LookalikeGrouping.maxDistance + 1)") {
            $0.similar = LookalikeGrouping.maxDistance + 1
        }
        assertUsage("--similar must be 0..\(LookalikeGrouping.maxDistance) bits, not -1") { $0.similar = -1 }
        assertUsage("--max-pixels must be at least 1") { $0.maxPixels = 0 }
        assertUsage("--max-bytes must be at least 1") { $0.maxBytes = 0 }
        assertUsage("--retries must be 0 or more") { $0.retries = -1 }
        assertUsage("--timeout must be more than 0 seconds") { $0.timeout = 0 }
        assertUsage("--rate must be more than 0") { $0.rate = 0 }
        assertUsage("--url-field needs a field name, such as urls.small") { $0.urlField = "." }
        assertUsage("--size given twice: 256, 256") {
            $0.output.sizes = [ThumbSize(parsing: "256")!, ThumbSize(parsing: "256")!]
        }
    }

    /// `ThumbsRun` checks the options before it touches anything: a bad
    /// option creates no OUT.
    func testARunWithABadOptionStopsBeforeCreatingOut() async throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("validate-\(UUID().uuidString)").path
        do {
            _ = try await runThumbs([NSTemporaryDirectory()], out: out) { $0.maxBytes = 0 }
            XCTFail("a run with --max-bytes 0 must not start")
        } catch let error as RunError {
            XCTAssertEqual(error.exitCode, .usage)
            XCTAssertEqual(error.message, "--max-bytes must be at least 1")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }

    func testDefaultsAreTheProductsBrackets() {
        XCTAssertEqual(RunOptions.Defaults.outputDirectory, "thumbs-out")
        XCTAssertEqual(RunOptions.Defaults.output.sizes.map(\.label), ["256"])
        XCTAssertEqual(RunOptions.Defaults.output.quality, 80)
        XCTAssertEqual(RunOptions.Defaults.downloadJobs, 8)
        XCTAssertEqual(RunOptions.Defaults.retries, 3)
        XCTAssertEqual(RunOptions.Defaults.timeout, 30)
        XCTAssertEqual(RunOptions.Defaults.maxPixels, 268_402_689)
        XCTAssertEqual(RunOptions.Defaults.maxBytes, 256 * 1024 * 1024)
        XCTAssertEqual(RunOptions.Defaults.failOn, .error)
        XCTAssertEqual(RunOptions.Defaults.maxFailures, .count(0))
        let options = RunOptions(sources: ["photos"])
        XCTAssertEqual(options.maxPixels, RunOptions.Defaults.maxPixels)
        XCTAssertEqual(options.maxBytes, RunOptions.Defaults.maxBytes)
        XCTAssertEqual(options.output, RunOptions.Defaults.output)
    }
}
