import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Issue 14, point 4, with a real `thumbs` process against a loopback
/// server whose images trickle: SIGINT or SIGTERM while downloads are in
/// flight cancels them, starts nothing new, writes the manifest and exits
/// 130; Ctrl-C while the list is read exits 130 and leaves no download folder.
final class DownloadSignalTests: TemporaryFolderTestCase {
    private static let images = ImageStore()
    /// The child's TMPDIR, where its download folder lives.
    var temporary: String { root + "/tmp" }

    override func setUpWithError() throws {
        try ThumbsProcess.requireExecutable()
        try super.setUpWithError()
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
    }

    /// Twelve images: the first two answer at once, the others send one
    /// byte every 100 ms (each would take minutes).
    private func startServer() async throws -> TestHTTPServer {
        let fast = Self.images.jpeg(width: 64, height: 48)
        let fast2 = Self.images.jpeg(width: 48, height: 64)
        let slow = Self.images.jpeg(width: 80, height: 60)
        let base = BaseBox()
        let server = try await TestHTTPServer.start { request in
            switch request.path {
            case "/list.json":
                let entries = (0..<12).map { "{\"id\":\"p\($0)\",\"download_url\":\"\(base.value)/img/\($0).jpg\"}" }
                return .json("[" + entries.joined(separator: ",") + "]")
            case "/img/0.jpg": return .image(fast)
            case "/img/1.jpg": return .image(fast2)
            case let path where path.hasPrefix("/img/"):
                var response = TestResponse.image(slow)
                response.trickle = .milliseconds(100)
                return response
            case "/slow-list.json":
                var response = TestResponse.json(String(repeating: " ", count: 4000) + "[]")
                response.trickle = .milliseconds(100)
                return response
            default: return .notFound
            }
        }
        base.value = server.base
        addTeardownBlock { await server.stop() }
        return server
    }

    private func start(_ arguments: [String], stderr: Pipe) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ThumbsProcess.executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = temporary
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = stderr.fileHandleForWriting
        try process.run()
        try stderr.fileHandleForWriting.close()
        return process
    }

    /// Download folders the child left in its TMPDIR.
    private func downloadFolders() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: temporary).filter { $0.hasPrefix(HTTPSession.folderPrefix) }
    }

    func testASignalDuringDownloadsCancelsThemWritesTheManifestAndExits130() async throws {
        for sig in [SIGINT, SIGTERM] {
            let server = try await startServer()
            let out = root + "/out-\(sig)"
            let stderr = Pipe()
            let process = try start(["run", "\(server.base)/list.json", "--out", out, "--size", "32", "--jobs", "1",
                                     "--download-jobs", "2", "--retries", "3", "--progress", "never"], stderr: stderr)
            // Two trickling downloads hold both slots.
            let slowInFlight = { server.requests.filter { $0.path.hasPrefix("/img/") && !["/img/0.jpg", "/img/1.jpg"].contains($0.path) }.count }
            ThumbsProcess.wait(for: process, timeout: 60) { slowInFlight() >= 2 }
            XCTAssertTrue(process.isRunning, "signal \(sig): the run ended before the signal")
            let sent = ContinuousClock.now
            kill(process.processIdentifier, sig)
            let message = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            let took = ContinuousClock.now - sent

            XCTAssertEqual(process.terminationStatus, 130, "signal \(sig): \(message)")
            // Behavioural bound: the trickling bodies would take minutes,
            // and without cancellation the run would wait for --timeout (30 s).
            XCTAssertLessThan(took, .seconds(10), "signal \(sig)")
            let late = server.requests.filter { $0.arrived > sent + .seconds(1) }.map(\.path)
            XCTAssertEqual(late, [], "signal \(sig): requested after the signal")
            XCTAssertEqual(server.requests.count, slowInFlight() + server.requests(to: "/list.json").count
                           + server.requests(to: "/img/0.jpg").count + server.requests(to: "/img/1.jpg").count)
            XCTAssertLessThanOrEqual(slowInFlight(), 2, "signal \(sig): no download started after the two in flight")

            let manifest = try readManifest(out)
            XCTAssertEqual(manifest.interrupted, true, "signal \(sig)")
            // Only finished images are listed: the cancelled ones are left
            // for the next run, not recorded as failures.
            XCTAssertTrue(manifest.items.allSatisfy { $0.status == .ok }, "signal \(sig): \(manifest.items.map { ($0.id, $0.error?.message ?? "") })")
            XCTAssertTrue(Set(manifest.items.map(\.id)).isSubset(of: ["p0", "p1"]), "signal \(sig): \(manifest.items.map(\.id))")
            XCTAssertTrue(message.contains("interrupted"), message)
            XCTAssertEqual(try downloadFolders(), [], "signal \(sig): the download folder is removed")
            await server.stop()
        }
    }

    func testCtrlCWhileTheListIsReadExits130AndRemovesTheDownloadFolder() async throws {
        let server = try await startServer()
        let out = root + "/out"
        let stderr = Pipe()
        let process = try start(["run", "\(server.base)/slow-list.json", "--out", out, "--progress", "never"], stderr: stderr)
        ThumbsProcess.wait(for: process, timeout: 60) { !server.requests(to: "/slow-list.json").isEmpty }
        usleep(200_000)  // the first bytes of the list are on their way
        XCTAssertTrue(process.isRunning)
        let sent = ContinuousClock.now
        kill(process.processIdentifier, SIGINT)
        let message = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()

        XCTAssertEqual(process.terminationStatus, 130, message)
        XCTAssertLessThan(ContinuousClock.now - sent, .seconds(10))
        XCTAssertTrue(message.contains("interrupted while reading the photo list \(server.base)/slow-list.json"), message)
        XCTAssertEqual(try downloadFolders(), [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/manifest.json"))
        XCTAssertEqual(server.requests.count, 1)
    }
}
