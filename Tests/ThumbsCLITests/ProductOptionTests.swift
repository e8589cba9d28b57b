import Foundation
import ThumbsTestSupport
import XCTest

/// Every option /work/shared/PRODUCT.md (the product contract, kept beside
/// the repository as `PRODUCT.md` or given by `THUMBS_PRODUCT_MD`) names for
/// a command is in that command's `--help`: the README's table is checked
/// against `run --help` (`ReadmeOptionTableTests`), and this checks both
/// against the contract.
final class ProductOptionTests: XCTestCase {
    /// The contract: `THUMBS_PRODUCT_MD`, else `PRODUCT.md` in the
    /// repository, else the shared copy the project's sessions keep.
    static func productText() throws -> String {
        let repository = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var candidates = [repository.appendingPathComponent("PRODUCT.md").path, repository.appendingPathComponent("docs/PRODUCT.md").path,
                          repository.deletingLastPathComponent().appendingPathComponent("shared/PRODUCT.md").path,
                          "/work/shared/PRODUCT.md"]
        if let given = ProcessInfo.processInfo.environment["THUMBS_PRODUCT_MD"] { candidates.insert(given, at: 0) }
        for path in candidates where FileManager.default.fileExists(atPath: path) {
            return try String(contentsOfFile: path, encoding: .utf8)
        }
        throw XCTSkip("no PRODUCT.md found (tried \(candidates.joined(separator: ", "))); set THUMBS_PRODUCT_MD")
    }

    /// Options the contract names per command: `run` from its "Options of
    /// `run`" block, the others from their line under "## Command line".
    static func contractOptions(_ product: String) throws -> [String: Set<String>] {
        let lines = product.components(separatedBy: "\n")
        var options: [String: Set<String>] = [:]
        for line in lines {
            let words = line.trimmingCharacters(in: .whitespaces).split(separator: " ")
            guard words.count > 1, words[0] == "thumbs", ["verify", "stats", "merge"].contains(words[1]) else { continue }
            options[String(words[1]), default: []].formUnion(ReadmeOptionTableTests.optionNames(in: line))
        }
        let start = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("Options of `run`") }, "no \"Options of `run`\" in PRODUCT.md")
        let end = try XCTUnwrap(lines[start...].firstIndex { $0.hasPrefix("## ") }, "no section after the options")
        // Only the option column: the first word of each indented entry, and
        // the `A, B` or `A / B` pairs written on one entry.
        for line in lines[(start + 1)..<end] where line.hasPrefix("    --") {
            let column = line.dropFirst(4).components(separatedBy: "  ").first ?? ""
            options["run", default: []].formUnion(ReadmeOptionTableTests.optionNames(in: column))
        }
        return options
    }

    func testEveryOptionOfTheContractIsInHelp() throws {
        let contract = try Self.contractOptions(Self.productText())
        XCTAssertGreaterThan(contract["run"]?.count ?? 0, 30, "the run options were not read: \(contract["run"] ?? [])")
        XCTAssertEqual(contract["verify"], ["--against", "--diff", "--junit", "--update"])
        XCTAssertEqual(contract["stats"], ["--json"])
        XCTAssertEqual(contract["merge"], ["--out", "--copy", "--verbose"])
        for (command, options) in contract.sorted(by: { $0.key < $1.key }) {
            let help = try AssertExecuteCommand([command, "--help"])
            let offered = ReadmeOptionTableTests.helpOptions(help.stdout)
            let awaited = Set(Self.awaited[command, default: [:]].keys)
            XCTAssertEqual(options.subtracting(offered).subtracting(awaited).sorted(), [],
                           "named by PRODUCT.md but not in `thumbs \(command) --help`")
            // A gap that an open issue closes is listed in `awaited`; once the
            // option exists, its entry must go, so the list cannot go stale.
            XCTAssertEqual(awaited.intersection(offered).sorted(), [],
                           "now in `thumbs \(command) --help`: remove from ProductOptionTests.awaited")
        }
    }

    /// Options PRODUCT.md names that open issues are still building, with
    /// the issue that builds each (read by `issues show N`).
    static let awaited: [String: [String: String]] = [:]

    func testTheContractParserReadsWhatItShould() throws {
        let product = """
            ## Command line

                thumbs [run] SOURCE... [options]     the main job
                thumbs verify MANIFEST [--against BASELINE]
                thumbs merge MANIFEST... --out DIR [--copy]

            Options of `run` (defaults in brackets):

                --out DIR              output folder [./thumbs-out]
                --fit inside|cover     inside keeps aspect ratio; --crop picks
                                       the part kept, not --nothing
                --url-field PATH, --max-pages N   photo lists
                --quiet, --verbose, --log-format text|json

            ## Files written
            """
        XCTAssertEqual(try Self.contractOptions(product), [
            "verify": ["--against"], "merge": ["--out", "--copy"],
            "run": ["--out", "--fit", "--url-field", "--max-pages", "--quiet", "--verbose", "--log-format"],
        ])
    }
}
