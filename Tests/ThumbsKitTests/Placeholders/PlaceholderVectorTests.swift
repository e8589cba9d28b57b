import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// The encoders against the reference implementations, on the vectors that
/// scripts/make-placeholder-vectors.py wrote with the PyPI packages
/// (blurhash-python, thumbhash-python, imagehash) and the reference
/// thumbhash.js. Every string matches exactly, except where a ThumbHash value
/// sits on a rounding boundary (see that test, which bounds the difference).
final class PlaceholderVectorTests: XCTestCase {
    struct Vector: Decodable {
        let name: String
        let width: Int
        let height: Int
        let layout: String
        let pixels: String
        let thumbhash: String
        let thumbhash_js: String?
        let blurhash: String
        let color: String
        let phash: String?
        let grey: String?

        var buffer: PixelBuffer {
            let layout: PixelBuffer.Layout = switch self.layout {
            case "grey": .grey
            case "rgb": .rgb
            default: .rgba
            }
            return PixelBuffer(width: width, height: height, layout: layout, bytes: [UInt8](Data(base64Encoded: pixels)!))!
        }
    }

    struct VectorFile: Decodable {
        let thumbhash_js: Bool
        let vectors: [Vector]
    }

    /// Found from this source file's path, in Tests/Fixtures (outside the
    /// test target's folder, so the package needs no resource rule).
    static let file: VectorFile = {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/placeholders/vectors.json")
        return try! JSONDecoder().decode(VectorFile.self, from: Data(contentsOf: url))
    }()

    func testTheVectorsCoverWhatTheEncodersMustHandle() {
        let vectors = Self.file.vectors
        XCTAssertTrue(Self.file.thumbhash_js, "the vectors should carry the reference thumbhash.js output")
        XCTAssertGreaterThanOrEqual(vectors.count, 12)
        XCTAssertTrue(vectors.contains { $0.layout == "rgba" })
        XCTAssertTrue(vectors.contains { $0.width == 1 && $0.height == 1 })
        XCTAssertTrue(vectors.contains { $0.width == 100 })
        XCTAssertGreaterThanOrEqual(vectors.filter { $0.phash != nil }.count, 4)
    }

    /// Exact agreement with the two references the vectors hold, except in
    /// two kinds of known, bounded cases:
    /// - thumbhash-python (the PyPI port) rounds halves to even where the
    ///   reference's Math.round rounds them up; where a value lands exactly on
    ///   .5 (flat-1x1: q = 2/3 gives 31.5 + 31.5·q = 52.5) the port is one step
    ///   lower. We follow the reference.
    /// - thumbhash.js (the reference, run by node) takes its cosines from V8,
    ///   we and the Python port from the C library. Where an AC term is zero in
    ///   exact arithmetic (a flat image; a gradient along one axis only), it is
    ///   float noise of ~1e-17 that normalisation turns into 0.5 ± noise, so
    ///   15·f = 7.5 ± noise rounds either way (gradient-23x37, flat-8x8). There
    ///   we agree with the Python port.
    /// In both, decoded field by field, every difference is exactly one step.
    func testThumbHashMatchesTheReferences() throws {
        var differsFromPort: [String] = [], differsFromJS: [String] = []
        for v in Self.file.vectors {
            let ours = try ThumbHash(encoding: v.buffer)
            let js = try XCTUnwrap(v.thumbhash_js, v.name)
            for (reference, label) in [(v.thumbhash, "port"), (js, "js")] {
                // The maths' own output (the bytes) against the reference's,
                // field by field; then the text an app receives.
                let theirs = [UInt8](try XCTUnwrap(Data(base64Encoded: reference), "\(v.name) \(label)"))
                if ours.bytes == theirs {
                    XCTAssertEqual(ours.base64, reference, "\(v.name) vs \(label): same bytes, other text")
                    continue
                }
                if label == "port" { differsFromPort.append(v.name) } else { differsFromJS.append(v.name) }
                let theirFields = ThumbHashFields(theirs), myFields = ThumbHashFields(ours.bytes)
                XCTAssertEqual(theirFields.values.count, myFields.values.count, v.name)
                for (a, b) in zip(theirFields.values, myFields.values) {
                    XCTAssertLessThanOrEqual(abs(a - b), 1, "\(v.name) vs \(label): off by more than one step")
                }
            }
        }
        // The known cases above; a change here means the encoder changed.
        XCTAssertEqual(differsFromPort, ["flat-1x1"])
        XCTAssertEqual(differsFromJS, ["gradient-23x37", "flat-8x8"])
    }

    func testThumbHashRefusesImagesLargerThan100() {
        let big = PixelBuffer(width: 101, height: 2, layout: .rgb, bytes: [UInt8](repeating: 9, count: 101 * 2 * 3))!
        XCTAssertThrowsError(try ThumbHash(encoding: big)) { error in
            XCTAssertEqual(error as? ThumbHash.EncodingError, .tooLarge(width: 101, height: 2))
        }
    }

    /// blurhash-python runs woltapp's C encoder; the port keeps its float
    /// arithmetic, so the strings are identical, last character included.
    func testBlurHashMatchesTheReference() {
        for v in Self.file.vectors {
            let ours = BlurHash.encode(v.buffer, xComponents: 4, yComponents: 3)
            XCTAssertEqual(ours.count, 28, v.name)
            if ours != v.blurhash {
                // Say how far off before failing: component by component.
                let diff = BlurHashComponents(ours).maximumStepDifference(from: BlurHashComponents(v.blurhash))
                XCTFail("\(v.name): \(ours) != \(v.blurhash); largest component difference \(diff) steps")
            }
        }
    }

