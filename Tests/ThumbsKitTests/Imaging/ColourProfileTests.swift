import CVips
import CThumbsTestShim
import CVipsShim
import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Recognising sRGB profiles by content, and the cached lcms2 transform for
/// the others, against libvips's own `icc_transform` (the path they replace).
/// Profiles come from libvips (its built-in "srgb" and "p3", read back from
/// JPEGs it wrote) or are written here byte by byte, as other software would.
final class ColourProfileTests: TemporaryFolderTestCase {
    // MARK: - Classification

    func testProfilesThatLibvipsEmbedsAreClassified() throws {
        XCTAssertEqual(classify(try builtInProfile("srgb")), .srgb)
        XCTAssertEqual(classify(try builtInProfile("p3")), .other)
    }

    /// sRGB as other software writes it: v2 sampled curves (HP's 1998
    /// profile has 1024 entries), v4 parametric type 3 or 4 curves, white
    /// point D50 or D65, colorants rounded differently.
    func testSRGBResavesByOtherSoftwareAreSRGB() {
        let sampled = ICCWriter.sampledSRGBCurve(count: 1024)
        let variants: [(String, [UInt8])] = [
            ("v2 sampled, D65 white", ICCWriter.rgb(curve: sampled, white: ColourProfile.d65)),
            ("v2 sampled 4096", ICCWriter.rgb(curve: ICCWriter.sampledSRGBCurve(count: 4096))),
            ("v4 parametric 3", ICCWriter.rgb(curve: ICCWriter.parametricSRGB(type: 3))),
            ("v4 parametric 4", ICCWriter.rgb(curve: ICCWriter.parametricSRGB(type: 4))),
            ("HP colorants", ICCWriter.rgb(
                colorants: [.init(x: 0.4361, y: 0.2225, z: 0.0139), .init(x: 0.3851, y: 0.7169, z: 0.0971),
                            .init(x: 0.1431, y: 0.0606, z: 0.7141)],
                curve: sampled)),
            ("no white point", ICCWriter.rgb(curve: sampled, white: nil)),
            ("grey, sRGB curve", ICCWriter.grey(curve: ICCWriter.parametricSRGB(type: 3))),
        ]
        for (label, profile) in variants {
            XCTAssertEqual(classify(profile), .srgb, label)
        }
    }

    func testProfilesThatAreNotSRGB() {
        let sampled = ICCWriter.sampledSRGBCurve(count: 1024)
        var shifted = ICCWriter.sRGBColorants
        shifted[1].x += 0.003
        let variants: [(String, [UInt8])] = [
            ("gamma 2.2 curves", ICCWriter.rgb(curve: ICCWriter.gamma(2.2))),
            ("linear curves", ICCWriter.rgb(curve: ICCWriter.gamma(1))),
            ("sRGB curve with Adobe RGB colorants", ICCWriter.rgb(colorants: ICCWriter.adobeColorants, curve: sampled)),
            ("green colorant off by 0.003", ICCWriter.rgb(colorants: shifted, curve: sampled)),
            ("a lookup table beside the matrix", ICCWriter.rgb(curve: sampled, extraTags: [("A2B0", [UInt8](repeating: 0, count: 32))])),
            ("white point neither D50 nor D65", ICCWriter.rgb(curve: sampled, white: .init(x: 0.98, y: 1, z: 1.18))),
            ("grey, gamma 2.2", ICCWriter.grey(curve: ICCWriter.gamma(2.2))),
            ("CMYK", ICCWriter.rgb(curve: sampled, space: "CMYK")),
        ]
        for (label, profile) in variants {
            XCTAssertEqual(classify(profile), .other, label)
        }
    }

