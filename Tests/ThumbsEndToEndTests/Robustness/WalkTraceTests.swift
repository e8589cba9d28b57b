import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Issue 27, points 4 and 8: what the walk passes by leaves a trace, and
/// what a run wrote is never walked again.
final class WalkTraceTests: TemporaryFolderTestCase {
    var source: String { root + "/photos" }

    func stats(_ out: String) throws -> Statistics {
        try JSONDecoder().decode(Statistics.self, from: Data(contentsOf: URL(fileURLWithPath: out + "/stats.json")))
    }

    // MARK: OUT inside the source folder (27.4)

    func testOutInsideTheSourceIsNeverWalked() async throws {
        TestImages.write(source + "/a.jpg", width: 64, height: 48)
        TestImages.write(source + "/b.jpg", width: 48, height: 64)
        let out = source + "/thumbs-out"
        for run in 1...3 {
            let outcome = try await runThumbs([source], out: out) { $0.size([32]) }
            XCTAssertEqual(outcome.status, .success)
            XCTAssertEqual(outcome.manifest?.items.map(\.id), ["a.jpg", "b.jpg"], "run \(run) walked its own thumbnails")
            XCTAssertEqual(outcome.statistics?.counts.ignored, 1, "OUT is counted as ignored (run \(run))")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/32/thumbs-out"))
    }

    func testOutIsRecognisedByIdentityNotByItsSpelling() async throws {
        // A run killed before its manifest leaves thumbnails and no
        // manifest.json: only OUT's identity tells them from photos. OUT is
        // named through a link, so no path comparison could match.
        TestImages.write(source + "/a.jpg", width: 64, height: 48)
        TestImages.write(source + "/out/32/left-over.jpg", width: 32, height: 24)
        try FileManager.default.createSymbolicLink(atPath: root + "/alias", withDestinationPath: source + "/out")
        let outcome = try await runThumbs([source], out: root + "/alias") { $0.size([32]) }
        XCTAssertEqual(outcome.manifest?.items.map(\.id), ["a.jpg"])
        XCTAssertEqual(outcome.statistics?.counts.ignored, 1)
    }

    func testAFolderHoldingAnotherThumbsRunIsNotWalkedAndSaidOnce() throws {
        TestImages.write(source + "/a.jpg", width: 64, height: 48)
        TestImages.write(source + "/old-thumbs/256/a.jpg", width: 32, height: 24)
        try FileManager.default.createDirectory(atPath: source + "/old-thumbs/.thumbs", withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: URL(fileURLWithPath: source + "/old-thumbs/manifest.json"))
        let out = root + "/out"
        let result = try AssertExecuteCommand([source, "--out", out, "--size", "32", "--progress", "never"])
        let lines = result.stderr.split(separator: "\n").filter { $0.contains("old-thumbs") }
        XCTAssertEqual(lines.count, 1, result.stderr)
        XCTAssertTrue(lines.first?.contains("holds a thumbs run") ?? false, result.stderr)
        let manifest = try readManifest(out)
        XCTAssertEqual(manifest.items.map(\.id), ["a.jpg"])
        XCTAssertEqual(try stats(out).counts.ignored, 1)
    }

    // MARK: special files (27.8)

    func testFIFOsSocketsAndLinksToDevicesAreCountedAndNamedUnderVerbose() throws {
        TestImages.write(source + "/a.jpg", width: 64, height: 48)
        // A FIFO named like an image: opened, it would block the run forever.
        XCTAssertEqual(mkfifo(source + "/pipe.jpg", 0o644), 0)
        try makeSocket(source + "/sock")
        try FileManager.default.createSymbolicLink(atPath: source + "/null.png", withDestinationPath: "/dev/null")
        let out = root + "/out"
        let result = try AssertExecuteCommand([source, "--out", out, "--size", "32", "--progress", "never", "--verbose"])
        XCTAssertEqual(try readManifest(out).items.map(\.id), ["a.jpg"])
        XCTAssertEqual(try stats(out).counts.ignored, 3)
        for (name, what) in [("pipe.jpg", "a FIFO"), ("sock", "a socket"), ("null.png", "a link to a character device")] {
            XCTAssertTrue(result.stderr.contains("ignored \(source)/\(name): \(what)"), "\(name) not named:\n\(result.stderr)")
        }
        let quiet = try AssertExecuteCommand([source, "--out", root + "/out2", "--size", "32", "--progress", "never"])
        XCTAssertFalse(quiet.stderr.contains("pipe.jpg"), "named only under --verbose:\n\(quiet.stderr)")
    }

    /// A Unix socket at `path`, left there (closed) for the walk. It is
    /// bound in a short folder (sun_path holds 108 bytes) and moved.
    func makeSocket(_ path: String) throws {
        let short = "/tmp/thumbs-sock-\(UUID().uuidString.prefix(8))"
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (i, byte) in Array(short.utf8).enumerated() { buffer[i] = byte }
        }
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        XCTAssertEqual(status, 0, "bind \(short): errno \(errno)")
        XCTAssertEqual(rename(short, path), 0, "move the socket to \(path): errno \(errno)")
    }

    // MARK: paths longer than PATH_MAX (27.8)

    func testAFileBeyondPATH_MAXIsReportedAsUnreadable() throws {
        TestImages.write(source + "/a.jpg", width: 64, height: 48)
        // 20 folders of 250 characters: 5,000 bytes, past Linux's 4,096.
        // Made folder by folder relative to the last (mkdirat, openat), as
        // no call that takes a whole path can name the bottom.
        let name = String(repeating: "d", count: 250)
        var folder = open(source, O_RDONLY | O_DIRECTORY)
        XCTAssertGreaterThanOrEqual(folder, 0)
        for _ in 0..<20 {
            XCTAssertEqual(mkdirat(folder, name, 0o755), 0)
            let next = openat(folder, name, O_RDONLY | O_DIRECTORY)
            close(folder)
            folder = next
            XCTAssertGreaterThanOrEqual(folder, 0)
        }
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: source + "/a.jpg"))
        let file = openat(folder, "deep.jpg", O_WRONLY | O_CREAT, 0o644)
        XCTAssertEqual(bytes.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }, bytes.count)
        close(file)
        close(folder)
        defer { removeDeep() }
        let out = root + "/out"
        let result = try AssertExecuteCommand([source, "--out", out, "--size", "32", "--progress", "never"])
        let lines = result.stderr.split(separator: "\n").filter { $0.contains("longer than the system allows") }
        XCTAssertEqual(lines.count, 1, result.stderr)
        XCTAssertEqual(try stats(out).counts.unreadable, 1)
        XCTAssertEqual(try readManifest(out).run?.unreadable, 1)
    }

    /// `rm -rf` walks relative to each folder, where FileManager cannot.
    func removeDeep() {
        let rm = Process()
        rm.executableURL = URL(fileURLWithPath: "/bin/rm")
        rm.arguments = ["-rf", source]
        try? rm.run()
        rm.waitUntilExit()
    }
}
