import Foundation
import ThumbsKit
import ThumbsTestSupport
import XCTest

/// Issue 27.9: a path given where a manifest is expected that is not a
/// regular file gets a message saying what the path is and what was
/// expected, and exit 2; a device is never read.
final class ManifestPathTests: TemporaryFolderTestCase {
    func testAFolderGivenAsAManifestIsNamedAsAFolder() throws {
        let folder = root + "/shard"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let expected = "\(folder) is a folder, not a manifest: give the path of a manifest.json"
        // --against takes a baseline run's folder (issue 37): an empty one
        // is named by the manifest it lacks.
        for arguments in [["verify", folder], ["stats", folder], ["verify", root + "/x.json", "--against", folder]] {
            if arguments.count > 2 { try validManifest(at: root + "/x.json") }
            let said = arguments.count > 2 ? "no manifest at \(folder)/manifest.json" : expected
            let result = try AssertExecuteCommand(arguments, exitCode: 2, stderr: [said])
            XCTAssertFalse(result.stderr.contains("NSCocoaErrorDomain"), result.stderr)
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        }
        // merge takes a folder for the manifest.json inside it; when that
        // one is a folder too, it is named.
        try FileManager.default.createDirectory(atPath: folder + "/manifest.json", withIntermediateDirectories: true)
        try AssertExecuteCommand(["merge", folder, "--out", root + "/all"], exitCode: 2, stderr: [
            "\(folder)/manifest.json is a folder, not a manifest",
        ])
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/all/manifest.json"))
    }

    /// A run's OUT given to `stats`: the message points at its manifest.
    func testAFolderHoldingAManifestIsSuggested() throws {
        try validManifest(at: root + "/out/manifest.json")
        try AssertExecuteCommand(["stats", root + "/out"], exitCode: 2, stderr: [
            "\(root)/out is a folder, not a manifest: give the path of a manifest.json, such as \(root)/out/manifest.json",
        ])
    }

    /// /dev/zero would be read forever; as root, Foundation said "You don't
    /// have permission". A FIFO nobody writes to would hang.
    func testDevicesAndFIFOsAreNamedAndNeverRead() throws {
        let fifo = root + "/pipe.json"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let clock = ContinuousClock.now
        for (path, kind) in [("/dev/zero", "a character device"), ("/dev/null", "a character device"), (fifo, "a FIFO")] {
            for command in ["verify", "stats"] {
                let result = try AssertExecuteCommand([command, path], exitCode: 2, stderr: [
                    "\(path) is \(kind)", "not a manifest file",
                ])
                XCTAssertFalse(result.stderr.contains("permission"), result.stderr)
            }
            try AssertExecuteCommand(["merge", path, "--out", root + "/all"], exitCode: 2, stderr: ["\(path) is \(kind)"])
        }
        XCTAssertLessThan(ContinuousClock.now - clock, .seconds(60))
    }

    /// A minimal manifest `thumbs stats` accepts.
    private func validManifest(at path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        let manifest = Manifest(tool: .init(libvips: "8"), startedAt: "2026-01-01T00:00:00Z",
                                finishedAt: "2026-01-01T00:00:01Z", settings: OutputSettings(), items: [])
        try JSONCoding.encode(manifest).write(to: URL(fileURLWithPath: path))
    }
}
