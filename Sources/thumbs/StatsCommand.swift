import ArgumentParser
import Foundation
import ThumbsKit

/// `thumbs stats MANIFEST [--json]`: the statistics of a manifest, recomputed
/// exactly as a run computes stats.json.
struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Print the statistics of a manifest as a table, or as stats.json with --json.",
        discussion: """
            EXAMPLES:
              thumbs stats thumbs-out/manifest.json
              thumbs stats thumbs-out/manifest.json --json | jq .time
            """
    )

    @Argument(help: ArgumentHelp("The manifest.json of a run.", valueName: "manifest"))
    var manifest: String

    @Flag(help: "Print stats.json exactly as the run writes it.")
    var json = false

    func run() async throws {
        // Item by item: a manifest of a million items costs what one of a
        // thousand does (issue 37).
        let statistics: Statistics
        do {
            statistics = try Statistics.read(manifestAt: manifest)
        } catch {
            FileHandle.standardError.write(Data("thumbs: \(error.message)\n".utf8))
            throw ExitCode(error.exitCode.rawValue)
        }
        if json {
            FileHandle.standardOutput.write(try JSONCoding.encode(statistics))
        } else {
            FileHandle.standardOutput.write(Data(StatisticsTable(statistics, title: manifest).render().utf8))
        }
    }
}
