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

    private func assertValid(_ what: String, file: StaticString = #filePath, line: UInt = #line,
                             _ change: (inout RunOptions) -> Void) {
        var options = RunOptions(sources: ["photos"])
        change(&options)
        do {
            try options.validate()
        } catch {
            XCTFail("\(what) was refused: \(error.message)", file: file, line: line)
        }
    }

    /// Each limit at its edge: the last value allowed passes, the first one
    /// past it is refused with its own message. A check that lets everything
    /// through, refuses everything or is off by one fails here.
    func testEachLimitAtItsEdge() {
        assertValid("the defaults") { _ in }
        assertValid("--quality 1") { $0.output.quality = 1 }
        assertUsage("--quality must be 1..100, not 0") { $0.output.quality = 0 }
        assertValid("--quality 100") { $0.output.quality = 100 }
        assertUsage("--quality must be 1..100, not 101") { $0.output.quality = 101 }
        assertValid("--jobs 1") { $0.jobs = 1 }
        assertUsage("--jobs must be at least 1") { $0.jobs = 0 }
        assertValid("--download-jobs 1") { $0.downloadJobs = 1 }
        assertUsage("--download-jobs must be at least 1") { $0.downloadJobs = 0 }
        assertValid("--max-pages 1") { $0.maxPages = 1 }
        assertUsage("--max-pages must be at least 1") { $0.maxPages = 0 }
        assertValid("--similar 0") { $0.similar = 0 }
        assertValid("--similar max") { $0.similar = LookalikeGrouping.maxDistance }
        assertUsage("--similar must be 0..\(LookalikeGrouping.maxDistance) bits, not \(LookalikeGrouping.maxDistance + 1)") {
            $0.similar = LookalikeGrouping.maxDistance + 1
        }
        assertValid("--max-pixels 1") { $0.maxPixels = 1 }
        assertUsage("--max-pixels must be at least 1") { $0.maxPixels = 0 }
        assertValid("--max-bytes 1") { $0.maxBytes = 1 }
        assertUsage("--max-bytes must be at least 1") { $0.maxBytes = 0 }
        assertValid("--retries 0") { $0.retries = 0 }
        assertUsage("--retries must be 0 or more") { $0.retries = -1 }
        assertValid("--timeout 0.001") { $0.timeout = 0.001 }
        assertUsage("--timeout must be more than 0 seconds") { $0.timeout = 0 }
        assertValid("--rate 0.5") { $0.rate = 0.5 }
        assertUsage("--rate must be more than 0") { $0.rate = 0 }
        assertValid("--url-field urls.small") { $0.urlField = "urls.small" }
        assertUsage("--url-field needs a field name, such as urls.small") { $0.urlField = "." }
        assertValid("two sizes") { $0.output.sizes = [ThumbSize(parsing: "256")!, ThumbSize(parsing: "256x128")!] }
        assertUsage("--size given twice: 256, 256") {
            $0.output.sizes = [ThumbSize(parsing: "256")!, ThumbSize(parsing: "256")!]
        }
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