    /// Untrusted bytes: every truncation of a real profile is invalid, and
    /// no change to any byte crashes the parser or the lcms2 transform.
    func testTruncatedAndMutatedProfilesNeverCrash() throws {
        for name in ["srgb", "p3"] {
            let profile = try builtInProfile(name)
            for length in stride(from: 0, to: profile.count, by: 7) {
                XCTAssertEqual(classify(Array(profile.prefix(length))), .invalid, "\(name) cut at \(length)")
            }
            var kinds: [ColourProfile.Kind: Int] = [:]
            var transformed = 0, refused = 0
            var random = SplitMix64(state: 7)
            // Every byte of the header, tag table and small tags; past them
            // (long curve tables) every 5th.
            for position in 0..<profile.count where position < 1024 || position % 5 == 0 {
                var mutated = profile
                mutated[position] ^= 0xFF
                kinds[classify(mutated), default: 0] += 1
                mutated[Int(random.next() % UInt64(profile.count))] = UInt8(truncatingIfNeeded: random.next())
                kinds[classify(mutated), default: 0] += 1
                // lcms2 builds take milliseconds: the header, the tag table
                // and the small tags densely, the long curves sparsely.
                if position < 1024 ? position % 13 == 0 : position % 211 == 0 {
                    // The contract: 0 and the pixels transformed (the same
                    // again from the cached transform), or -1 and the
                    // pixels untouched.
                    let ramp = (0..<24).map { UInt8($0 * 11) }
                    func transform() -> (Int32, [UInt8]) {
                        var pixels = ramp
                        let status = mutated.withUnsafeBytes { icc in
                            shim_icc_to_srgb8(&pixels, 8, 1, 3, icc.baseAddress, icc.count)
                        }
                        return (status, pixels)
                    }
                    let (status, pixels) = transform()
                    switch status {
                    case 0:
                        transformed += 1
                        let again = transform()
                        XCTAssertEqual(again.0, 0, "\(name) at \(position)")
                        XCTAssertEqual(again.1, pixels, "\(name) at \(position)")
                    case -1:
                        refused += 1
                        XCTAssertEqual(pixels, ramp, "\(name) at \(position): refused, yet the pixels changed")
                    default:
                        XCTFail("\(name) at \(position): status \(status)")
                    }
                }
            }
            XCTAssertGreaterThan(kinds[.invalid, default: 0], 0, name)
            // Both outcomes were seen: some damage lcms2 shrugs off, some it refuses.
            XCTAssertGreaterThan(transformed, 0, name)
            XCTAssertGreaterThan(refused, 0, name)
            XCTAssertGreaterThan(kinds[.other, default: 0] + kinds[.srgb, default: 0], 0, name)
        }
        for garbage in [[UInt8](), [UInt8](repeating: 0, count: 200), [UInt8](repeating: 0xFF, count: 4096)] {
            XCTAssertEqual(classify(garbage), .invalid)
        }
    }

    // MARK: - The image step

    /// An sRGB-tagged thumbnail loses the profile and keeps its pixels, which
    /// libvips's transform would have left within rounding.
    func testSRGBTaggedImageSkipsTheTransform() throws {
        let original = Self.photoLike(width: 96, height: 64, bands: 3)
        let tagged = try image(original, width: 96, height: 64, bands: 3, profile: try builtInProfile("srgb"))
        let result = try XCTUnwrap(converted(tagged))
        XCTAssertFalse(result.hasICCProfile)
        XCTAssertEqual(try pixels(result), original)
        let libvips = try tagged.apply("icc_transform") { shim_icc_to_srgb($0, $1, 0) }
        XCTAssertLessThan(Self.meanDifference(try pixels(libvips), original), 0.5)
    }

    /// Display P3 pixels (computed here from sRGB ones) come back to the sRGB
    /// original, and match libvips's float transform.
    func testDisplayP3MatchesLibvipsAndTheSRGBOriginal() throws {
        let width = 128, height = 96
        let original = Self.photoLike(width: width, height: height, bands: 3)
        let p3 = Self.sRGBToDisplayP3(original)
        let tagged = try image(p3, width: width, height: height, bands: 3, profile: try builtInProfile("p3"))

        let fast = try XCTUnwrap(converted(tagged))
        XCTAssertFalse(fast.hasICCProfile)
        XCTAssertEqual(fast.interpretation, VIPS_INTERPRETATION_sRGB)
        XCTAssertEqual([fast.width, fast.height, fast.bands], [width, height, 3])
        let libvips = try tagged.apply("icc_transform") { shim_icc_to_srgb($0, $1, 0) }
        let fastPixels = try pixels(fast), libvipsPixels = try pixels(libvips)
        XCTAssertLessThan(Self.meanDifference(fastPixels, libvipsPixels), 0.25)
        XCTAssertLessThanOrEqual(Self.maxDifference(fastPixels, libvipsPixels), 2)
        XCTAssertLessThan(Self.meanDifference(fastPixels, original), 1)
        // The input image is untouched (it may be a shared in-memory base).
        XCTAssertEqual(try pixels(tagged), p3)
        XCTAssertTrue(tagged.hasICCProfile)
        // A wrong transform (e.g. none) is far from the original.
        XCTAssertGreaterThan(Self.meanDifference(p3, original), 3)
    }

