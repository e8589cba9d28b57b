import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// A thumbnail that decodes but cannot be encoded is an `encode` failure,
/// with the encoder's own message, not a `decode` one.
final class EncodeFailureTests: XCTestCase {
    func testAnEncoderFailureIsRecordedAsEncode() async throws {
        let root = TestImages.temporaryDirectory(name)
        defer { try? FileManager.default.removeItem(atPath: root) }
        // WebP cannot hold an image wider than 16383 pixels; the JPEG itself
        // is fine and decodes on the direct path.
        TestImages.write(root + "/in/wide.jpg", width: 17_000, height: 8)
        TestImages.write(root + "/in/small.jpg", width: 64, height: 48)
        let outcome = try await runThumbs([root + "/in"], out: root + "/out") { options in
            options.output.sizes = [ThumbSize(width: 17_000, height: 17_000)]
            options.output.format = .webp
            options.maxFailures = .count(1)
        }
        XCTAssertEqual(outcome.statistics?.counts.failed, 1)
        let manifest = try readManifest(root + "/out")
        let wide = try XCTUnwrap(manifest.item("wide.jpg"))
        XCTAssertEqual(wide.status, .failed)
        XCTAssertEqual(wide.error?.code, "encode")
        XCTAssertTrue(wide.error?.message.contains("save") == true, wide.error?.message ?? "no message")
        XCTAssertEqual(manifest.item("small.jpg")?.status, .ok)
    }
}
