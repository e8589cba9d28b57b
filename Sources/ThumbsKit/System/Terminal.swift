#if canImport(Glibc)
import Glibc
#endif

/// Whether a person is likely watching: the progress bar is drawn only when
/// stderr is a terminal, never into a log file or a pipe.
enum Terminal {
    /// True when stderr is a terminal (`isatty(2)`).
    static var standardErrorIsTerminal: Bool { isatty(2) != 0 }
}
