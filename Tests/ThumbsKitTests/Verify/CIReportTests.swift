import Foundation
import XCTest
@testable import ThumbsKit

/// The CI outputs of `verify`: JUnit XML against a JUnit schema (xmllint,
/// Tests/Fixtures/junit/junit.xsd), GitHub's workflow command format, and
/// the doubled slash that is no way out of the folder (issue 39).
final class CIReportTests: XCTestCase {
    private var result: VerifyResult {
        VerifyResult(manifest: "out/manifest.json", baseline: "ci/baseline/manifest.json", items: 2, outputs: 2, findings: [
            VerifyFinding(.changedPixels, id: "a/b.jpg", path: "256/a/b.jpg", size: "256",
                          "SSIM 0.913 (limit 0.980), colour ΔE 7.2 (limit 2.0), p99 15.3",
                          difference: PixelDifference(ssim: 0.913, meanDeltaE: 7.2, p99DeltaE: 15.3)),
            VerifyFinding(.settingsChanged, id: "", "settings differ: --quality 80 → --quality 90"),
            VerifyFinding(.missing, id: "gone <&> \"it\".jpg", "in the baseline (ok) but not in this manifest"),
        ], maxDifference: 0.02)
    }

    private var manifest: Manifest {
        var manifest = SyntheticManifest.make(items: 2)
        manifest.items[0].id = "a/b.jpg"
        manifest.items[0].outputs = [ManifestOutput(size: "256", path: "256/a/b.jpg", width: 256, height: 192, bytes: 9, format: "jpeg", sha256: "00")]
        return manifest
    }

    func testJUnitPassesTheSchema() throws {
        let xmllint = "/usr/bin/xmllint"
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: xmllint), "xmllint (libxml2-utils) is not installed")
        let schema = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Fixtures/junit/junit.xsd").standardizedFileURL.path
        let dir = NSTemporaryDirectory() + "junit-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let xml = JUnitReport.xml(result, manifest: manifest)
        try Data(xml.utf8).write(to: URL(fileURLWithPath: dir + "/verify.xml"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: xmllint)
        process.arguments = ["--noout", "--schema", schema, dir + "/verify.xml"]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(process.terminationStatus, 0, said + "\n" + xml)
        // One test case per item and size, the failing one says why.
        XCTAssertTrue(xml.contains("<testcase classname=\"a/b.jpg\" name=\"256\">"), xml)
        XCTAssertTrue(xml.contains("type=\"changed-pixels\""), xml)
        XCTAssertTrue(xml.contains("classname=\"gone &lt;&amp;&gt; &quot;it&quot;.jpg\""), xml)
    }

    func testAnnotationsHaveGitHubsFormat() {
        let lines = GitHubReport.annotations(result)
        XCTAssertEqual(lines.count, 3)
        XCTAssertEqual(lines[0], "::error file=out/256/a/b.jpg,title=thumbs verify%3A changed-pixels::a/b.jpg 256: SSIM 0.913 (limit 0.980), colour ΔE 7.2 (limit 2.0), p99 15.3")
        // Every line: `::error` then properties `key=value` joined by commas, then `::` and the message.
        let format = try! NSRegularExpression(pattern: "^::error( [a-z]+=[^,:\\n]*(,[a-z]+=[^,:\\n]*)*)?::[^\\n]*$")
        for line in lines {
            XCTAssertEqual(format.numberOfMatches(in: line, range: NSRange(line.startIndex..., in: line)), 1, line)
        }
        XCTAssertEqual(GitHubReport.data("50%\nnext"), "50%25%0Anext")
        XCTAssertEqual(GitHubReport.property("a:b,c"), "a%3Ab%2Cc")
        XCTAssertTrue(GitHubReport.summary(result).contains("| changed-pixels | a/b.jpg | 256 |"))
    }

    /// Issue 39: `256//p01.jpg` is looked up (here: missing), not called
    /// outside; only a path into a sibling folder, as a merge without
    /// --copy writes, gets the merge hint.
    func testOutsideFindingsSayWhyAndHintAtMergeOnlyForSiblings() {
        let manifest = SyntheticManifest.make(items: 1)
        let root = NSTemporaryDirectory() + "outside-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: root + "/256", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let check = OutputCheck(manifest: manifest, root: root)
        func message(_ path: String) -> (VerifyFinding.Kind?, String) {
            let output = ManifestOutput(size: "256", path: path, width: 1, height: 1, bytes: 1, format: "jpeg", sha256: "00")
            let finding = check.check(output, of: manifest.items[0], box: ThumbSize(width: 256, height: 256)).first
            return (finding?.kind, finding?.message ?? "")
        }
        XCTAssertEqual(message("256//p01.jpg").0, .missingOutput, message("256//p01.jpg").1)
        let plain = message("256/../../etc/x.jpg")
        XCTAssertEqual(plain.0, .outsideFolder)
        XCTAssertTrue(plain.1.contains("climbs out with `..`"), plain.1)
        XCTAssertFalse(plain.1.contains("merge"), plain.1)
        XCTAssertFalse(message("/etc/x.jpg").1.contains("merge"), message("/etc/x.jpg").1)
        XCTAssertTrue(message("../shard-0/256/a.jpg").1.contains("a merge without --copy"), message("../shard-0/256/a.jpg").1)
    }

    func testDoubledSlashStaysInside() {
        XCTAssertEqual(ContainedFile.withoutDoubledSlashes("256//p01.jpg"), "256/p01.jpg")
        XCTAssertEqual(ContainedFile.whyOutside("//etc/passwd"), "is absolute")
        XCTAssertEqual(ContainedFile.whyOutside("/etc/passwd"), "is absolute")
        XCTAssertEqual(ContainedFile.whyOutside("256/../../x"), "climbs out with `..`")
    }
}
