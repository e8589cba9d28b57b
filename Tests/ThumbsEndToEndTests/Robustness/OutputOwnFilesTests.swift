import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Issue 27.8: OUT's own files (manifest.json, stats.json, report.html, the
/// journal) are checked when OUT is opened. One that is a folder, a link or
/// a FIFO stops the run with exit 3 and a line naming it, before any image
/// is processed, instead of after the last one.
final class OutputOwnFilesTests: TemporaryFolderTestCase {
    private var photos: String { root + "/photos" }

    override func setUpWithError() throws {
        try super.setUpWithError()
        for index in 0..<3 { TestImages.write(photos + "/p\(index).jpg", width: 120, height: 90) }
    }

    /// Prepares a fresh OUT with `make`, runs, and checks the refusal.
    private func assertRefused(
        _ name: String, saying words: String, file: StaticString = #filePath, line: UInt = #line,
        _ make: (String) throws -> Void
    ) async throws {
        let out = root + "/out-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: out + "/.thumbs", withIntermediateDirectories: true)
        try make(out)
        do {
            _ = try await runThumbs([photos], out: out) { $0.size([64]) }
            XCTFail("\(name): the run went on", file: file, line: line)
        } catch let error as RunError {
            XCTAssertEqual(error.exitCode, .fatal, name, file: file, line: line)
            XCTAssertTrue(error.message.contains("\(name) is \(words)"), error.message, file: file, line: line)
            XCTAssertTrue(error.message.contains(out), error.message, file: file, line: line)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/64"), "\(name): images were processed", file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/.thumbs/journal.ndjson") && name != ".thumbs/journal.ndjson",
                       "\(name): a journal was started", file: file, line: line)
    }

    func testAFolderWhereAFileOfOUTBelongsStopsTheRunFirst() async throws {
        for name in ["manifest.json", "stats.json", "report.html", ".thumbs/journal.ndjson"] {
            try await assertRefused(name, saying: "a folder") { out in
                try FileManager.default.createDirectory(atPath: out + "/" + name, withIntermediateDirectories: true)
            }
        }
    }

    func testAFIFOOrALinkedJournalStopsTheRunFirst() async throws {
        let elsewhere = root + "/elsewhere.json"
        try "keep me".write(toFile: elsewhere, atomically: true, encoding: .utf8)
        try await assertRefused(".thumbs/journal.ndjson", saying: "a symbolic link") { out in
            try FileManager.default.createSymbolicLink(atPath: out + "/.thumbs/journal.ndjson", withDestinationPath: elsewhere)
        }
        XCTAssertEqual(try String(contentsOfFile: elsewhere, encoding: .utf8), "keep me")
        try await assertRefused("manifest.json", saying: "a FIFO") { out in
            XCTAssertEqual(mkfifo(out + "/manifest.json", 0o644), 0)
        }
        try await assertRefused("stats.json", saying: "a FIFO") { out in
            XCTAssertEqual(mkfifo(out + "/stats.json", 0o644), 0)
        }
    }

    /// A manifest.json that is a link is replaced by the new manifest (as
    /// OutsideOutTests checks), and never read: a manifest elsewhere does
    /// not make this run skip its images.
    func testAManifestLinkIsNeitherReadNorFollowed() async throws {
        let other = root + "/other"
        _ = try await runThumbs([photos], out: other) { $0.size([64]) }
        let out = root + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        // With the thumbnails there too, a manifest read through the link
        // would make every image `unchanged`.
        try FileManager.default.copyItem(atPath: other + "/64", toPath: out + "/64")
        try FileManager.default.createSymbolicLink(atPath: out + "/manifest.json", withDestinationPath: other + "/manifest.json")
        let before = try Data(contentsOf: URL(fileURLWithPath: other + "/manifest.json"))
        let outcome = try await runThumbs([photos], out: out) { $0.size([64]) }
        XCTAssertEqual(outcome.manifest?.items.map(\.status), [.ok, .ok, .ok], "the linked manifest was read")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: other + "/manifest.json")), before)
        let kind = try FileManager.default.attributesOfItem(atPath: out + "/manifest.json")[.type] as? FileAttributeType
        XCTAssertEqual(kind, .typeRegular)
    }

    /// From the binary: exit 3 and one line.
    func testTheBinaryExits3WithOneLine() throws {
        try ThumbsProcess.requireExecutable()
        let out = root + "/out"
        try FileManager.default.createDirectory(atPath: out + "/manifest.json", withIntermediateDirectories: true)
        let result = try ThumbsProcess.capture(["run", photos, "--out", out, "--size", "64", "--progress", "never"])
        XCTAssertEqual(result.status, 3, result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("manifest.json is a folder"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/64"))
    }

    /// Regular files from an earlier run are what OUT should hold: a re-run
    /// goes on.
    func testRegularFilesAreFine() async throws {
        let out = root + "/out"
        let first = try await runThumbs([photos], out: out) { $0.size([64]) }
        XCTAssertEqual(first.status, .success)
        let second = try await runThumbs([photos], out: out) { $0.size([64]) }
        XCTAssertEqual(second.manifest?.items.map(\.status), [.unchanged, .unchanged, .unchanged])
    }
}
