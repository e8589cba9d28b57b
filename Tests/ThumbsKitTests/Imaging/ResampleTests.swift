import CVips
import CVipsShim
import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// resample.c: the Lanczos3 resize of 8-bit images in memory that replaces
/// libvips' reduce on the direct JPEG path.
final class ResampleTests: XCTestCase {
    override func setUp() {
        TestImages.start()
    }

    /// A smooth pattern with some detail: gradients plus a sine ripple.
    private func pattern(width: Int, height: Int, bands: Int) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * bands)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<bands {
                    let ripple = 40 * sin(Double(x) / (3.0 + Double(c)) + Double(y) / 7.0)
                    let ramp = Double(x * 150 / width + y * 60 / height)
                    pixels[(y * width + x) * bands + c] = UInt8(max(0, min(255, 20 + ramp + ripple)))
                }
            }
        }
        return pixels
    }

    private func resample(_ input: [UInt8], _ w: Int, _ h: Int, bands: Int, to ow: Int, _ oh: Int) -> [UInt8]? {
        Self.resampled(input, w, h, bands: bands, to: ow, oh)
    }

    private static func resampled(_ input: [UInt8], _ w: Int, _ h: Int, bands: Int, to ow: Int, _ oh: Int) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: ow * oh * bands)
        let status = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                shim_resample_u8(source.baseAddress, Int32(w), Int32(h), Int32(bands), target.baseAddress, Int32(ow), Int32(oh))
            }
        }
        return status == 0 ? output : nil
    }

    private func memoryImage(_ pixels: [UInt8], _ w: Int, _ h: Int, bands: Int) -> VipsImageRef {
        let image = pixels.withUnsafeBytes {
            vips_image_new_from_memory_copy($0.baseAddress, $0.count, Int32(w), Int32(h), Int32(bands), VIPS_FORMAT_UCHAR)
        }
        return VipsImageRef(image!)
    }

    private func bytes(of image: VipsImageRef) -> [UInt8] {
        var size = 0
        let memory = vips_image_write_to_memory(image.pointer, &size)!
        defer { g_free(memory) }
        return Array(UnsafeRawBufferPointer(start: memory, count: size))
    }

    func testAFlatImageStaysExactlyFlatAtAnyScale() throws {
        let cases = [(37, 23, 5, 7), (1000, 3, 1, 1), (640, 480, 256, 192), (33, 1, 32, 1), (9, 400, 9, 17)]
        for (w, h, ow, oh) in cases {
            for bands in [1, 3] {
                let flat = [UInt8](repeating: 201, count: w * h * bands)
                let out = try XCTUnwrap(resample(flat, w, h, bands: bands, to: ow, oh), "\(w)×\(h) -> \(ow)×\(oh)")
                XCTAssertEqual(Set(out), [201], "\(w)×\(h) -> \(ow)×\(oh), \(bands) bands")
            }
        }
    }

    func testTheSameSizeIsACopy() throws {
        let input = pattern(width: 50, height: 40, bands: 3)
        XCTAssertEqual(resample(input, 50, 40, bands: 3, to: 50, 40), input)
    }

    func testItAgreesWithLibvipsLanczos3Reduce() throws {
        let (w, h) = (640, 480)
        for bands in [1, 3] {
            let input = pattern(width: w, height: h, bands: bands)
            let source = memoryImage(input, w, h, bands: bands)
            for (ow, oh) in [(256, 192), (173, 97), (640, 241), (320, 480), (33, 25)] {
                let ours = try XCTUnwrap(resample(input, w, h, bands: bands, to: ow, oh))
                let reference = try source.apply("resize") {
                    shim_resize($0, $1, Double(ow) / Double(w), Double(oh) / Double(h))
                }
                let theirs = bytes(of: reference)
                XCTAssertEqual(theirs.count, ours.count, "\(ow)×\(oh)")
                guard theirs.count == ours.count else { continue }
                let differences = zip(ours, theirs).map { abs(Int($0) - Int($1)) }
                let mean = Double(differences.reduce(0, +)) / Double(differences.count)
                XCTAssertLessThanOrEqual(mean, 0.5, "\(ow)×\(oh), \(bands) bands: mean difference")
                XCTAssertLessThanOrEqual(differences.max() ?? 0, 6, "\(ow)×\(oh), \(bands) bands: largest difference")
            }
        }
    }

    /// `resample` on a thread of its own, whose cache of taps is empty: the
    /// taps are computed afresh.
    private func resampleOnANewThread(_ input: [UInt8], _ w: Int, _ h: Int, bands: Int, to ow: Int, _ oh: Int) -> [UInt8]? {
        final class Box: @unchecked Sendable { var output: [UInt8]? }
        let box = Box(), done = DispatchSemaphore(value: 0)
        let thread = Thread {
            box.output = Self.resampled(input, w, h, bands: bands, to: ow, oh)
            done.signal()
        }
        thread.start()
        done.wait()
        return box.output
    }

    /// resample.c keeps each thread's last taps by input and output size:
    /// a run of resizes that share one size (every photo to 32×32, one
    /// photo to several sizes), repeated past the cache's four entries,
    /// gives on one thread the pixels a fresh thread computes.
    func testResizesThatShareASizeGiveThePixelsOfFreshTaps() throws {
        let inputs = [(640, 480), (500, 375), (400, 300), (640, 300), (500, 480)]
        let outputs = [(32, 32), (256, 192), (32, 24)]
        for round in 0..<2 {
            for (w, h) in inputs {
                let input = pattern(width: w, height: h, bands: 3)
                for (ow, oh) in outputs {
                    let ours = try XCTUnwrap(resample(input, w, h, bands: 3, to: ow, oh))
                    let fresh = try XCTUnwrap(resampleOnANewThread(input, w, h, bands: 3, to: ow, oh))
                    XCTAssertEqual(ours, fresh, "round \(round): \(w)×\(h) -> \(ow)×\(oh)")
                }
            }
        }
    }

    func testItRefusesToEnlargeOrBadArguments() {
        let input = pattern(width: 20, height: 10, bands: 3)
        XCTAssertNil(resample(input, 20, 10, bands: 3, to: 21, 10))
        XCTAssertNil(resample(input, 20, 10, bands: 3, to: 10, 11))
        XCTAssertNil(resample(input, 20, 10, bands: 3, to: 0, 5))
        XCTAssertNil(resample(input, 20, 10, bands: 5, to: 10, 5))
    }

    private func resampleWindow(
        _ input: [UInt8], _ w: Int, _ h: Int, bands: Int, window: (Double, Double, Double, Double), to ow: Int, _ oh: Int
    ) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: ow * oh * bands)
        let status = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                shim_resample_window_u8(
                    source.baseAddress, Int32(w), Int32(h), Int32(bands), window.0, window.1, window.2, window.3,
                    target.baseAddress, Int32(ow), Int32(oh)
                )
            }
        }
        return status == 0 ? output : nil
    }

    /// Ramps: band 0 is 20 + x, band 1 is 30 + y, band 2 flat at 77.
    private func ramps(width: Int, height: Int) -> [UInt8] {
        var pixels = [UInt8](repeating: 77, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                pixels[(y * width + x) * 3] = UInt8(20 + x)
                pixels[(y * width + x) * 3 + 1] = UInt8(30 + y)
            }
        }
        return pixels
    }

    /// A window's output sample i lies at window start + (i + 0.5) × its
    /// step in input pixels, whose centres are at x + 0.5. Lanczos3 keeps a
    /// linear ramp linear, so inside the image each output is the ramp's
    /// value there, to rounding; a flat band stays exactly flat.
    func testAWindowSamplesTheRampWhereItsMappingSays() throws {
        let (w, h) = (200, 100)
        let window = (10.5, 5.25, 190.5, 95.25)
        let (ow, oh) = (150, 60)
        let out = try XCTUnwrap(resampleWindow(ramps(width: w, height: h), w, h, bands: 3, window: window, to: ow, oh))
        for j in 0..<oh {
            for i in 0..<ow {
                let x = window.0 + (Double(i) + 0.5) * (window.2 - window.0) / Double(ow) - 0.5
                let y = window.1 + (Double(j) + 0.5) * (window.3 - window.1) / Double(oh) - 0.5
                let at = (j * ow + i) * 3
                XCTAssertEqual(Double(out[at]), 20 + x, accuracy: 0.51, "band 0 at \(i), \(j)")
                XCTAssertEqual(Double(out[at + 1]), 30 + y, accuracy: 0.51, "band 1 at \(i), \(j)")
                XCTAssertEqual(out[at + 2], 77)
            }
        }
    }

    /// A window that reaches past the edges (a preview that shows less than
    /// the photo, stretched back over it): the filter is cut there and its
    /// weights renormalised, so a flat band stays flat to the edge, and the
    /// ramp holds inside.
    func testAWindowPastTheEdgesKeepsFlatAreasFlat() throws {
        let (w, h) = (200, 100)
        let window = (-2.0, -1.5, 203.0, 101.0)
        let out = try XCTUnwrap(resampleWindow(ramps(width: w, height: h), w, h, bands: 3, window: window, to: w, h))
        for j in 0..<h {
            for i in 0..<w {
                XCTAssertEqual(out[(j * w + i) * 3 + 2], 77, "at \(i), \(j)")
            }
        }
        for i in 10..<190 {
            let x = window.0 + (Double(i) + 0.5) * 205 / 200 - 0.5
            XCTAssertEqual(Double(out[(50 * w + i) * 3]), 20 + x, accuracy: 0.51, "band 0 at \(i)")
        }
    }

    /// Output samples whose centres lie past an edge (a window reaching far
    /// past it) are the edge's: the filter is taken at the edge. Cut and
    /// renormalised where it was, it kept lobes that summed to about zero
    /// and gave weights in the millions (found by fuzzing, under UBSan: a
    /// 32-bit sum overflowed).
    func testAWindowFarPastAnEdgeGivesTheEdgesPixels() throws {
        let (w, h) = (40, 10)
        let window = (-35.0, 0.0, 5.0, 10.0)
        let out = try XCTUnwrap(resampleWindow(ramps(width: w, height: h), w, h, bands: 3, window: window, to: w, h))
        for j in 0..<h {
            for i in 0..<34 {
                XCTAssertEqual(Double(out[(j * w + i) * 3]), 20, accuracy: 1, "band 0 at \(i), \(j): the left edge")
                XCTAssertEqual(out[(j * w + i) * 3 + 2], 77)
            }
        }
    }

    /// The window of the whole image is the plain resize, pixel for pixel.
    func testTheWholeWindowIsThePlainResize() throws {
        for (w, h, ow, oh) in [(640, 480, 256, 192), (37, 23, 37, 7), (300, 200, 300, 200)] {
            let input = pattern(width: w, height: h, bands: 3)
            let plain = try XCTUnwrap(resample(input, w, h, bands: 3, to: ow, oh))
            let whole = try XCTUnwrap(resampleWindow(input, w, h, bands: 3, window: (0, 0, Double(w), Double(h)), to: ow, oh))
            XCTAssertEqual(whole, plain, "\(w)x\(h) -> \(ow)x\(oh)")
        }
    }

    func testAWindowRefusesBadArguments() {
        let input = pattern(width: 20, height: 10, bands: 3)
        XCTAssertNil(resampleWindow(input, 20, 10, bands: 3, window: (.nan, 0, 20, 10), to: 20, 10))
        XCTAssertNil(resampleWindow(input, 20, 10, bands: 3, window: (0, 0, 0.5, 10), to: 20, 10))
        XCTAssertNil(resampleWindow(input, 20, 10, bands: 3, window: (-25, 0, 20, 10), to: 20, 10))
        XCTAssertNil(resampleWindow(input, 20, 10, bands: 3, window: (0, 0, 20, 25), to: 20, 10))
        XCTAssertNil(resampleWindow(input, 20, 10, bands: 3, window: (0, 0, 20, 10), to: 41, 10))
        XCTAssertNil(resampleWindow(input, 20, 10, bands: 5, window: (0, 0, 20, 10), to: 20, 10))
    }

    func testImagesItDoesNotTakeAreLeftToLibvips() throws {
        let input = pattern(width: 64, height: 48, bands: 3)
        let memory = memoryImage(input, 64, 48, bands: 3)
        var out: UnsafeMutablePointer<VipsImage>?
        // Enlarging.
        XCTAssertEqual(shim_resample_image(memory.pointer, &out, 65, 48), 1)
        // A lazy pipeline, not pixels in memory.
        let lazy = try memory.apply("copy") { shim_copy($0, $1) }
        XCTAssertEqual(shim_resample_image(lazy.pointer, &out, 32, 24), 1)
        // Alpha.
        let rgba = memoryImage(pattern(width: 64, height: 48, bands: 4), 64, 48, bands: 4)
        XCTAssertEqual(shim_resample_image(rgba.pointer, &out, 32, 24), 1)
        XCTAssertNil(out)
    }

    func testMetadataTravelsWithTheResizedImage() throws {
        let memory = memoryImage(pattern(width: 64, height: 48, bands: 3), 64, 48, bands: 3)
        vips_image_set_int(memory.pointer, "orientation", 6)
        let profile: [UInt8] = Array("not really a profile".utf8)
        profile.withUnsafeBytes { vips_image_set_blob_copy(memory.pointer, "icc-profile-data", $0.baseAddress, $0.count) }
        memory.pointer.pointee.Xres = 11.8
        var out: UnsafeMutablePointer<VipsImage>?
        XCTAssertEqual(shim_resample_image(memory.pointer, &out, 32, 24), 0)
        let resized = VipsImageRef(try XCTUnwrap(out))
        XCTAssertEqual([resized.width, resized.height, resized.bands], [32, 24, 3])
        XCTAssertEqual(resized.orientation, 6)
        XCTAssertTrue(resized.hasICCProfile)
        XCTAssertEqual(resized.pointer.pointee.Xres, 11.8, accuracy: 1e-9)
        XCTAssertEqual(resized.interpretation, memory.interpretation)
    }
}
