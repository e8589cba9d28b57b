#if canImport(Glibc)
import Glibc
#endif

/// The signals that ask a run to stop (Ctrl-C's SIGINT, SIGTERM), and their
/// default handling switched off and on. `InterruptSignal` receives them
/// through Dispatch sources: no C signal handler runs Swift code.
enum InterruptSignals {
    /// SIGINT and SIGTERM.
    static let numbers: [Int32] = [SIGINT, SIGTERM]

    /// Ignores `signal` so that it does not end the process; a Dispatch
    /// source still sees it arrive.
    static func ignore(_ signal: Int32) {
        _ = Glibc.signal(signal, SIG_IGN)
    }

    /// Gives `signal` its default effect back (ending the process).
    static func restoreDefault(_ signal: Int32) {
        _ = Glibc.signal(signal, SIG_DFL)
    }
}
