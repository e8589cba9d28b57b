import CVips
import CVipsShim
import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// The perceptual hash is of the picture as displayed: made from a decode
/// in stored orientation, it must come out as from the upright pixels,
/// and an upright decode's hash is read from resample.c's buffer directly.
final class SignatureOrientationTests: XCTestCase {
    override func setUp() {
        TestImages.start()
    }

    /// Bright on the left, dark on the right, with a bright blob top left:
    /// turning it changes its hash in most of the 64 bits.
    private func stored(width: Int, height: Int) -> VipsImageRef {
        let pixels = TestImages.rgb(width: width, height: height) { x, y in
            let ramp = UInt8(255 - x * 200 / width)
            let blob = (x - width / 5) * (x - width / 5) + (y - height / 4) * (y - height / 4) < (height / 6) * (height / 6)
            return blob ? (255, 255, 255) : (ramp, UInt8(y * 120 / height), ramp / 2)
        }
        let image = pixels.withUnsafeBytes {
            vips_image_new_from_memory_copy($0.baseAddress, $0.count, Int32(width), Int32(height), 3, VIPS_FORMAT_UCHAR)
        }!
        return VipsImageRef(image)
    }

    private func phash(_ hashSource: VipsImageRef) throws -> UInt64 {
        let small = try VipsResize.resize(hashSource, width: 64, height: 64)
        let signature = try SignatureMaker.make(from: small, placeholders: false, hashSource: hashSource)
        return try XCTUnwrap(signature.phash.flatMap(PerceptualHash.parse))
    }

    func testAHashFromAStoredTurnedDecodeIsTheUprightPicturesHash() throws {
        for orientation in [3, 6, 8] {
            let turned = stored(width: 600, height: 450)
            vips_image_set_int(turned.pointer, VIPS_META_ORIENTATION, Int32(orientation))
            let upright = try turned.apply("autorot") { shim_autorot($0, $1) }
            guard let held = vips_image_copy_memory(upright.pointer) else { return XCTFail("copy_memory") }
            let uprightInMemory = VipsImageRef(held)
            XCTAssertEqual(uprightInMemory.orientation, 1)
            let fromTurned = try phash(turned), fromUpright = try phash(uprightInMemory)
            XCTAssertLessThanOrEqual(
                PerceptualHash.distance(fromTurned, fromUpright), 2,
                "orientation \(orientation): the stored decode must be hashed as displayed"
            )
            // The test can tell: the stored pixels, not turned, hash far away.
            let unturned = stored(width: 600, height: 450)
            XCTAssertGreaterThan(PerceptualHash.distance(try phash(unturned), fromUpright), 12, "orientation \(orientation)")
        }
    }
}
