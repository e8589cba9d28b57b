import ArgumentParser
import Foundation
import ThumbsKit

struct MergeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Join the shards of one run (--shard I/N) into one OUT.",
        discussion: """
            Writes DIR/manifest.json with the items of every shard in source
            order, DIR/stats.json recomputed from them, and DIR/report.html.
            The thumbnails stay where the shards wrote them and the merged
            manifest refers to them by paths relative to DIR; --copy copies
            them into DIR instead (hard links where possible). A folder given
            as MANIFEST stands for the manifest.json inside it.

            Refused with exit 2: shards of different settings or of different
            N, a shard missing or given twice, an item in two shards, an
            interrupted shard, a manifest written without --shard.
            Exit 3: a shard still running, a thumbnail that a shard lists is
            missing, DIR not writable.

            EXAMPLES:
              for i in 0 1 2 3; do
                thumbs run photos/ --shard $i/4 --out shards/$i &
              done; wait
              thumbs merge shards/*/manifest.json --out thumbs
              thumbs merge shards/* --out site/thumbs --copy

            Kubernetes Indexed Jobs, GitHub Actions matrices, GNU parallel
            and Slurm arrays: see docs/scale-out.md.
            """
    )

    @Argument(help: ArgumentHelp("The manifest.json of every shard (or the shards' folders).", valueName: "manifest"))
    var manifests: [String] = []

    @Option(name: .long, help: ArgumentHelp("Folder for the merged manifest, stats and report.", valueName: "dir"))
    var out: String

    @Flag(help: "Copy the thumbnails into DIR (hard links where possible) instead of referring to the shards' folders.")
    var copy = false

    @Flag(inversion: .prefixedNo, help: "Write DIR/report.html.")
    var report = true

    @OptionGroup
    var logging: LoggingOptions

    func validate() throws {
        if manifests.isEmpty {
            throw ValidationError("no MANIFEST given: name the manifest.json of every shard, e.g. shards/*/manifest.json")
        }
    }

    func run() async throws {
        let console = logging.console(progress: .never)
        do {
            _ = try ThumbsMerge(manifests: manifests, outputDirectory: out, copy: copy, writeReport: report, console: console).run()
        } catch {
            console.event("fatal", level: .error, error.message, fields: ["exitCode": .number(Double(error.exitCode.rawValue))])
            throw ExitCode(error.exitCode.rawValue)
        }
    }
}
