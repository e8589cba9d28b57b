/// An error that ends a whole command, with the exit code PRODUCT.md gives it.
public struct RunError: Error, Sendable, CustomStringConvertible {
    public var exitCode: ExitStatus
    public var message: String

    public init(_ exitCode: ExitStatus, _ message: String) {
        self.exitCode = exitCode
        self.message = message
    }

    public var description: String { message }

    /// Bad option or missing source (exit 2).
    public static func usage(_ message: String) -> RunError { RunError(.usage, message) }
    /// A file SOURCE that is not there (exit 2).
    public static func missingSource(_ source: String) -> RunError { .usage("source \(source) does not exist") }
    /// The run cannot go on: output not writable, list unreachable (exit 3).
    public static func fatal(_ message: String) -> RunError { RunError(.fatal, message) }
}

/// Exit codes of every `thumbs` command (PRODUCT.md, "Exit codes").
public enum ExitStatus: Int32, Sendable {
    /// Every image ok, or failures within `--max-failures`.
    case success = 0
    /// More failures than `--max-failures`; `verify` found a problem.
    case failures = 1
    /// Usage error: bad option, missing source.
    case usage = 2
    /// The run could not go on.
    case fatal = 3
    /// Interrupted by Ctrl-C or SIGTERM.
    case interrupted = 130
}