    func testAlphaIsKeptAsIs() throws {
        let width = 64, height = 48
        let rgb = Self.sRGBToDisplayP3(Self.photoLike(width: width, height: height, bands: 3))
        var rgba: [UInt8] = []
        for i in 0..<(width * height) {
            rgba += rgb[(i * 3)..<(i * 3 + 3)]
            rgba.append(UInt8(i % 251))
        }
        let tagged = try image(rgba, width: width, height: height, bands: 4, profile: try builtInProfile("p3"))
        let fast = try pixels(try XCTUnwrap(converted(tagged)))
        let libvips = try pixels(tagged.apply("icc_transform") { shim_icc_to_srgb($0, $1, 0) })
        for i in 0..<(width * height) {
            XCTAssertEqual(fast[i * 4 + 3], UInt8(i % 251))
        }
        XCTAssertLessThan(Self.meanDifference(fast, libvips), 0.25)
    }

    /// A grey image with a gamma 2.2 grey profile: grey with the sRGB curve,
    /// as libvips gives (libvips makes three equal bands of it).
    func testGreyProfileMatchesLibvips() throws {
        let width = 64, height = 48
        let grey = Self.photoLike(width: width, height: height, bands: 1)
        let tagged = try image(grey, width: width, height: height, bands: 1,
                               profile: ICCWriter.grey(curve: ICCWriter.gamma(2.2)))
        let fast = try XCTUnwrap(converted(tagged))
        XCTAssertEqual(fast.bands, 1)
        XCTAssertEqual(fast.interpretation, VIPS_INTERPRETATION_B_W)
        let libvips = try pixels(tagged.apply("icc_transform") { shim_icc_to_srgb($0, $1, 0) })
        let firstBand = stride(from: 0, to: libvips.count, by: 3).map { libvips[$0] }
        let fastPixels = try pixels(fast)
        XCTAssertLessThan(Self.meanDifference(fastPixels, firstBand), 0.5)
        XCTAssertGreaterThan(Self.meanDifference(fastPixels, grey), 1, "gamma 2.2 is not sRGB")
    }

    /// Cases left to libvips: no profile, a damaged profile, CMYK, a profile
    /// of the wrong colour space for the bands, 16-bit pixels.
    func testCasesItDoesNotTake() throws {
        let pixels = Self.photoLike(width: 32, height: 24, bands: 3)
        let srgb = try builtInProfile("srgb")
        XCTAssertNil(try converted(image(pixels, width: 32, height: 24, bands: 3, profile: nil)))
        XCTAssertNil(try converted(image(pixels, width: 32, height: 24, bands: 3, profile: Array(srgb.prefix(2000)))))
        XCTAssertNil(try converted(image(pixels, width: 32, height: 24, bands: 3,
                                                    profile: ICCWriter.grey(curve: ICCWriter.gamma(2.2)))))
        XCTAssertNil(try converted(image(pixels, width: 32, height: 24, bands: 3,
                                                    profile: ICCWriter.rgb(curve: ICCWriter.gamma(2.2), space: "CMYK"))))
        let grey = Self.photoLike(width: 32, height: 24, bands: 1)
        XCTAssertNil(try converted(image(grey, width: 32, height: 24, bands: 1, profile: srgb)))

        let cmyk = try image(Self.photoLike(width: 32, height: 24, bands: 4), width: 32, height: 24, bands: 4,
                             profile: ICCWriter.rgb(curve: ICCWriter.gamma(2.2), space: "CMYK"),
                             interpretation: VIPS_INTERPRETATION_CMYK)
        XCTAssertNil(try converted(cmyk))

        let tagged = try image(pixels, width: 32, height: 24, bands: 3, profile: srgb)
        let sixteen = try tagged.apply("cast") { shim_cast($0, $1, VIPS_FORMAT_USHORT, 0) }
        XCTAssertNil(try converted(sixteen))
    }

