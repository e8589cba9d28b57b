import Foundation
import ThumbsTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The built `thumbs` binary run as a child of the test, with what the
/// kernel measured of that child alone: `wait4` gives its own peak resident
/// memory (`ru_maxrss`), where `getrusage(RUSAGE_CHILDREN)` would give the
/// largest of every child the test process ever had.
struct MeasuredRun {
    let pid: pid_t
    let started: ContinuousClock.Instant
    private let stderrPath: String

    struct Result {
        /// The exit status, or nil when a signal ended the process.
        var status: Int32?
        var peakMB: Double
        var seconds: Double
        var stderr: String
    }

    /// Starts `thumbs` with `arguments`; stdout is dropped, stderr kept in a file.
    init(_ arguments: [String]) throws {
        stderrPath = NSTemporaryDirectory() + "thumbs-measured-\(UUID().uuidString.prefix(8)).stderr"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let executable = ThumbsProcess.executable
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        started = .now
        let status = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard status == 0 else { throw NSError(domain: "posix_spawn", code: Int(status)) }
        self.pid = pid
    }

    /// Bytes the child has read so far (`rchar` of /proc/PID/io).
    var bytesRead: Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8) else { return 0 }
        let line = text.split(separator: "\n").first { $0.hasPrefix("rchar:") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
    }

    func signal(_ number: Int32) {
        kill(pid, number)
    }

    /// Waits for the child to end; after `timeout` seconds it is killed
    /// (and the result says so: status nil, seconds past the timeout).
    func wait(timeout: Double = 120) -> Result {
        var status: Int32 = 0
        var usage = rusage()
        let deadline = ContinuousClock.now + .seconds(timeout)
        while wait4(pid, &status, WNOHANG, &usage) == 0 {
            if ContinuousClock.now > deadline { kill(pid, SIGKILL) }
            usleep(2000)
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let stderr = String(decoding: FileManager.default.contents(atPath: stderrPath) ?? Data(), as: UTF8.self)
        try? FileManager.default.removeItem(atPath: stderrPath)
        let exited = status & 0x7F == 0
        return Result(status: exited ? (status >> 8) & 0xFF : nil, peakMB: Double(usage.ru_maxrss) / 1024,
                      seconds: seconds, stderr: stderr)
    }

    /// Runs to the end.
    static func run(_ arguments: [String], timeout: Double = 120) throws -> Result {
        try MeasuredRun(arguments).wait(timeout: timeout)
    }
}

/// Files that claim to be large without taking the disk: a header, then a
/// hole (`truncate`), which reads as zeros.
enum SparseFile {
    /// `size` bytes at `path`: `header` first, zeros after.
    static func write(_ path: String, size: Int, header: [UInt8] = []) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(header).write(to: URL(fileURLWithPath: path))
        guard truncate(path, off_t(size)) == 0 else { throw NSError(domain: "truncate", code: Int(errno)) }
    }

    /// A JPEG's start as far as its frame header: SOI, then a baseline SOF0
    /// declaring `width`×`height` with three components (4:2:0). No tables
    /// and no scan follow; what comes after is up to the file.
    static func jpegHeader(width: Int, height: Int) -> [UInt8] {
        [0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x11, 0x08,
         UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF),
         0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01]
    }
}
