import Foundation
import XCTest

/// Runs the real `thumbs` executable that `swift test` builds beside the tests.
enum ThumbsProcess {
    static var executable: String {
        Bundle.main.bundleURL.appendingPathComponent("thumbs").path
    }

    static func start(_ arguments: [String], stderr: FileHandle? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = stderr ?? FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Runs to the end and returns the exit status and what went to stderr.
    static func run(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let pipe = Pipe()
        let process = try start(arguments, stderr: pipe.fileHandleForWriting)
        try pipe.fileHandleForWriting.close()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Lines in OUT's journal after its header: items finished so far.
    static func journaled(_ out: String) -> Int {
        guard let data = FileManager.default.contents(atPath: out + "/.thumbs/journal.ndjson") else { return 0 }
        return max(0, data.split(separator: 0x0A).count - 1)
    }

    /// Waits until `condition` holds or the process ends (bounded).
    static func wait(for process: Process, timeout: TimeInterval = 60, until condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && !condition() && Date() < deadline {
            usleep(1000)
        }
    }
}