    /// Many profiles through the 16-entry cache from several threads: each
    /// result equals the one computed alone.
    func testTransformCacheUnderConcurrency() throws {
        let profiles = (0..<24).map { i in
            ICCWriter.rgb(curve: ICCWriter.gamma(1.8 + Double(i) * 0.02))
        }
        let input = Self.photoLike(width: 40, height: 30, bands: 3)
        let expected = profiles.map { Self.transform(input, $0) }
        XCTAssertNotEqual(expected[0], expected[23])
        let results = ResultSlots(count: 8 * profiles.count)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            // Each worker starts elsewhere in the list, so that builds,
            // hits and evictions interleave.
            for step in 0..<profiles.count {
                let i = (step + worker * 5) % profiles.count
                results.set(worker * profiles.count + i, Self.transform(input, profiles[i]))
            }
        }
        for worker in 0..<8 {
            for i in 0..<profiles.count {
                XCTAssertEqual(results.get(worker * profiles.count + i), expected[i])
            }
        }
    }

    private static func transform(_ input: [UInt8], _ profile: [UInt8]) -> [UInt8] {
        var pixels = input
        let status = profile.withUnsafeBytes { shim_icc_to_srgb8(&pixels, 40, 30, 3, $0.baseAddress, $0.count) }
        precondition(status == 0)
        return pixels
    }

    private final class ResultSlots: @unchecked Sendable {
        private var values: [[UInt8]]
        private let lock = NSLock()
        init(count: Int) { values = Array(repeating: [], count: count) }
        func set(_ i: Int, _ value: [UInt8]) { lock.withLock { values[i] = value } }
        func get(_ i: Int) -> [UInt8] { lock.withLock { values[i] } }
    }

    // MARK: - Helpers

    /// The fast path's image, or nil when it did not convert.
    private func converted(_ image: VipsImageRef) throws -> VipsImageRef? {
        if case .converted(let result) = try ColourProfile.toSRGB(image) { return result }
        return nil
    }

    private func classify(_ bytes: [UInt8]) -> ColourProfile.Kind {
        bytes.withUnsafeBytes { ColourProfile.classify($0) }
    }

    /// One of libvips's built-in profiles, as it embeds it in a JPEG.
    private func builtInProfile(_ name: String) throws -> [UInt8] {
        let path = TestImages.write(root + "/\(name).jpg", width: 16, height: 16, options: "[profile=\(name)]")
        var out: UnsafeMutablePointer<VipsImage>?
        XCTAssertEqual(shim_open_file(path, &out), 0)
        let image = VipsImageRef(try XCTUnwrap(out))
        var data: UnsafeRawPointer?
        var length = 0
        XCTAssertEqual(vips_image_get_blob(image.pointer, VIPS_META_ICC_NAME, &data, &length), 0)
        return [UInt8](UnsafeRawBufferPointer(start: try XCTUnwrap(data), count: length))
    }

    private func image(
        _ pixels: [UInt8], width: Int, height: Int, bands: Int, profile: [UInt8]?,
        interpretation: VipsInterpretation? = nil
    ) throws -> VipsImageRef {
        let pointer = try XCTUnwrap(pixels.withUnsafeBytes {
            vips_image_new_from_memory_copy($0.baseAddress, $0.count, Int32(width), Int32(height), Int32(bands), VIPS_FORMAT_UCHAR)
        })
        pointer.pointee.Type = interpretation ?? (bands < 3 ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB)
        if let profile {
            profile.withUnsafeBytes { vips_image_set_blob_copy(pointer, VIPS_META_ICC_NAME, $0.baseAddress, $0.count) }
        }
        return VipsImageRef(pointer)
    }

    /// The image's pixels, computed (the conformance tests' reader).
    private func pixels(_ image: VipsImageRef) throws -> [UInt8] {
        try JPEGDCConformanceTests.pixels(image)
    }

    /// Smooth colour fields with some fine detail, covering most of the gamut.
    static func photoLike(width: Int, height: Int, bands: Int) -> [UInt8] {
        var random = SplitMix64(state: UInt64(width * 31 + bands))
        var pixels = [UInt8](repeating: 0, count: width * height * bands)
        for y in 0..<height {
            for x in 0..<width {
                for b in 0..<bands {
                    let u = Double(x) / Double(width), v = Double(y) / Double(height)
                    let field = 127.5 + 127.5 * sin(Double(b + 1) * 3.1 * u + Double(3 - b) * 2.3 * v + Double(b))
                    let noise = Double(Int(random.next() % 9) - 4)
                    pixels[(y * width + x) * bands + b] = UInt8(clamping: Int((field + noise).rounded()))
                }
            }
        }
        return pixels
    }

    /// sRGB pixels re-encoded in Display P3 (the same curve, P3 primaries),
    /// by the textbook matrix: independent of lcms2 and libvips.
    static func sRGBToDisplayP3(_ pixels: [UInt8]) -> [UInt8] {
        let m: [[Double]] = [
            [0.822462, 0.177538, 0.000000],
            [0.033194, 0.966806, 0.000000],
            [0.017083, 0.072397, 0.910520],
        ]
        var out = pixels
        for i in stride(from: 0, to: pixels.count, by: 3) {
            let linear = (0..<3).map { ColourProfile.sRGBDecode(Double(pixels[i + $0]) / 255) }
            for c in 0..<3 {
                let l = m[c][0] * linear[0] + m[c][1] * linear[1] + m[c][2] * linear[2]
                out[i + c] = UInt8((sRGBEncode(min(max(l, 0), 1)) * 255).rounded())
            }
        }
        return out
    }

    /// The sRGB encoding curve (IEC 61966-2.1), linear 0...1 to 0...1.
    static func sRGBEncode(_ l: Double) -> Double {
        l <= 0.0031308 ? l * 12.92 : 1.055 * pow(l, 1 / 2.4) - 0.055
    }

    static func meanDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
        precondition(a.count == b.count && !a.isEmpty)
        var sum = 0
        for i in 0..<a.count { sum += abs(Int(a[i]) - Int(b[i])) }
        return Double(sum) / Double(a.count)
    }

    static func maxDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
        zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }
}

