import Foundation

/// Everything a run tells a person or a log shipper, on stderr (the final
/// summary goes to stdout in text mode).
///
/// Text logs are short lines; `--log-format json` writes one JSON object per
/// event. The progress bar is drawn only on a terminal (or `--progress always`)
/// and is cleared before any other line is printed.
public final class Console: @unchecked Sendable {
    public let verbosity: Verbosity
    public let format: LogFormat
    public let showsProgress: Bool
    /// Prints nothing at all, not even errors (library use, tests).
    public let muted: Bool
    private let lock = NSLock()
    private var barVisible = false
    private var lastDraw = 0.0

    public init(verbosity: Verbosity = .normal, format: LogFormat = .text, progress: ProgressMode = .auto, muted: Bool = false) {
        self.muted = muted
        self.verbosity = verbosity
        self.format = format
        switch muted ? .never : progress {
        case .always: showsProgress = format == .text && verbosity != .quiet
        case .never: showsProgress = false
        case .auto: showsProgress = format == .text && verbosity != .quiet && Terminal.standardErrorIsTerminal
        }
    }

    /// A console that prints nothing (tests, library use).
    public static let silent = Console(verbosity: .quiet, format: .text, progress: .never, muted: true)

    public enum Level: String, Sendable { case debug, info, warning, error }

    /// One event. `text` is the human line; `fields` go into the JSON object.
    public func event(_ name: String, level: Level, _ text: @autoclosure () -> String, fields: [String: JSONValue] = [:]) {
        if muted { return }
        switch level {
        case .debug: guard verbosity >= .verbose else { return }
        case .info, .warning: guard verbosity >= .normal else { return }
        case .error: break
        }
        let line: String
        if format == .json {
            var object = fields
            object["event"] = .string(name)
            object["level"] = .string(level.rawValue)
            object["time"] = .string(Timestamp.now())
            if object["message"] == nil { object["message"] = .string(VisibleText.forTerminal(text())) }
            line = Console.jsonLine(.object(object))
        } else {
            // Names in messages come from file systems and lists: a control
            // character or a bidi override is shown, never obeyed.
            let shown = VisibleText.forTerminal(text())
            switch level {
            case .error: line = "thumbs: " + shown
            case .warning: line = "thumbs: warning: " + shown
            default: line = shown
            }
        }
        lock.lock()
        defer { lock.unlock() }
        clearBarLocked()
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Prints the end-of-run summary (text mode, not quiet) to stdout.
    public func summary(_ lines: [String]) {
        guard !muted, format == .text, verbosity >= .normal else { return }
        lock.lock()
        defer { lock.unlock() }
        clearBarLocked()
        FileHandle.standardOutput.write(Data((lines.map(VisibleText.forTerminal).joined(separator: "\n") + "\n").utf8))
    }

    /// Redraws the one-line progress bar, at most ten times a second.
    public func progress(done: Int, total: Int, failed: Int, elapsed: Double, force: Bool = false) {
        guard showsProgress else { return }
        lock.lock()
        defer { lock.unlock() }
        guard force || elapsed - lastDraw >= 0.1 || done == total else { return }
        lastDraw = elapsed
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let remaining = rate > 0 ? Double(total - done) / rate : 0
        let width = 24
        let filled = total > 0 ? min(width, width * done / total) : 0
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        var line = "\(bar) \(done)/\(total)  \(String(format: "%.1f", rate)) img/s  ETA \(Console.duration(remaining))"
        if failed > 0 { line += "  \(failed) failed" }
        FileHandle.standardError.write(Data(("\r\u{1B}[2K" + line).utf8))
        barVisible = true
    }

    /// Removes the bar before the program prints its last lines.
    public func endProgress() {
        lock.lock()
        defer { lock.unlock() }
        clearBarLocked()
    }

    private func clearBarLocked() {
        if barVisible {
            FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
            barVisible = false
        }
    }

    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "--" }
        let s = Int(seconds.rounded())
        return s >= 3600 ? "\(s / 3600)h\(String(format: "%02d", s % 3600 / 60))m"
            : s >= 60 ? "\(s / 60)m\(String(format: "%02d", s % 60))s" : "\(s)s"
    }

    static func jsonLine(_ value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
