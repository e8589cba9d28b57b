import Foundation
import ThumbsTestSupport
import XCTest

/// The README's table "Options of `thumbs run`" and `thumbs run --help`
/// name the same options: an option added, renamed or removed on one side
/// only fails here.
final class ReadmeOptionTableTests: XCTestCase {
    static let readme = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("README.md").path

    /// Flags every command has; the table leaves them out.
    static let common: Set<String> = ["--help", "--version"]

    func testTheOptionTableAndRunHelpNameTheSameOptions() throws {
        let table = try Self.tableOptions(readme: String(contentsOfFile: Self.readme, encoding: .utf8))
        XCTAssertGreaterThan(table.count, 20, "the option table was not found or not read: \(table.sorted())")
        let help = try AssertExecuteCommand(["run", "--help"])
        let options = Self.helpOptions(help.stdout)
        XCTAssertTrue(Self.common.isSubset(of: options), "run --help lacks \(Self.common.subtracting(options).sorted())")
        XCTAssertEqual(table.subtracting(options).sorted(), [], "in README's option table but not in `thumbs run --help`")
        XCTAssertEqual(options.subtracting(Self.common).subtracting(table).sorted(), [],
                       "in `thumbs run --help` but not in README's option table")
    }

    func testTheParsersReadWhatTheyShould() throws {
        let readme = """
            ## Options of `thumbs run`

            | option | meaning | default |
            |---|---|---|
            | `--out DIR` | output folder | `./thumbs-out` |
            | `--fit inside\\|cover` | keep or `--crop` | `inside` |
            | `--report`, `--no-report` | write it | on |

            Other commands: `thumbs verify --against`.
            """
        XCTAssertEqual(try Self.tableOptions(readme: readme), ["--out", "--fit", "--report", "--no-report"])
        let help = """
            OPTIONS:
              --out <dir>             Output folder. (default: thumbs-out)
              --report/--no-report    Write OUT/report.html, not --nothing. (default: --report)
              --log-format <log-format>
                                      Log lines on stderr as text or json.
              -h, --help              Show help information.
            """
        XCTAssertEqual(Self.helpOptions(help), ["--out", "--report", "--no-report", "--log-format", "--help"])
    }

    /// Options named in the first column of the table under "## Options of
    /// `thumbs run`" (up to the next blank line after the table).
    static func tableOptions(readme: String) throws -> Set<String> {
        let lines = readme.components(separatedBy: "\n")
        let start = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("## Options of `thumbs run`") }, "no option table in README.md")
        var options: Set<String> = []
        for line in lines[(start + 1)...].drop(while: { !$0.hasPrefix("|") }).prefix(while: { $0.hasPrefix("|") }) {
            // The first cell: up to the first `|` that is not escaped as `\|`.
            let cells = line.dropFirst().split(separator: "|", omittingEmptySubsequences: false)
            var first = ""
            for cell in cells {
                first += cell
                if !first.hasSuffix("\\") { break }
                first += "|"
            }
            options.formUnion(optionNames(in: first))
        }
        return options
    }

    /// Options that start a line of the OPTIONS section of `--help`.
    static func helpOptions(_ help: String) -> Set<String> {
        var options: Set<String> = []
        for line in help.components(separatedBy: "\n") where line.hasPrefix("  -") {
            var head = line.dropFirst(2)
            if head.hasPrefix("-h, ") { head = head.dropFirst(4) }  // "-h, --help"
            options.formUnion(optionNames(in: String(head.prefix { $0 != " " })))
        }
        return options
    }

    static func optionNames(in text: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: "--[a-z][a-z0-9-]*")
        return pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range, in: text).map { String(text[$0]) }
        }
    }
}
