import CVips
import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// The placeholders' inner sums, which add several terms in one pass over
/// the pixels, against the plain loops the references run (one term at a
/// time, row by row), on random images of every shape up to 100×100. The
/// passes must give the same bits, not close values: the hashes quantise
/// these sums, and a last-bit difference can move a character.
final class PlaceholderSumsTests: XCTestCase {
    private let shapes = [(1, 1), (100, 75), (75, 100), (100, 100), (23, 37), (7, 1), (1, 9), (64, 48), (99, 66)]

    func testThumbHashTermSumsAreTheReferenceLoopsBits() {
        var random = SplitMix64(state: 7)
        for (w, h) in shapes {
            let channel = (0..<(w * h)).map { _ in Double(below(256, &random)) / 3 - 20 }
            let cosines = ThumbHash.Cosines(width: w, height: h, frequencies: 7)
            for (nx, ny) in [(7, 5), (5, 7), (3, 3), (5, 5), (7, 7)] {
                let terms = ThumbHash.terms(nx: nx, ny: ny)
                let sums = ThumbHash.termSums(channel, cosines, terms: terms)
                XCTAssertEqual(sums.count, terms.count)
                for (i, term) in terms.enumerated() {
                    // thumbhash.js: f += channel[x + y * w] * fx[x] * fy, y outer.
                    var f = 0.0
                    for y in 0..<h {
                        let fy = cosines.y[term.cy * h + y]
                        for x in 0..<w {
                            f += channel[y * w + x] * cosines.x[term.cx * w + x] * fy
                        }
                    }
                    XCTAssertEqual(sums[i].bitPattern, f.bitPattern, "\(w)×\(h) term \(term): \(sums[i]) vs \(f)")
                }
            }
        }
    }

    func testBlurHashComponentSumsAreTheReferenceLoopsBits() {
        var random = SplitMix64(state: 11)
        for (w, h) in shapes {
            let plane = { (0..<(w * h)).map { _ in BlurHash.sRGBToLinear(UInt8(below(256, &random))) } }
            let linear = (r: plane(), g: plane(), b: plane())
            let xComponents = 9, yComponents = 3
            let cosX = (0..<xComponents).map { xc in (0..<w).map { x in cosf(Float(Double.pi * Double(xc) * Double(x) / Double(w))) } }
            let cosY = (0..<yComponents).map { yc in (0..<h).map { y in cosf(Float(Double.pi * Double(yc) * Double(y) / Double(h))) } }
            for yc in 0..<yComponents {
                for group in [[0, 1, 2, 3], [4, 5, 6, 7], [8], [1, 3], [2, 4, 6]] {
                    let sums = BlurHash.multiplyBasisFunctions(group, yc, cosX: cosX, cosY: cosY[yc], linear: linear)
                    XCTAssertEqual(sums.count, group.count)
                    for (k, xc) in group.enumerated() {
                        // woltapp's C: basis = cosf(..x..) * cosf(..y..); r += basis * linear, y outer.
                        var r: Float = 0, g: Float = 0, b: Float = 0
                        for y in 0..<h {
                            for x in 0..<w {
                                let basis = cosX[xc][x] * cosY[yc][y]
                                r += basis * linear.r[y * w + x]
                                g += basis * linear.g[y * w + x]
                                b += basis * linear.b[y * w + x]
                            }
                        }
                        let scale = Float((xc == 0 && yc == 0) ? 1 : 2) / Float(w * h)
                        XCTAssertEqual(sums[k].r.bitPattern, (r * scale).bitPattern, "\(w)×\(h) (\(xc), \(yc)) red")
                        XCTAssertEqual(sums[k].g.bitPattern, (g * scale).bitPattern, "\(w)×\(h) (\(xc), \(yc)) green")
                        XCTAssertEqual(sums[k].b.bitPattern, (b * scale).bitPattern, "\(w)×\(h) (\(xc), \(yc)) blue")
                    }
                }
            }
        }
    }

    /// The placeholders' reduction (`SignatureMaker.boxReduced`) against the
    /// plain area average: each output pixel the rounded mean of the source
    /// pixels whose column `x · w / W` and row `y · h / H` land on it, its
    /// colour weighted by alpha where there is alpha.
    func testBoxReductionIsTheAreaAverage() throws {
        TestImages.start()
        var random = SplitMix64(state: 3)
        let cases = [(256, 192, 3, 100, 75), (257, 190, 3, 100, 74), (100, 100, 3, 100, 100), (300, 7, 1, 100, 2),
                     (51, 203, 3, 25, 100), (256, 192, 4, 100, 75), (97, 45, 2, 50, 20)]
        for (W, H, bands, w, h) in cases {
            let pixels = (0..<(W * H * bands)).map { _ in UInt8(below(256, &random)) }
            let image = try XCTUnwrap(pixels.withUnsafeBytes {
                vips_image_new_from_memory_copy($0.baseAddress, $0.count, Int32(W), Int32(H), Int32(bands), VIPS_FORMAT_UCHAR)
            })
            let reduced = try XCTUnwrap(SignatureMaker.boxReduced(VipsImageRef(image), width: w, height: h))
            let hasAlpha = bands == 2 || bands == 4
            XCTAssertEqual(reduced.layout, hasAlpha ? .rgba : .rgb)
            // Per output pixel: Σ colour · alpha for three channels, Σ alpha, count.
            var sums = [Int](repeating: 0, count: w * h * 5)
            for y in 0..<H {
                for x in 0..<W {
                    let o = ((y * h / H) * w + x * w / W) * 5, p = (y * W + x) * bands
                    let alpha = hasAlpha ? Int(pixels[p + bands - 1]) : 255
                    for c in 0..<3 { sums[o + c] += Int(pixels[p + (bands < 3 ? 0 : c)]) * alpha }
                    sums[o + 3] += alpha
                    sums[o + 4] += 1
                }
            }
            // Round half up: ⌊(2 · sum + weight) / (2 · weight)⌋, in whole numbers.
            func rounded(_ sum: Int, _ weight: Int) -> UInt8 { weight == 0 ? 0 : UInt8((2 * sum + weight) / (2 * weight)) }
            let step = hasAlpha ? 4 : 3
            var expected = [UInt8](repeating: 0, count: w * h * step)
            for i in 0..<(w * h) {
                for c in 0..<3 { expected[i * step + c] = rounded(sums[i * 5 + c], sums[i * 5 + 3]) }
                if hasAlpha { expected[i * step + 3] = rounded(sums[i * 5 + 3], sums[i * 5 + 4]) }
            }
            let wrong = (0..<expected.count).filter { reduced.bytes[$0] != expected[$0] }
            XCTAssertEqual(wrong.count, 0, "\(W)×\(H)×\(bands)→\(w)×\(h): \(wrong.count) values differ, first at byte \(wrong.first ?? -1)")
        }
    }
}

/// A whole number in 0..<n from the tests' deterministic generator, so a
/// failure repeats.
private func below(_ n: Int, _ random: inout SplitMix64) -> Int { Int(random.next() % UInt64(n)) }
