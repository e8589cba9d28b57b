import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Issue 4, point 4, and issue 14: every broken or hostile input ends as a
/// correct thumbnail or as one failed item with the right code, and the run
/// goes on. Nothing here depends on who runs it: every case holds for root.
final class HostileInputTests: XCTestCase {
    func testHostileCorpus() async throws {
        let root = TestImages.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let expect = try HostileCorpus.write(into: root + "/in")
        // The peak is this run's: what earlier tests in the same process
        // freed goes back to the system first, then the peak restarts.
        MemoryTrim.releaseFreePages()
        let peakReset = Self.resetPeakRSS()
        let outcome = try await SourceReadHook.$current.withValue(HostileCorpus.hook(for: root + "/in")) {
            try await runThumbs([root + "/in"], out: root + "/out") { $0.maxFailures = .percent(100) }
        }
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
        // What changed under the reader, and what a blocked loader reads,
        // say so.
        for id in [HostileCorpus.vanishing, HostileCorpus.shrinking] {
            let message = manifest.item(id)?.error?.message ?? ""
            XCTAssertTrue(message.contains("No such file") || message.contains("changed while being read"), "\(id): \(message)")
        }
        XCTAssertTrue(manifest.item("everyday.bmp")?.error?.message.contains("--allow-untrusted") ?? false)
        // Every message is short enough to read.
        for item in manifest.items {
            XCTAssertLessThanOrEqual(item.error?.message.count ?? 0, MessageFolding.limit, item.id)
        }
        // The file and the folder that wanted one name both have their own.
        let clashPaths = ["clash.png", "clash.jpg/inner.jpg"].compactMap { manifest.item($0)?.outputs.first?.path }
        XCTAssertEqual(Set(clashPaths).count, 2, "\(clashPaths)")
        // The report shows the bidi control as text.
        let html = try String(contentsOfFile: root + "/out/report.html", encoding: .utf8)
        XCTAssertTrue(html.contains("right&lt;U+202E&gt;gpj.exe.png"))
        XCTAssertFalse(html.unicodeScalars.contains("\u{202E}"))
        // Nothing was written outside OUT's size folder, and no temporary file remains.
        let written = FileManager.default.enumerator(atPath: root + "/out")!.compactMap { $0 as? String }
        XCTAssertTrue(written.allSatisfy { $0.hasPrefix("256") || $0.hasPrefix(".thumbs") || ["manifest.json", "stats.json", "report.html"].contains($0) }, "\(written)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root + "/out/.thumbs/tmp"), [])
        // Peak memory over the whole corpus: since the reset above where Linux
        // allows it, else the whole test process's so far.
        let peakKB: Int
        if peakReset, let hwm = Self.peakRSSSinceReset() {
            peakKB = hwm
        } else {
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            peakKB = usage.ru_maxrss
        }
        XCTAssertLessThan(peakKB, 300 * 1024, "peak RSS \(peakKB / 1024) MB")
    }

    /// Resets the process's peak RSS to its current RSS (Linux 4.0+:
    /// `/proc/self/clear_refs`, value 5).
    private static func resetPeakRSS() -> Bool {
        (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
    }

    /// VmHWM from /proc/self/status, in KB.
    private static func peakRSSSinceReset() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
        return line.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") }
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
