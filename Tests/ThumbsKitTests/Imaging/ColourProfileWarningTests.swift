import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// A photo whose embedded ICC profile cannot be applied loses no picture:
/// whatever `--fail-on` says, the item is `ok`, made as if the photo had no
/// profile (its pixels taken as sRGB), with one warning that says so; the
/// warning is counted in stats.json, listed in the report and shown by
/// `thumbs stats`. On the direct JPEG path and on libvips' (`--keep-metadata`).
final class ColourProfileWarningTests: TemporaryFolderTestCase {
    /// 400 bytes whose header declares 400 bytes, without the 'acsp'
    /// signature: lcms2 refuses to open it.
    private static let garbage: [UInt8] = [0, 0, 0x01, 0x90] + (4..<400).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }

    /// A well-formed 128-byte header (RGB, display class, 'acsp', 1024
    /// bytes declared) followed by 896 pseudo-random bytes (a fixed seed):
    /// its tag table is noise.
    private static let randomTags: [UInt8] = {
        var header = Array(ICCWriter.rgb(curve: ICCWriter.gamma(2.2)).prefix(128))
        header[0...3] = [0, 0, 0x04, 0x00]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let noise = (128..<1024).map { _ -> UInt8 in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        return header + noise
    }()

    /// lcms2 opens it, but its curves are of a type it does not know: no
    /// transform can be made from it.
    private static let unreadableCurves = ICCWriter.rgb(curve: Array("xxxx".utf8) + [UInt8](repeating: 0, count: 12))

    func testAnUnusableProfileGivesAnOkItemWithOneWarning() async throws {
        for keepMetadata in [false, true] {
            for failOn in [FailOn.error, .truncated] {
                let plain = try await runOne(profile: nil, keepMetadata: keepMetadata, failOn: failOn, name: "plain")
                for (label, profile, reason) in [("garbage", Self.garbage, "lcms2 cannot read it"),
                                                 ("random", Self.randomTags, "ICC colour profile is unusable"),
                                                 ("curves", Self.unreadableCurves, "lcms2 cannot make a transform to sRGB from it")] {
                    let context = "\(label), keep-metadata \(keepMetadata), fail-on \(failOn)"
                    let item = try await runOne(profile: profile, keepMetadata: keepMetadata, failOn: failOn, name: label)
                    XCTAssertEqual(item.status, .ok, "\(context): \(item.error?.message ?? "")")
                    XCTAssertNil(item.error, context)
                    let warnings = try XCTUnwrap(item.warnings, context)
                    XCTAssertEqual(warnings.count, 1, "\(context): \(warnings)")
                    XCTAssertTrue(warnings[0].contains(reason), "\(context): \(warnings[0])")
                    XCTAssertTrue(warnings[0].contains("taken as sRGB"), "\(context): \(warnings[0])")
                    // Taken as sRGB: the thumbnail the untagged photo gives.
                    XCTAssertEqual(item.outputs.map(\.sha256), plain.outputs.map(\.sha256), context)
                }
                XCTAssertNil(plain.warnings)
            }
        }
    }

    /// One warned item among clean ones: counted in stats.json (and by
    /// `thumbs stats`), listed in the report beside the failures, and the
    /// same for its duplicate, which shares its leader's pixels.
    func testWarningsAreCountedAndReported() async throws {
        let folder = root + "/counted"
        try FileManager.default.createDirectory(atPath: folder + "/in", withIntermediateDirectories: true)
        let source = TestImages.write(root + "/scratch/counted/photo.jpg", width: 240, height: 160, options: "[strip]")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))
        try Data(Self.withICCSegment(bytes, profile: Self.garbage)).write(to: URL(fileURLWithPath: folder + "/in/a-tagged.jpg"))
        try Data(Self.withICCSegment(bytes, profile: Self.garbage)).write(to: URL(fileURLWithPath: folder + "/in/b-copy.jpg"))
        TestImages.write(folder + "/in/c-clean.jpg", width: 200, height: 100)
        let outcome = try await runThumbs([folder + "/in"], out: folder + "/out") { $0.size([64]) }
        let items = try XCTUnwrap(outcome.manifest?.items)
        XCTAssertEqual(items.map(\.status), [.ok, .duplicate, .ok])
        XCTAssertEqual(items.map { $0.warnings?.count ?? 0 }, [1, 1, 0])

        let stats = try JSONDecoder().decode(Statistics.self, from: Data(contentsOf: URL(fileURLWithPath: folder + "/out/stats.json")))
        XCTAssertEqual(stats.counts.warnings, 2)
        XCTAssertEqual(stats.counts.failed, 0)
        XCTAssertTrue(StatisticsTable(stats).render().contains("with warnings"), StatisticsTable(stats).render())

        let report = try String(contentsOfFile: folder + "/out/report.html", encoding: .utf8)
        let section = try XCTUnwrap(report.range(of: "<section id=warnings>"), "no warnings section")
        let after = report[section.lowerBound...]
        let end = try XCTUnwrap(after.range(of: "</section>"))
        let rows = after[..<end.lowerBound]
        XCTAssertTrue(rows.contains("a-tagged.jpg") && rows.contains("b-copy.jpg"), String(rows))
        XCTAssertFalse(rows.contains("c-clean.jpg"), String(rows))
        XCTAssertTrue(rows.contains("lcms2 cannot read it"), String(rows))
        // Each row's status pill is drawn in its status's colour, not the failures' red.
        XCTAssertTrue(rows.contains("<span class=\"code ok\">ok</span>"), String(rows))
        XCTAssertTrue(rows.contains("<span class=\"code duplicate\">duplicate</span>"), String(rows))
        XCTAssertFalse(rows.contains("<span class=code>"), String(rows))
        XCTAssertTrue(report.contains(".code.ok{background:color-mix(in srgb,var(--ok)"), "the ok pill's colour is defined")
        XCTAssertTrue(report.contains("href=\"#warnings\""))
    }

    /// A run over one 240×160 JPEG carrying `profile` (none: untagged).
    private func runOne(profile: [UInt8]?, keepMetadata: Bool, failOn: FailOn, name: String = "photo") async throws -> ManifestItem {
        let folder = root + "/\(name)-\(keepMetadata)-\(failOn)"
        // The same pixels whatever the name (TestImages derives a band from the file name).
        let source = TestImages.write(root + "/scratch/\(name)/photo.jpg", width: 240, height: 160, options: "[strip]")
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))
        if let profile { bytes = Self.withICCSegment(bytes, profile: profile) }
        try FileManager.default.createDirectory(atPath: folder + "/in", withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/in/photo.jpg"))
        let outcome = try await runThumbs([folder + "/in"], out: folder + "/out") {
            $0.output.keepMetadata = keepMetadata
            $0.failOn = failOn
            $0.maxFailures = .percent(100)
            $0.size([64])
        }
        return try XCTUnwrap(outcome.manifest?.items.first)
    }

    /// `jpeg` with an APP2 ICC_PROFILE segment right after SOI.
    static func withICCSegment(_ jpeg: [UInt8], profile: [UInt8]) -> [UInt8] {
        precondition(jpeg.starts(with: [0xFF, 0xD8]) && profile.count < 65000)
        let payload = Array("ICC_PROFILE".utf8) + [0, 1, 1] + profile
        let length = payload.count + 2
        return [0xFF, 0xD8, 0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + jpeg.dropFirst(2)
    }
}
