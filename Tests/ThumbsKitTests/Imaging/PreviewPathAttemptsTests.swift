import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// `PreviewPathAttempts`: a camera preview (a RAW's, a JPEG's) is decoded once, on the first path
/// that takes it (issue 34: it was decoded twice, through
/// `lazy.compactMap { }.first`).
final class PreviewPathAttemptsTests: TemporaryFolderTestCase {
    private func preview() -> [UInt8] {
        TestDNG.jpegPreview(root, name: "preview", width: 320, height: 240).jpeg
    }

    func testTheFirstPathThatDecodesRunsOnceAndTheRestNever() throws {
        let jpeg = preview()
        var calls: [DecodePath] = []
        let pixels = jpeg.withUnsafeBytes { bytes in
            PreviewPathAttempts.decode(bytes, paths: [.jpegDC, .libjpeg], shrink: 8, memoryBudget: DirectJPEG.memoryBudget) {
                bytes, path, shrink, budget in
                calls.append(path)
                return DirectJPEG.decode(bytes, path: path, shrink: shrink, memoryBudget: budget)
            }
        }
        XCTAssertEqual(calls, [.jpegDC], "one decode of the preview, on the DC path")
        let decoded = try XCTUnwrap(pixels)
        XCTAssertEqual(decoded.width, 40)
        XCTAssertEqual(decoded.height, 30)
    }

    func testAPathThatDeclinesPassesToTheNextOnceAndNoneGivesNil() {
        let jpeg = preview()
        var calls: [DecodePath] = []
        let pixels = jpeg.withUnsafeBytes { bytes in
            // The progressive path declines a baseline JPEG; libjpeg takes it.
            PreviewPathAttempts.decode(bytes, paths: [.jpegProgressive, .libjpeg], shrink: 2, memoryBudget: DirectJPEG.memoryBudget) {
                bytes, path, shrink, budget in
                calls.append(path)
                return DirectJPEG.decode(bytes, path: path, shrink: shrink, memoryBudget: budget)
            }
        }
        XCTAssertEqual(calls, [.jpegProgressive, .libjpeg])
        XCTAssertEqual(pixels?.width, 160)
        calls = []
        let none = [UInt8](repeating: 0, count: 64).withUnsafeBytes { bytes in
            PreviewPathAttempts.decode(bytes, paths: [], shrink: 8, memoryBudget: DirectJPEG.memoryBudget) { _, path, _, _ in
                calls.append(path)
                return nil
            }
        }
        XCTAssertNil(none)
        XCTAssertEqual(calls, [.libjpeg], "no path allowed: libjpeg, once")
    }
}
