import Foundation
import ThumbsTestSupport
import XCTest

/// PRODUCT.md's exit codes, from the binary: 2 for usage errors (the
/// argument parser's own 64 included), 3 when the run cannot go on, 1 for
/// too many failures, 0 otherwise; every error is one readable line.
final class ExitCodeTests: TemporaryFolderTestCase {
    /// Samples/ in the repository: seven images and one broken file.
    static let samples = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Samples").path

    func testBadOptionValuesAreUsageErrorsThatPointToHelp() throws {
        try AssertExecuteCommand(["run", "x", "--size", "0"], exitCode: 2, stderr: [
            "Error: The value '0' is invalid for '--size <size>'", "See 'thumbs run --help'",
        ])
        try AssertExecuteCommand(["run", "x", "--max-failures", "200%"], exitCode: 2, stderr: ["'--max-failures <n|p%>'"])
        try AssertExecuteCommand(["run", "x", "--fit", "sideways"], exitCode: 2, stderr: ["--fit"])
        try AssertExecuteCommand(["run", "x", "--shard", "4/4"], exitCode: 2, stderr: ["--shard"])
    }

    func testUnknownOptionIsAUsageErrorWithASuggestion() throws {
        try AssertExecuteCommand(["run", Self.samples, "--bogus"], exitCode: 2, stderr: [
            "Unknown option '--bogus'", "Usage: thumbs run",
        ])
    }

    func testMissingArgumentsAreUsageErrors() throws {
        try AssertExecuteCommand(["run"], exitCode: 2, stderr: ["no SOURCE given"])
        try AssertExecuteCommand(["stats"], exitCode: 2, stderr: ["Missing expected argument '<manifest>'"])
        try AssertExecuteCommand(["merge", root + "/m.json"], exitCode: 2, stderr: ["--out"])
    }

    func testMissingSourceAndManifestAreUsageErrors() throws {
        try AssertExecuteCommand(["run", root + "/nowhere", "--out", root + "/out"], exitCode: 2, stderr: [
            "thumbs: source \(root)/nowhere does not exist",
        ])
        try AssertExecuteCommand(["verify", root + "/none.json"], exitCode: 2, stderr: ["no manifest at \(root)/none.json"])
        try AssertExecuteCommand(["stats", root + "/none.json"], exitCode: 2, stderr: ["no manifest at"])
    }

    func testAnOutputThatCannotBeWrittenExits3() throws {
        try AssertExecuteCommand(["run", Self.samples, "--out", "/dev/null/out", "--progress", "never"], exitCode: 3, stderr: [
            "cannot write to output folder /dev/null/out", "choose another --out",
        ])
    }

    func testFailuresBeyondTheBudgetExit1AndWithinItExit0() throws {
        let broken = Self.samples + "/broken-truncated.jpg"
        try AssertExecuteCommand(["run", broken, "--out", root + "/strict", "--progress", "never"], exitCode: 1, stdout: [
            "done: 0 ok", "1 failed of 1 images", "more than --max-failures 0: exit 1",
        ])
        TestImages.write(root + "/in/small.jpg", width: 64, height: 48)
        try FileManager.default.copyItem(atPath: broken, toPath: root + "/in/broken.jpg")
        try AssertExecuteCommand(["run", root + "/in", "--out", root + "/tolerant", "--max-failures", "1", "--progress", "never"],
                                 stdout: ["done: 1 ok", "1 failed of 2 images", "manifest \(root)/tolerant/manifest.json"])
    }
}
