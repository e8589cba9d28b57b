import Foundation
import XCTest

/// Runs the real `thumbs` executable that `swift test` builds beside the tests.
public enum ThumbsProcess {
    /// `swift build` puts `thumbs` in the same folder as the test bundle.
    public static var executable: String {
        Bundle.main.bundleURL.appendingPathComponent("thumbs").path
    }

    /// The environment variable that lets the tests of the binary be
    /// skipped when it was not built (a test bundle built alone, `swift
    /// build --target ...`). Unset, a missing binary fails those tests:
    /// `make test` must never pass without having run them.
    public static let allowMissingVariable = "THUMBS_TESTS_WITHOUT_BINARY"

    /// Why a test of the binary could not run.
    public struct MissingExecutable: Error, CustomStringConvertible {
        public var description: String
    }

    /// Fails the calling test, saying why, when the binary was not built;
    /// skips it instead when `THUMBS_TESTS_WITHOUT_BINARY=1` says so.
    public static func requireExecutable(environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard !FileManager.default.isExecutableFile(atPath: executable) else { return }
        let why = "this test runs the thumbs executable, which is not at \(executable); "
            + "`swift build --build-tests` (or `swift test`) builds it beside the tests"
        if environment[allowMissingVariable] == "1" {
            throw XCTSkip(why + " (skipped: \(allowMissingVariable)=1)")
        }
        throw MissingExecutable(description: why + "; set \(allowMissingVariable)=1 to skip such tests instead")
    }

    /// Starts `thumbs ARGUMENTS`, or `LAUNCHER… thumbs ARGUMENTS` when a
    /// launcher is given (`setpriv` to drop privileges, `prlimit` for limits).
    public static func start(_ arguments: [String], stderr: FileHandle? = nil, launcher: [String] = []) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: launcher.first ?? executable)
        process.arguments = launcher.isEmpty ? arguments : Array(launcher.dropFirst()) + [executable] + arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = stderr ?? FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Runs to the end and returns the exit status and what went to stderr.
    public static func run(_ arguments: [String], launcher: [String] = []) throws -> (status: Int32, stderr: String) {
        let pipe = Pipe()
        let process = try start(arguments, stderr: pipe.fileHandleForWriting, launcher: launcher)
        try pipe.fileHandleForWriting.close()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Lines in OUT's journal after its header: items finished so far.
    public static func journaled(_ out: String) -> Int {
        guard let data = FileManager.default.contents(atPath: out + "/.thumbs/journal.ndjson") else { return 0 }
        return max(0, data.split(separator: 0x0A).count - 1)
    }

    /// Waits until `condition` holds or the process ends (bounded).
    public static func wait(for process: Process, timeout: TimeInterval = 60, until condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && !condition() && Date() < deadline {
            usleep(1000)
        }
    }

    /// What a finished process wrote and how it ended.
    public struct Result: Sendable {
        /// The exit status, or the signal's number when `signalled`.
        public var status: Int32
        public var stdout: String
        public var stderr: String
        /// Ended by a signal (a crash, or the kill of a `timeout`), not by exit.
        public var signalled = false
        /// Still running at the `timeout`, and killed then.
        public var timedOut = false
    }

    /// Runs to the end, keeping stdout and stderr apart. Both go to files
    /// rather than pipes, so a chatty child can never block on a full pipe.
    /// With a `timeout` (seconds), a process still running then is killed
    /// (SIGKILL) and the result says `timedOut`.
    public static func capture(
        _ arguments: [String], environment: [String: String]? = nil, timeout: TimeInterval? = nil
    ) throws -> Result {
        let folder = NSTemporaryDirectory() + "thumbs-capture-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let outPath = folder + "/stdout", errPath = folder + "/stderr"
        FileManager.default.createFile(atPath: outPath, contents: nil)
        FileManager.default.createFile(atPath: errPath, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        try process.run()
        var timedOut = false
        if let timeout {
            wait(for: process, timeout: timeout) { false }
            if process.isRunning {
                timedOut = true
                kill(process.processIdentifier, SIGKILL)
            }
        }
        process.waitUntilExit()
        try out.close()
        try err.close()
        func text(_ path: String) -> String {
            String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
        }
        return Result(
            status: process.terminationStatus, stdout: text(outPath), stderr: text(errPath),
            signalled: process.terminationReason == .uncaughtSignal, timedOut: timedOut
        )
    }
}

/// Runs `thumbs` with `arguments` and checks its exit status and what it
/// printed, as swift-argument-parser's `AssertExecuteCommand` does: every
/// string of `stdout` and `stderr` must appear in that stream. Returns the
/// result for further checks.
@discardableResult
public func AssertExecuteCommand(
    _ arguments: [String], exitCode: Int32 = 0, stdout: [String] = [], stderr: [String] = [],
    file: StaticString = #filePath, line: UInt = #line
) throws -> ThumbsProcess.Result {
    try ThumbsProcess.requireExecutable()
    let result = try ThumbsProcess.capture(arguments)
    let command = (["thumbs"] + arguments).joined(separator: " ")
    XCTAssertEqual(result.status, exitCode, "`\(command)` exit status; stderr:\n\(result.stderr)", file: file, line: line)
    for expected in stdout where !result.stdout.contains(expected) {
        XCTFail("`\(command)` stdout lacks \"\(expected)\":\n\(result.stdout)", file: file, line: line)
    }
    for expected in stderr where !result.stderr.contains(expected) {
        XCTFail("`\(command)` stderr lacks \"\(expected)\":\n\(result.stderr)", file: file, line: line)
    }
    return result
}
