import ArgumentParser
import Foundation
import ThumbsKit

/// `thumbs verify MANIFEST [--against BASELINE]`: argument parsing only; the
/// checks live in ThumbsKit's `ManifestVerifier`.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check a run's outputs against its manifest, and optionally against a baseline manifest.",
        discussion: """
            Every output of every item must exist with the size, SHA-256 and dimensions the
            manifest records, and lie inside the box it was made for. With --against, the
            manifest is also compared with a baseline manifest: items added or missing,
            status changes, source or output dimension changes, and outputs whose size
            changed by more than 10%. Output hashes are not compared with the baseline.

            Prints one line per finding and a count line. Exit 0 when clean, 1 on any
            finding, 2 when a manifest cannot be read.

            EXAMPLES:
              thumbs verify thumbs-out/manifest.json
              thumbs verify thumbs-out/manifest.json --against ci/baseline-manifest.json
              thumbs verify thumbs-out/manifest.json --json > verify.json
            """
    )

    @Argument(help: ArgumentHelp("The manifest.json of a run (output paths are relative to its folder).", valueName: "manifest"))
    var manifest: String

    @Option(help: ArgumentHelp("A baseline manifest to compare with.", valueName: "baseline"))
    var against: String?

    @Flag(help: "Print the findings as one JSON object.")
    var json = false

    func run() async throws {
        let result: VerifyResult
        do {
            result = try ManifestVerifier(manifestPath: manifest, baselinePath: against).run()
        } catch {
            FileHandle.standardError.write(Data("thumbs: \(error.message)\n".utf8))
            throw ExitCode(error.exitCode.rawValue)
        }
        if json {
            FileHandle.standardOutput.write(try JSONCoding.encode(result))
        } else {
            FileHandle.standardOutput.write(Data((result.lines.joined(separator: "\n") + "\n").utf8))
        }
        if !result.isClean { throw ExitCode(result.exitStatus.rawValue) }
    }
}
