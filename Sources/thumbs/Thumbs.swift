import ArgumentParser
import ThumbsKit

/// `thumbs`: the root command. `run` is the default subcommand, so
/// `thumbs photos/` means `thumbs run photos/`.
struct Thumbs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbs",
        abstract: "Thumbnail folders of photos and photo lists in parallel with libvips, with a manifest, statistics and an HTML report.",
        discussion: """
            EXAMPLES:
              thumbs photos/                              256 px JPEG thumbnails in ./thumbs-out
              thumbs photos/ --out site/thumbs --size 256 --size 1024x768 --format webp
              thumbs https://picsum.photos/v2/list --max-pages 2 --out picsum
              thumbs verify thumbs-out/manifest.json --against baseline.json
              thumbs stats thumbs-out/manifest.json

            Exit codes: 0 ok, 1 too many failures (or verify found a problem),
            2 usage error, 3 the run could not go on, 130 interrupted.
            """,
        version: ThumbsVersion.current,
        subcommands: [RunCommand.self, VerifyCommand.self, StatsCommand.self, MergeCommand.self],
        defaultSubcommand: RunCommand.self
    )
}
