import CThumbsTestShim
import CVips
import Foundation
import ThumbsKit
import ThumbsTestSupport
import XCTest

/// An iPhone Live Photo is a HEIC and a MOV of the same name: the still is
/// one frame of the clip. With the default `--similar`, the two must group
/// as look-alikes through their perceptual hashes, and the clash of their
/// names must give two distinct outputs.
final class LivePhotoTests: TemporaryFolderTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/video").path

    func testTheStillAndTheClipOfALivePhotoAreLookAlikes() async throws {
        // The clip's poster frame, at its own size, made by thumbs itself.
        try FileManager.default.createDirectory(atPath: root + "/clip", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.fixtures + "/hevc.mov", toPath: root + "/clip/IMG_0001.mov")
        let first = try await runThumbs([root + "/clip"], out: root + "/poster") {
            $0.output.sizes = [ThumbSize(width: 160, height: 160)]
            $0.output.format = .png
        }
        let poster = try XCTUnwrap(first.manifest?.items.first?.outputs.first)
        XCTAssertEqual([poster.width, poster.height], [160, 96])

        // The still: that frame as a HEIC, written by libheif's encoder.
        var image: UnsafeMutablePointer<VipsImage>?
        XCTAssertEqual(shim_open_file(root + "/poster/" + poster.path, &image), 0)
        let frame = try XCTUnwrap(image)
        defer { g_object_unref(frame) }
        var size = 0
        let memory = try XCTUnwrap(vips_image_write_to_memory(frame, &size))
        defer { g_free(memory) }
        XCTAssertEqual(size, 160 * 96 * 3)
        let pixels = Array(UnsafeRawBufferPointer(start: memory, count: size))
        try FileManager.default.createDirectory(atPath: root + "/in", withIntermediateDirectories: true)
        XCTAssertEqual(test_write_heic(root + "/in/IMG_0001.heic", pixels, 160, 96, 1, nil, 0, 0, 1, 0), 0)
        try FileManager.default.copyItem(atPath: Self.fixtures + "/hevc.mov", toPath: root + "/in/IMG_0001.mov")

        let outcome = try await runThumbs([root + "/in"], out: root + "/out") { $0.size([128]) }
        let manifest = try XCTUnwrap(outcome.manifest)
        let still = try XCTUnwrap(manifest.item("IMG_0001.heic"))
        let clip = try XCTUnwrap(manifest.item("IMG_0001.mov"))
        XCTAssertEqual(still.status, .ok)
        XCTAssertEqual(clip.status, .ok)
        XCTAssertNotNil(clip.video)
        XCTAssertNotEqual(still.outputs.first?.path, clip.outputs.first?.path, "one name, two outputs")
        // The later of the two in the manifest points at the earlier one.
        let grouped = [still.similarTo?.id, clip.similarTo?.id].compactMap { $0 }
        XCTAssertEqual(grouped.count, 1, "still \(String(describing: still.phash)), clip \(String(describing: clip.phash))")
        XCTAssertTrue(grouped.first == still.id || grouped.first == clip.id)
    }
}