/// Writes ICC profiles (matrix/TRC RGB or grey) byte by byte, as other
/// software would, to test the classifier on variants libvips does not ship.
enum ICCWriter {
    static let sRGBColorants = [ColourProfile.sRGBRed, ColourProfile.sRGBGreen, ColourProfile.sRGBBlue]
    /// Adobe RGB (1998) adapted to D50.
    static let adobeColorants: [ColourProfile.XYZ] = [
        .init(x: 0.6097, y: 0.3111, z: 0.0195), .init(x: 0.2053, y: 0.6257, z: 0.0609),
        .init(x: 0.1492, y: 0.0632, z: 0.7446),
    ]

    static func rgb(
        colorants: [ColourProfile.XYZ] = sRGBColorants, curve: [UInt8],
        white: ColourProfile.XYZ? = ColourProfile.d50, space: String = "RGB ",
        extraTags: [(String, [UInt8])] = []
    ) -> [UInt8] {
        var tags: [(String, [UInt8])] = [
            ("rXYZ", xyz(colorants[0])), ("gXYZ", xyz(colorants[1])), ("bXYZ", xyz(colorants[2])),
            ("rTRC", curve), ("gTRC", curve), ("bTRC", curve),
        ]
        if let white { tags.append(("wtpt", xyz(white))) }
        return profile(space: space, tags: tags + extraTags)
    }

    static func grey(curve: [UInt8]) -> [UInt8] {
        profile(space: "GRAY", tags: [("wtpt", xyz(ColourProfile.d50)), ("kTRC", curve)])
    }

    static func gamma(_ g: Double) -> [UInt8] {
        ascii("curv") + u32(0) + u32(1) + u16(UInt16(g * 256)) + u16(0)
    }

    static func sampledSRGBCurve(count: Int) -> [UInt8] {
        var bytes = ascii("curv") + u32(0) + u32(UInt32(count))
        for i in 0..<count {
            bytes += u16(UInt16((ColourProfile.sRGBDecode(Double(i) / Double(count - 1)) * 65535).rounded()))
        }
        if bytes.count % 4 != 0 { bytes += u16(0) }
        return bytes
    }

    static func parametricSRGB(type: UInt16) -> [UInt8] {
        var parameters = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
        if type == 4 { parameters += [0, 0] }
        return ascii("para") + u32(0) + u16(type) + u16(0) + parameters.flatMap(s15Fixed16)
    }

    private static func xyz(_ v: ColourProfile.XYZ) -> [UInt8] {
        ascii("XYZ ") + u32(0) + s15Fixed16(v.x) + s15Fixed16(v.y) + s15Fixed16(v.z)
    }

    private static func profile(space: String, tags: [(String, [UInt8])]) -> [UInt8] {
        let tableEnd = 132 + 12 * tags.count
        var table: [UInt8] = u32(UInt32(tags.count))
        var data: [UInt8] = []
        for (signature, bytes) in tags {
            table += ascii(signature) + u32(UInt32(tableEnd + data.count)) + u32(UInt32(bytes.count))
            data += bytes
            while data.count % 4 != 0 { data.append(0) }
        }
        let size = tableEnd + data.count
        var header = u32(UInt32(size)) + ascii("none") + u32(0x0240_0000) + ascii("mntr") + ascii(space) + ascii("XYZ ")
        header += [UInt8](repeating: 0, count: 12) + ascii("acsp") + ascii("APPL") + u32(0) + ascii("none") + ascii("none")
        header += [UInt8](repeating: 0, count: 12) // attributes, intent
        header += xyz(ColourProfile.d50).suffix(12) + ascii("none")
        header += [UInt8](repeating: 0, count: 128 - header.count)
        return header + table + data
    }

    private static func ascii(_ s: String) -> [UInt8] { Array(s.utf8) }
    private static func u32(_ v: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }
    private static func u16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(truncatingIfNeeded: v)] }
    private static func s15Fixed16(_ v: Double) -> [UInt8] { u32(UInt32(bitPattern: Int32((v * 65536).rounded()))) }
}
