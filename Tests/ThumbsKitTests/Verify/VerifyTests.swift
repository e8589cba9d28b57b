import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// The verifier's parts that need no run: baseline comparison of made-up
/// manifests, unreadable manifests, the JSON shape.
final class VerifyTests: XCTestCase {
    /// ok, unchanged and duplicate all mean "has its thumbnails"; a failure
    /// whose code changed is a status change.
    func testSettingsChangeAndStatusClasses() throws {
        let base = SyntheticManifest.make(items: 200)
        var now = base
        now.settings.quality = 90
        var flipped = 0
        for i in now.items.indices {
            switch now.items[i].status {
            case .ok: now.items[i].status = flipped % 2 == 0 ? .unchanged : .duplicate
            case .duplicate, .unchanged: now.items[i].status = .ok
            case .failed: continue
            }
            flipped += 1
        }
        let failed = try XCTUnwrap(now.items.firstIndex { $0.status == .failed })
        let code = now.items[failed].error?.code == "decode" ? "io" : "decode"
        now.items[failed].error?.code = code
        let findings = BaselineComparison(current: now, baseline: base).run()
        XCTAssertEqual(findings.map(\.kind), [.settingsChanged, .statusChanged])
        XCTAssertTrue(findings[0].message.contains("--quality 80") && findings[0].message.contains("--quality 90"), findings[0].message)
        XCTAssertEqual(findings[1].id, now.items[failed].id)
        XCTAssertTrue(findings[1].message.hasPrefix("status failed ("), findings[1].message)
    }

    func testUnreadableManifestIsAUsageError() throws {
        let dir = TestImages.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("{\"schema\": \"something else\"}".utf8).write(to: URL(fileURLWithPath: dir + "/m.json"))
        for path in [dir + "/missing.json", dir + "/m.json"] {
            XCTAssertThrowsError(try ManifestVerifier(manifestPath: path).run()) { error in
                XCTAssertEqual((error as? RunError)?.exitCode, .usage)
            }
        }
    }

    func testJSONShape() throws {
        let result = VerifyResult(manifest: "m.json", baseline: nil, items: 1, outputs: 1,
                                  findings: [VerifyFinding(.missingOutput, id: "a", path: "256/a.jpg", "256/a.jpg does not exist")])
        let object = try JSONSerialization.jsonObject(with: JSONCoding.encode(result)) as? [String: Any]
        XCTAssertEqual(object?["schema"] as? String, "thumbs.verify/1")
        let findings = object?["findings"] as? [[String: Any]]
        XCTAssertEqual(findings?.first?["kind"] as? String, "missing-output")
        XCTAssertEqual(findings?.first?["path"] as? String, "256/a.jpg")
    }
}

/// Issue 39, §6: an output path verify does not open is named for what it
/// is; the merge hint goes only with a path that climbs out as a merge's do.
final class UncontainedOutputPathTests: XCTestCase {
    func testEachPathVerifyDoesNotOpenIsNamedForWhatItIs() {
        let empty = OutputCheck.notContained("256//p01.jpg")
        XCTAssertEqual(empty, "256//p01.jpg is not a plain relative path (it has an empty segment), so verify does not open it")
        XCTAssertFalse(empty.contains("merge"), empty)
        XCTAssertEqual(OutputCheck.notContained("256/./p01.jpg"),
                       "256/./p01.jpg is not a plain relative path (it has a \".\" segment), so verify does not open it")
        let inner = OutputCheck.notContained("256/../../x.jpg")
        XCTAssertTrue(inner.hasPrefix("256/../../x.jpg leads outside the manifest's folder"), inner)
        XCTAssertFalse(inner.contains("merge"), inner)
        let absolute = OutputCheck.notContained("/etc/x.jpg")
        XCTAssertTrue(absolute.hasPrefix("/etc/x.jpg is an absolute path"), absolute)
        XCTAssertFalse(absolute.contains("merge"), absolute)
        let merged = OutputCheck.notContained("../shards/0/256/a.jpg")
        XCTAssertTrue(merged.hasSuffix("(a merge without --copy refers to the shards' folders: verify each shard, or merge with --copy)"), merged)
    }
}
