import Foundation
import XCTest
@testable import ThumbsKit

/// Issue 4, point 4: every broken or hostile input ends as a correct
/// thumbnail or as one failed item with the right code, and the run goes on.
final class HostileInputTests: XCTestCase {
    func testHostileCorpus() async throws {
        let root = TestImages.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let expect = try HostileCorpus.write(into: root + "/in")
        let outcome = try await runThumbs([root + "/in"], out: root + "/out") { $0.maxFailures = .percent(100) }
        XCTAssertEqual(outcome.status, .success)
        let manifest = try readManifest(root + "/out")
        XCTAssertEqual(Set(manifest.items.map(\.id)), Set(expect.keys), "every named file is exactly one item")
        XCTAssertEqual(manifest.items.count, expect.count)
        for item in manifest.items {
            guard let e = expect[item.id] else { continue }
            switch e {
            case .ok(let width, let height):
                XCTAssertEqual(item.status, .ok, "\(item.id): \(item.error?.message ?? "")")
                let output = try XCTUnwrap(item.outputs.first, item.id)
                XCTAssertEqual([output.width, output.height], [width, height], item.id)
                let header = try XCTUnwrap(TestImages.header(root + "/out/" + output.path), item.id)
                XCTAssertEqual([header.width, header.height], [width, height], item.id)
            case .failed(let code):
                XCTAssertEqual(item.status, .failed, item.id)
                XCTAssertEqual(item.error?.code, code, "\(item.id): \(item.error?.message ?? "")")
                XCTAssertFalse(item.error?.message.isEmpty ?? true)
                XCTAssertTrue(item.outputs.isEmpty)
            case .okOrFailed(let code):
                if item.status == .failed {
                    XCTAssertEqual(item.error?.code, code, "\(item.id): \(item.error?.message ?? "")")
                } else {
                    XCTAssertEqual(item.status, .ok, item.id)
                }
            }
        }
        // The bombs were refused from their headers, before decoding.
        let bomb = try XCTUnwrap(manifest.item("bomb.png"))
        XCTAssertTrue(bomb.error?.message.contains("--max-pixels") ?? false, bomb.error?.message ?? "")
        // Nothing was written outside OUT's size folder, and no temporary file remains.
        let written = FileManager.default.enumerator(atPath: root + "/out")!.compactMap { $0 as? String }
        XCTAssertTrue(written.allSatisfy { $0.hasPrefix("256") || $0.hasPrefix(".thumbs") || ["manifest.json", "stats.json", "report.html"].contains($0) }, "\(written)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root + "/out/.thumbs/tmp"), [])
        // Peak memory over the whole corpus (this test process, all tests so far).
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        XCTAssertLessThan(usage.ru_maxrss, 300 * 1024, "peak RSS \(usage.ru_maxrss / 1024) MB")
    }

    func testFailOnNoneDecodesWhatItCan() async throws {
        let root = TestImages.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let jpeg = [UInt8](FileManager.default.contents(atPath: TestImages.write(root + "/whole.jpg", width: 400, height: 300))!)
        try FileManager.default.removeItem(atPath: root + "/whole.jpg")
        try FileManager.default.createDirectory(atPath: root + "/in", withIntermediateDirectories: true)
        try Data(jpeg.prefix(jpeg.count * 2 / 3)).write(to: URL(fileURLWithPath: root + "/in/cut.jpg"))
        let strict = try await runThumbs([root + "/in"], out: root + "/strict")
        XCTAssertEqual(strict.status, .failures)
        XCTAssertEqual(strict.manifest?.items.first?.status, .failed)
        let lenient = try await runThumbs([root + "/in"], out: root + "/lenient") { $0.failOn = .none }
        XCTAssertEqual(lenient.status, .success)
        XCTAssertEqual(lenient.manifest?.items.first?.status, .ok)
    }
}
