import ArgumentParser
import ThumbsKit

/// The logging flags every command that runs something shares
/// (`@OptionGroup`, after swift-format's `LintFormatOptions`): how much is
/// printed, and whether log lines are text or JSON. `--progress` is not
/// here: only `run` has a progress bar.
struct LoggingOptions: ParsableArguments {
    @Flag(help: "Print only errors.")
    var quiet = false

    @Flag(help: "Print a line per image.")
    var verbose = false

    @Option(help: "Log lines on stderr as text or json (one object per event).")
    var logFormat: LogFormat = .text

    func validate() throws {
        if quiet && verbose { throw ValidationError("--quiet and --verbose cannot be used together") }
    }

    var verbosity: Verbosity { quiet ? .quiet : verbose ? .verbose : .normal }

    func console(progress: ProgressMode) -> Console {
        Console(verbosity: verbosity, format: logFormat, progress: progress)
    }
}