    func testAverageColourMatchesTheDefinition() {
        for v in Self.file.vectors {
            XCTAssertEqual(AverageColour.hex(of: v.buffer), v.color, v.name)
        }
    }

    func testAverageColourIsAveragedInLinearLightAndWeightedByAlpha() {
        // Black and white half and half: linear mean 0.5 is sRGB 188, not 128.
        let bw = PixelBuffer(width: 2, height: 1, layout: .rgb, bytes: [0, 0, 0, 255, 255, 255])!
        XCTAssertEqual(AverageColour.hex(of: bw), "#bcbcbc")
        // A transparent pixel's colour does not count.
        let clear = PixelBuffer(width: 2, height: 1, layout: .rgba, bytes: [255, 0, 0, 0, 0, 0, 255, 255])!
        XCTAssertEqual(AverageColour.hex(of: clear), "#0000ff")
        // Nothing visible: the plain mean.
        let none = PixelBuffer(width: 1, height: 1, layout: .rgba, bytes: [1, 2, 3, 0])!
        XCTAssertEqual(AverageColour.hex(of: none), "#010203")
    }

    /// imagehash.phash on 32×32 images. The DCT here is a direct sum and
    /// scipy's an FFT, equal to ~1e-12: a bit could only differ if a
    /// coefficient sat that close to the median, which none of these does
    /// (checked below, so a failure would say why).
    func testPerceptualHashMatchesImagehash() {
        let vectors = Self.file.vectors.filter { $0.phash != nil }
        XCTAssertFalse(vectors.isEmpty)
        for v in vectors {
            let grey = PerceptualHash.greyscale(v.buffer)
            XCTAssertEqual(grey.bytes, [UInt8](Data(base64Encoded: v.grey!)!), "\(v.name): Pillow's convert(\"L\")")
            let hash = PerceptualHash.hash(grey32: grey)
            XCTAssertEqual(hash.map(PerceptualHash.hexString), v.phash, v.name)
            let coefficients = PerceptualHash.lowFrequencies(grey.bytes)
            let median = PerceptualHash.median(of: coefficients)
            let closest = coefficients.map { abs($0 - median) }.min()!
            XCTAssertGreaterThan(closest, 1e-6, "\(v.name): a coefficient at the median makes its bit float-sensitive")
        }
    }

    func testPerceptualHashHelpers() {
        XCTAssertEqual(PerceptualHash.hexString(0x0123_4567_89ab_cdef), "0123456789abcdef")
        XCTAssertEqual(PerceptualHash.hexString(1), "0000000000000001")
        XCTAssertEqual(PerceptualHash.parse("0123456789ABCDEF"), 0x0123_4567_89ab_cdef)
        XCTAssertNil(PerceptualHash.parse("123"))
        XCTAssertNil(PerceptualHash.parse("0123456789abcdeg"))
        XCTAssertEqual(PerceptualHash.distance(0b1011, 0b0110), 3)
        XCTAssertNil(PerceptualHash.hash(grey32: [UInt8](repeating: 0, count: 31 * 32)))
        // Pillow's L: 16-bit fixed point, rounded.
        XCTAssertEqual(PerceptualHash.greyLevel(red: 255, green: 255, blue: 255), 255)
        XCTAssertEqual(PerceptualHash.greyLevel(red: 0, green: 255, blue: 0), 150)
        XCTAssertEqual(PerceptualHash.greyLevel(red: 1, green: 1, blue: 2), 1)
    }

    func testPixelBufferChecksItsSize() {
        XCTAssertNil(PixelBuffer(width: 2, height: 2, layout: .rgb, bytes: [UInt8](repeating: 0, count: 11)))
        XCTAssertNil(PixelBuffer(width: 0, height: 2, layout: .grey, bytes: []))
        XCTAssertNotNil(PixelBuffer(width: 2, height: 2, layout: .rgba, bytes: [UInt8](repeating: 0, count: 16)))
    }
}

/// A ThumbHash read back into its quantised fields (header values, then the
/// 4-bit AC terms): enough to say by how many steps two hashes differ.
struct ThumbHashFields {
    var values: [Int] = []

    init(_ hash: [UInt8]) {
        let header24 = Int(hash[0]) | Int(hash[1]) << 8 | Int(hash[2]) << 16
        let header16 = Int(hash[3]) | Int(hash[4]) << 8
        let hasAlpha = header24 >> 23 != 0
        values = [header24 & 63, (header24 >> 6) & 63, (header24 >> 12) & 63, (header24 >> 18) & 31,
                  header16 & 7, (header16 >> 3) & 63, (header16 >> 9) & 63, header16 >> 15]
        let acStart = hasAlpha ? 6 : 5
        if hasAlpha { values += [Int(hash[5] & 15), Int(hash[5] >> 4)] }
        for byte in hash[acStart...] { values += [Int(byte & 15), Int(byte >> 4)] }
    }
}

/// A BlurHash read back into its quantised components.
struct BlurHashComponents {
    var values: [Int] = []

    init(_ hash: String) {
        let chars = Array(hash)
        func decode(_ range: Range<Int>) -> Int {
            range.reduce(0) { $0 * 83 + BlurHash.base83Characters.firstIndex(of: chars[$1])! }
        }
        let dc = decode(2..<6)
        values = [decode(0..<1), decode(1..<2), dc >> 16, (dc >> 8) & 255, dc & 255]
        var i = 6
        while i + 2 <= chars.count {
            let ac = decode(i..<(i + 2))
            values += [ac / 361, (ac / 19) % 19, ac % 19]
            i += 2
        }
    }

    func maximumStepDifference(from other: BlurHashComponents) -> Int {
        zip(values, other.values).map { abs($0 - $1) }.max() ?? .max
    }
}
