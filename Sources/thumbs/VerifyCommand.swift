import ArgumentParser
import Foundation
import ThumbsKit

/// `thumbs verify MANIFEST [--against BASELINE] [--max-difference D]
/// [--diff DIR] [--junit FILE] [--update] [--json]`: argument parsing and
/// printing only; the checks live in ThumbsKit's `ManifestVerifier`, the CI
/// reports in `JUnitReport` and `GitHubReport`, the update in `BaselineUpdate`.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check a run's outputs against its manifest, and optionally against a baseline run by eye.",
        discussion: """
            Every output of every item must exist with the size, SHA-256 and dimensions the
            manifest records, and lie inside the box it was made for. With --against, the run
            is also compared with a baseline run (its folder, or its manifest.json with the
            outputs beside it): items added or missing, status changes, source or output
            dimension changes, outputs whose size changed by more than 10%, and each output
            compared with the baseline's by eye: SSIM on luma and the mean CIEDE2000 colour
            difference, on pixels decoded to sRGB. An output whose SSIM falls below
            1 - D or whose mean colour difference exceeds 100 x D (D = --max-difference)
            is a changed-pixels finding.

            Prints one line per finding and a count line. Exit 0 when clean, 1 on any
            finding, 2 when a manifest cannot be read. With GITHUB_ACTIONS=true each finding
            is also an ::error annotation, and a Markdown summary is appended to
            $GITHUB_STEP_SUMMARY when it is set.

            EXAMPLES:
              thumbs verify thumbs-out/manifest.json
              thumbs verify thumbs-out/manifest.json --against ci/baseline --diff verify-diff --junit verify.xml
              thumbs verify thumbs-out/manifest.json --against ci/baseline --update
              thumbs verify thumbs-out/manifest.json --json > verify.json
            """
    )

    @Argument(help: ArgumentHelp("The manifest.json of a run (output paths are relative to its folder).", valueName: "manifest"))
    var manifest: String

    @Option(help: ArgumentHelp("A baseline run's folder, or its manifest with the outputs beside it.", valueName: "baseline"))
    var against: String?

    @Option(name: .customLong("max-difference"),
            help: ArgumentHelp("How different an output may look from the baseline's: SSIM at least 1 - D, mean colour ΔE2000 at most 100 x D (default \(DifferenceLimits.defaultMaxDifference)).",
                               valueName: "D"))
    var maxDifference: Double = DifferenceLimits.defaultMaxDifference

    @Option(help: ArgumentHelp("Write baseline | new | difference images of each changed output and an index.html to DIR.", valueName: "dir"))
    var diff: String?

    @Option(help: ArgumentHelp("Write the results as JUnit XML to FILE (one test case per item and size).", valueName: "file"))
    var junit: String?

    @Flag(help: "Make this run the baseline: copy its outputs and manifest over BASELINE, and say what was replaced.")
    var update = false

    @Flag(help: "Print the findings as one JSON object, with the measures of each changed output.")
    var json = false

    func validate() throws {
        guard maxDifference.isFinite, (0...1).contains(maxDifference) else {
            throw ValidationError("--max-difference must be between 0 and 1, not \(maxDifference)")
        }
        if against == nil {
            for (given, name) in [(diff != nil, "--diff"), (update, "--update")] where given {
                throw ValidationError("\(name) needs --against BASELINE")
            }
        }
    }

    func run() async throws {
        let result: VerifyResult
        var updated: [String] = []
        do throws(RunError) {
            result = try ManifestVerifier(manifestPath: manifest, baselinePath: against,
                                          limits: DifferenceLimits(maxDifference: maxDifference), diffFolder: diff).run()
            if let junit { try JUnitReport.write(result, manifestAt: manifest, to: junit) }
            // The findings in the outputs say the run itself is broken: such
            // a run does not become the baseline.
            if update, let against {
                if result.findings.contains(where: { !$0.kind.isBaseline }) {
                    updated = ["baseline not updated: this run's outputs do not match its manifest (see above)"]
                } else {
                    updated = try BaselineUpdate(manifestPath: manifest, baseline: BaselineLocation(against)).run()
                }
            }
        } catch {
            FileHandle.standardError.write(Data("thumbs: \(error.message)\n".utf8))
            throw ExitCode(error.exitCode.rawValue)
        }
        let environment = ProcessInfo.processInfo.environment
        if environment["GITHUB_ACTIONS"] == "true" {
            let annotations = GitHubReport.annotations(result)
            // The runner reads workflow commands from the job's output; with
            // --json, stdout is the JSON document, so they go to stderr.
            if !annotations.isEmpty {
                (json ? FileHandle.standardError : FileHandle.standardOutput)
                    .write(Data((annotations.joined(separator: "\n") + "\n").utf8))
            }
            if let summary = environment["GITHUB_STEP_SUMMARY"], !summary.isEmpty,
               FileManager.default.fileExists(atPath: summary) || FileManager.default.createFile(atPath: summary, contents: nil),
               let file = FileHandle(forWritingAtPath: summary) {
                file.seekToEndOfFile()
                file.write(Data(GitHubReport.summary(result).utf8))
                try? file.close()
            }
        }
        if json {
            FileHandle.standardOutput.write(try JSONCoding.encode(result))
        } else {
            FileHandle.standardOutput.write(Data(((result.lines + updated).joined(separator: "\n") + "\n").utf8))
        }
        let accepted = update && !updated.isEmpty && !updated[0].hasPrefix("baseline not updated")
        if !result.isClean && !accepted { throw ExitCode(result.exitStatus.rawValue) }
    }
}
