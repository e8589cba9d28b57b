import Foundation
import ThumbsTestSupport
import XCTest

/// Issue 27, point 2: a folder that cannot be read is never taken for an
/// empty one. It is said on one line, counted in `counts.unreadable`, and
/// `--prune` keeps the thumbnails of what lies below it.
///
/// Root reads every folder whatever its mode, so the runs are those of an
/// unprivileged user (uid 65534) through `setpriv`, as a cron job's would be.
final class UnreadableFolderTests: TemporaryFolderTestCase {
    static let setpriv = "/usr/bin/setpriv"
    static let nobody: UInt32 = 65534

    var source: String { root + "/photos" }
    var out: String { root + "/out" }

    override func setUpWithError() throws {
        try super.setUpWithError()
        try ThumbsProcess.requireExecutable()
        guard FileManager.default.isExecutableFile(atPath: Self.setpriv) else {
            throw XCTSkip("this test runs thumbs as an unprivileged user through \(Self.setpriv), which is missing (util-linux)")
        }
    }

    /// `thumbs ARGUMENTS` as uid and gid 65534, without supplementary groups
    /// (as root) or as the current user (otherwise: already unprivileged).
    func runAsNobody(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let launcher = getuid() == 0 ? [Self.setpriv, "--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups"] : []
        return try ThumbsProcess.run(arguments, launcher: launcher)
    }

    /// Gives `root` and everything below it to uid 65534.
    func handOver() throws {
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: root)
        guard getuid() == 0 else { return }
        let paths = [root] + (FileManager.default.subpaths(atPath: root) ?? []).map { root + "/" + $0 }
        for path in paths where chown(path, Self.nobody, Self.nobody) != 0 {
            XCTFail("cannot give \(path) to uid \(Self.nobody): errno \(errno)")
        }
    }

    func stats() throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: out + "/stats.json"))
        return try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func testAnUnreadableFolderIsReportedCountedAndItsThumbnailsSurviveAPrune() throws {
        TestImages.write(source + "/2024/a.jpg", width: 64, height: 48)
        TestImages.write(source + "/2024/b.jpg", width: 48, height: 64)
        TestImages.write(source + "/2025/c.jpg", width: 64, height: 64)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try handOver()
        let first = try runAsNobody([source, "--out", out, "--size", "32", "--progress", "never"])
        XCTAssertEqual(first.status, 0, first.stderr)
        for name in ["2024/a.jpg", "2024/b.jpg", "2025/c.jpg"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/32/" + name), name)
        }

        // The folder of 2024 becomes unreadable (a permission change on a
        // NAS, an ACL); the run prunes with no share limit, so only the
        // unreadable-folder rule can keep its thumbnails.
        XCTAssertEqual(chmod(source + "/2024", 0), 0)
        defer { chmod(source + "/2024", 0o755) }
        let second = try runAsNobody([source, "--out", out, "--size", "32", "--prune", "--max-prune", "100%", "--progress", "never"])
        XCTAssertEqual(second.status, 0, second.stderr)
        let lines = second.stderr.split(separator: "\n").filter { $0.contains(source + "/2024") }
        XCTAssertEqual(lines.count, 1, "one line names the unreadable folder:\n\(second.stderr)")
        XCTAssertTrue(lines.first?.contains("Permission denied") ?? false, second.stderr)
        for name in ["2024/a.jpg", "2024/b.jpg", "2025/c.jpg"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/32/" + name), "--prune deleted \(name)")
        }
        let counts = try XCTUnwrap(try stats()["counts"] as? [String: Any])
        XCTAssertEqual(counts["unreadable"] as? Int, 1)
        let manifest = try readManifest(out)
        XCTAssertEqual(manifest.run?.unreadable, 1, "the manifest keeps the count for stats and merge")
        XCTAssertNil(manifest.gone, "what could not be seen is not gone")
        // The unseen items stay on record (`kept`, not items: not counted),
        // so the next run finds them unchanged.
        XCTAssertEqual(manifest.items.map(\.id), ["2025/c.jpg"])
        XCTAssertEqual(manifest.kept?.map(\.id), ["2024/a.jpg", "2024/b.jpg"])
        XCTAssertEqual(counts["discovered"] as? Int, 1)

        // Readable again: nothing is redone, nothing was lost.
        XCTAssertEqual(chmod(source + "/2024", 0o755), 0)
        let third = try runAsNobody([source, "--out", out, "--size", "32", "--prune", "--progress", "never"])
        XCTAssertEqual(third.status, 0, third.stderr)
        let again = try readManifest(out)
        XCTAssertEqual(again.items.map(\.id), ["2024/a.jpg", "2024/b.jpg", "2025/c.jpg"])
        XCTAssertEqual(again.items.map(\.status), [.unchanged, .unchanged, .unchanged])
        XCTAssertEqual(again.run?.unreadable, 0)
    }

    func testAnUnreadableFileThatIsNotNamedLikeAnImageIsReportedNotIgnored() throws {
        // An image without an extension: recognised by its content, so its
        // content must be read; when it cannot be, it may be an image.
        TestImages.write(source + "/scan.jpg", width: 64, height: 48)
        try FileManager.default.moveItem(atPath: source + "/scan.jpg", toPath: source + "/scan")
        TestImages.write(source + "/d.jpg", width: 64, height: 48)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try handOver()
        XCTAssertEqual(try runAsNobody([source, "--out", out, "--size", "32", "--progress", "never"]).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/32/scan.jpg"))

        XCTAssertEqual(chmod(source + "/scan", 0), 0)
        let second = try runAsNobody([source, "--out", out, "--size", "32", "--prune", "--max-prune", "100%", "--progress", "never"])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertTrue(second.stderr.contains("cannot read \(source)/scan: Permission denied"), second.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/32/scan.jpg"), "--prune deleted the unreadable file's thumbnail")
        let counts = try XCTUnwrap(try stats()["counts"] as? [String: Any])
        XCTAssertEqual(counts["unreadable"] as? Int, 1)
        XCTAssertEqual(counts["ignored"] as? Int, 0, "not taken for a file that is not an image")
    }
}
