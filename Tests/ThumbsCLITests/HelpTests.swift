import ThumbsKit
import ThumbsTestSupport
import XCTest

/// `--help` and `--version` of the built binary: what a user reads first.
final class HelpTests: XCTestCase {
    func testRootHelpNamesEverySubcommandExamplesAndExitCodes() throws {
        try AssertExecuteCommand(["--help"], stdout: [
            "USAGE: thumbs <subcommand>", "EXAMPLES:", "Exit codes: 0 ok, 1 too many failures",
            "run (default)", "verify", "stats", "merge",
        ])
    }

    func testEverySubcommandHasHelpWithUsage() throws {
        for (command, usage) in [
            ("run", "USAGE: thumbs run [<options>] [<source> ...]"),
            ("verify", "USAGE: thumbs verify"),
            ("stats", "USAGE: thumbs stats <manifest> [--json]"),
            ("merge", "USAGE: thumbs merge"),
        ] {
            let result = try AssertExecuteCommand([command, "--help"], stdout: ["OVERVIEW:", usage, "-h, --help"])
            XCTAssertEqual(result.stderr, "", "\(command) --help writes nothing on stderr")
        }
    }

    func testRunHelpHasExamplesAndDefaults() throws {
        try AssertExecuteCommand(["run", "--help"], stdout: [
            "EXAMPLES:", "thumbs run ~/Pictures --out /srv/thumbs",
            "--out <dir>", "(default: thumbs-out)", "--size <size>", "(default: 256)",
            "--report/--no-report", "--log-format <log-format>",
        ])
    }

    func testVersionIsTheManifestsToolVersion() throws {
        let result = try AssertExecuteCommand(["--version"])
        XCTAssertEqual(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines), ThumbsVersion.current)
    }
}
