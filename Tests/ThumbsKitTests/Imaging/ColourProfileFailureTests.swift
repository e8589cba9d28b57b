import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// A photo whose embedded ICC profile cannot be applied: under `--fail-on
/// error` (the default) the item fails with a message that says so and
/// names the way out; under `--fail-on truncated` it is converted as if it
/// had no profile. On the direct JPEG path and on libvips' (`--keep-metadata`).
final class ColourProfileFailureTests: TemporaryFolderTestCase {
    /// 400 bytes whose header declares 400 bytes, without the 'acsp'
    /// signature: lcms2 refuses to open it.
    private static let garbage: [UInt8] = [0, 0, 0x01, 0x90] + (4..<400).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }

    /// lcms2 opens it, but its curves are of a type it does not know: no
    /// transform can be made from it.
    private static let unreadableCurves = ICCWriter.rgb(curve: Array("xxxx".utf8) + [UInt8](repeating: 0, count: 12))

    func testAProfileLcmsRefusesFailsTheItem() async throws {
        for keepMetadata in [false, true] {
            let item = try await runOne(profile: Self.garbage, keepMetadata: keepMetadata, failOn: .error)
            XCTAssertEqual(item.status, .failed, "keep-metadata \(keepMetadata)")
            XCTAssertEqual(item.error?.code, "decode")
            let message = try XCTUnwrap(item.error?.message)
            XCTAssertTrue(message.contains("ICC colour profile is unusable (lcms2 cannot read it)"), message)
            XCTAssertTrue(message.contains("--fail-on truncated"), message)
        }
    }

    func testAProfileWithoutATransformFailsTheItem() async throws {
        for keepMetadata in [false, true] {
            let item = try await runOne(profile: Self.unreadableCurves, keepMetadata: keepMetadata, failOn: .error)
            XCTAssertEqual(item.status, .failed, "keep-metadata \(keepMetadata)")
            XCTAssertEqual(item.error?.code, "decode")
            XCTAssertTrue(item.error?.message.contains("ICC colour profile is unusable") ?? false, item.error?.message ?? "")
        }
    }

    /// Leniency asked for: the thumbnail is the one the untagged photo gives.
    func testUnderFailOnTruncatedTheColoursAreConvertedWithoutIt() async throws {
        for keepMetadata in [false, true] {
            let plain = try await runOne(profile: nil, keepMetadata: keepMetadata, failOn: .truncated, name: "plain")
            for (label, profile) in [("garbage", Self.garbage), ("curves", Self.unreadableCurves)] {
                let item = try await runOne(profile: profile, keepMetadata: keepMetadata, failOn: .truncated, name: label)
                XCTAssertEqual(item.status, .ok, "\(label), keep-metadata \(keepMetadata): \(item.error?.message ?? "")")
                XCTAssertEqual(item.outputs.map(\.sha256), plain.outputs.map(\.sha256), "\(label), keep-metadata \(keepMetadata)")
            }
        }
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
