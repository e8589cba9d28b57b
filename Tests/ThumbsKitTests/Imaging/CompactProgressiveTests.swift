import CVips
import CThumbsTestShim
import CVipsShim
import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// The compact progressive decode at 1/2 and 1/4 (jpeg_prog.c): it keeps
/// 4x4 coefficients a block instead of 64, so its pixels differ a little
/// from libjpeg's reduced IDCT (which also folds in coefficients 5 to 7).
/// Compared with libvips's loader at the same shrink (libjpeg, failing on
/// any warning): mean absolute difference over all samples <= 1.5 levels,
/// largest single difference <= 16. At 1/1 (the banded decode, every
/// coefficient kept, a floating-point IDCT against libjpeg's integer one):
/// mean <= 0.1, largest <= 4.
final class CompactProgressiveTests: XCTestCase {
    var root = ""

    override func setUp() {
        TestImages.start()
        root = TestImages.temporaryDirectory(name)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// jpeg_dc.h's JPEG_DECODER_PROGRESSIVE_COMPACT.
    static let compact: Int32 = 3

    /// A photo-like test image with detail in every frequency: a gradient,
    /// sinusoidal texture of several periods, sharp-edged squares and a
    /// little noise, written by libvips with `options`.
    static func writeTextured(_ path: String, width: Int, height: Int, bands: Int, options: String) -> [UInt8] {
        var random = SplitMix64(state: UInt64(width * 31 + height))
        var data = [UInt8](repeating: 0, count: width * height * bands)
        var i = 0
        for y in 0..<height {
            for x in 0..<width {
                for b in 0..<bands {
                    let fx = Double(x), fy = Double(y), phase = Double(b) * 1.7
                    var v = 40 + 150 * fx / Double(width) + 30 * fy / Double(height)
                    v += 25 * sin(fx / 9 + phase) * cos(fy / 13)
                    v += 12 * sin((fx + fy) / 3.1 + phase)
                    if (x / 37 + y / 29) % 5 == b { v += 40 }
                    v += Double(Int(random.next() % 13) - 6)
                    data[i] = UInt8(max(0, min(255, Int(v))))
                    i += 1
                }
            }
        }
        let image = data.withUnsafeBytes {
            vips_image_new_from_memory_copy($0.baseAddress, $0.count, Int32(width), Int32(height), Int32(bands),
                                            VIPS_FORMAT_UCHAR)
        }!
        image.pointee.Type = bands == 1 ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB
        precondition(shim_save_file(image, path + options) == 0, String(cString: vips_error_buffer()))
        shim_unref(image)
        return [UInt8](try! Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The direct decode; the decoder number and the pixels, or nil.
    static func direct(_ bytes: [UInt8], shrink: Int, target: (Int, Int) = (0, 0), budget: Int = 1 << 30)
        -> (decoder: Int32, width: Int, height: Int, bands: Int, pixels: [UInt8])?
    {
        bytes.withUnsafeBytes { raw in
            var out = shim_jpeg_pixels()
            let paths = shrink == 8 ? [SHIM_JPEG_PATH_DC, SHIM_JPEG_PATH_LIBJPEG] : [SHIM_JPEG_PATH_COMPACT, SHIM_JPEG_PATH_LIBJPEG]
            guard paths.contains(where: { path in
                shim_jpeg_direct_decode_path(raw.baseAddress, raw.count, Int32(path), Int32(shrink), Int32(target.0), Int32(target.1),
                                             budget, &out) == 0
            }) else { return nil }
            defer { shim_jpeg_pixels_free(&out) }
            let count = out.width * out.height * Int(out.bands)
            return (out.decoder, out.width, out.height, Int(out.bands),
                    [UInt8](UnsafeBufferPointer(start: out.pixels, count: count)))
        }
    }

    /// Asserts that the compact decode takes the file at `shrink` and gives
    /// libjpeg's size and nearly its pixels. Returns (mean, max) difference.
    @discardableResult
    private func assertCloseToLibjpeg(_ bytes: [UInt8], shrink: Int, _ label: String,
                                      mean: Double = 1.5, max: Int = 16,
                                      file: StaticString = #filePath, line: UInt = #line) throws -> (Double, Int) {
        let mine = try XCTUnwrap(Self.direct(bytes, shrink: shrink), label, file: file, line: line)
        XCTAssertEqual(mine.decoder, Self.compact, label, file: file, line: line)
        let reference = try XCTUnwrap(JPEGDCConformanceTests.libvips(bytes, shrink: shrink), "libjpeg refuses: \(label)",
                                      file: file, line: line)
        XCTAssertEqual([mine.width, mine.height, mine.bands], [reference.width, reference.height, reference.bands],
                       label, file: file, line: line)
        guard mine.pixels.count == reference.pixels.count else { return (.infinity, 255) }
        var sum = 0, largest = 0
        for (a, b) in zip(mine.pixels, reference.pixels) {
            let d = abs(Int(a) - Int(b))
            sum += d
            largest = Swift.max(largest, d)
        }
        let average = Double(sum) / Double(mine.pixels.count)
        XCTAssertLessThanOrEqual(average, mean, "mean difference: \(label)", file: file, line: line)
        XCTAssertLessThanOrEqual(largest, max, "largest difference: \(label)", file: file, line: line)
        return (average, largest)
    }

    /// libvips's `interlace` (libjpeg's standard progression: DC with Al=1,
    /// spectral selection, successive approximation of AC and DC) at odd
    /// sizes (partial MCUs), 4:4:4, 4:2:0, grey, restart intervals.
    func testInterlacedFilesMatchLibjpeg() throws {
        let variants: [(String, Int, Int, Int, String)] = [
            ("444", 1001, 757, 3, "[Q=90,interlace,subsample-mode=off,strip]"),
            // 2 MB of coefficients a component at 1/2: the rows already
            // rendered go back to the system (coef_release) eight times over.
            ("444-released", 2400, 1800, 3, "[Q=90,interlace,subsample-mode=off,strip]"),
            ("420", 1001, 757, 3, "[Q=85,interlace,subsample-mode=on,strip]"),
            ("grey", 1001, 757, 1, "[Q=85,interlace,strip]"),
            ("restart-420", 333, 211, 3, "[Q=80,interlace,subsample-mode=on,restart-interval=3,strip]"),
            ("restart-444", 203, 157, 3, "[Q=95,interlace,subsample-mode=off,restart-interval=1,strip]"),
            ("grey-restart", 77, 51, 1, "[Q=75,interlace,restart-interval=2,strip]"),
            ("tiny", 9, 6, 3, "[Q=90,interlace,subsample-mode=on,strip]"),
            // At 1/1, restart intervals and EOB runs that cross the bands'
            // edges (32 rows), and bands of one or two MCU rows.
            ("restart-across-bands", 517, 301, 3, "[Q=70,interlace,subsample-mode=on,restart-interval=50,strip]"),
            ("grey-restart-across-bands", 301, 133, 1, "[Q=60,interlace,restart-interval=7,strip]"),
        ]
        for (name, width, height, bands, options) in variants {
            let bytes = Self.writeTextured(root + "/\(name).jpg", width: width, height: height, bands: bands, options: options)
            for shrink in [1, 2, 4] {
                let (mean, largest) = try assertCloseToLibjpeg(bytes, shrink: shrink, "\(name) 1/\(shrink)",
                                                               mean: shrink == 1 ? 0.1 : 1.5, max: shrink == 1 ? 4 : 16)
                print("compact \(name) 1/\(shrink): mean \(mean) max \(largest)")
            }
        }
    }

    /// The progressive fixtures (jpegtran and cjpeg scan scripts: one DC
    /// scan per component, DC refined twice, restarts in every scan, 4:2:2,
    /// 4:4:0). These are noise-like 123 x 85
    /// images, the worst case for leaving out coefficients 5 to 7, so at
    /// 1/2 the bound is looser.
    func testProgressiveFixtures() throws {
        let taken = ["tran-dc-per-component", "tran-dc-refine-per-component", "tran-dc-two-refinements",
                     "tran-prog-restart-1", "tran-prog-grey-restart-5", "cjpeg-prog-422", "cjpeg-prog-440-restart"]
        for name in taken {
            let bytes = try fixture(name)
            try assertCloseToLibjpeg(bytes, shrink: 1, name, mean: 0.1, max: 4)
            try assertCloseToLibjpeg(bytes, shrink: 2, name, mean: 4, max: 20)
            try assertCloseToLibjpeg(bytes, shrink: 4, name, mean: 2, max: 12)
        }
        // A DC refinement missing leaves DC incomplete; no AC scans at all
        // would have libjpeg smooth the blocks; luma sampled below chroma
        // gets a larger IDCT: libjpeg decodes them.
        for name in ["tran-missing-dc-refinement", "tran-dc-only", "cjpeg-prog-luma-below-chroma"] {
            for shrink in [1, 2, 4] {
                let decoded = try XCTUnwrap(Self.direct(try fixture(name), shrink: shrink), name)
                XCTAssertNotEqual(decoded.decoder, Self.compact, name)
            }
        }
        // Baseline files never come here.
        XCTAssertNotEqual(Self.direct(try fixture("vips-420"), shrink: 2)?.decoder, Self.compact)
    }

    /// The compact decode needs less than half of libjpeg's memory for
    /// 4:4:4: it succeeds within a budget libjpeg's coefficients alone
    /// exceed, and refuses (like libjpeg) a budget below its own need.
    func testMemoryStaysBelowLibjpegs() throws {
        let bytes = Self.writeTextured(root + "/m.jpg", width: 640, height: 480, bands: 3,
                                       options: "[Q=90,interlace,subsample-mode=off,strip]")
        let header = try XCTUnwrap(bytes.withUnsafeBytes { DirectJPEG.probe($0) })
        XCTAssertEqual(header.coefficientBytes, 80 * 60 * 3 * 128)
        for shrink in [2, 4] {
            // 40 bytes a block, three block rows of samples per component
            // (n x n samples a block, n = 8 / shrink) and the output.
            let n = 8 / shrink
            let need = 80 * 60 * 3 * 40 + 3 * 3 * 80 * n * n + (640 / shrink) * (480 / shrink) * 3
            let decoded = try XCTUnwrap(Self.direct(bytes, shrink: shrink, budget: need))
            XCTAssertEqual(decoded.decoder, Self.compact)
            // libjpeg: its coefficients and the output.
            XCTAssertLessThan(need * 2, header.coefficientBytes + (640 / shrink) * (480 / shrink) * 3)
            XCTAssertNil(Self.direct(bytes, shrink: shrink, budget: need - 1))
        }
    }

    /// Rows streamed into the resize as they are decoded give exactly the
    /// pixels of decoding whole, then resizing (the same sums in the same
    /// order): at every scale, for widths and heights from a third of the
    /// image to one pixel short of it, and a one-pixel-high target.
    func testStreamedResizeMatchesDecodeThenResize() throws {
        for (name, width, height, bands, options) in [
            ("444", 1001, 757, 3, "[Q=90,interlace,subsample-mode=off,strip]"),
            ("420", 517, 301, 3, "[Q=80,interlace,subsample-mode=on,restart-interval=5,strip]"),
            ("grey", 333, 211, 1, "[Q=85,interlace,strip]"),
        ] {
            let bytes = Self.writeTextured(root + "/s-\(name).jpg", width: width, height: height, bands: bands, options: options)
            for shrink in [1, 2, 4] {
                let full = try XCTUnwrap(Self.direct(bytes, shrink: shrink))
                for (tw, th) in [(full.width / 3, full.height / 3), (full.width - 1, full.height - 1), (full.width / 2, 1),
                                 (7, full.height - 2)] {
                    let label = "\(name) 1/\(shrink) to \(tw)x\(th)"
                    let streamed = try XCTUnwrap(Self.direct(bytes, shrink: shrink, target: (tw, th)), label)
                    XCTAssertEqual(streamed.decoder, Self.compact, label)
                    XCTAssertEqual([streamed.width, streamed.height, streamed.bands], [tw, th, bands], label)
                    var resized = [UInt8](repeating: 0, count: tw * th * bands)
                    XCTAssertEqual(shim_resample_u8(full.pixels, Int32(full.width), Int32(full.height), Int32(bands),
                                                    &resized, Int32(tw), Int32(th)), 0, label)
                    XCTAssertTrue(streamed.pixels == resized, label)
                    // Its own count of what it holds is enough, and exact.
                    let need = bytes.withUnsafeBytes { shim_jpeg_streamed_bytes($0.baseAddress, $0.count, Int32(shrink), Int32(tw), Int32(th)) }
                    XCTAssertEqual(Self.direct(bytes, shrink: shrink, target: (tw, th), budget: need)?.decoder, Self.compact, label)
                    XCTAssertNotEqual(Self.direct(bytes, shrink: shrink, target: (tw, th), budget: need - 1)?.decoder, Self.compact, label)
                }
                // A target as large as the decode (or larger) is no target.
                let same = try XCTUnwrap(Self.direct(bytes, shrink: shrink, target: (full.width, full.height - 1)))
                XCTAssertEqual([same.width, same.height], [full.width, full.height])
            }
        }
    }

    /// At 1/1 the banded decode holds about the output alone: a bit per
    /// coefficient while it parses, then two bands of 32 rows of
    /// coefficients, with each scan's tables and a cursor per band. libjpeg
    /// holds every coefficient (twice the pixels' bytes) besides.
    func testFullScaleHoldsAboutThePixels() throws {
        for (name, options) in [("444", "[Q=90,interlace,subsample-mode=off,strip]"),
                                ("420", "[Q=90,interlace,subsample-mode=on,strip]")] {
            let bytes = Self.writeTextured(root + "/full-\(name).jpg", width: 2400, height: 1800, bands: 3, options: options)
            let header = try XCTUnwrap(bytes.withUnsafeBytes { DirectJPEG.probe($0) })
            let pixels = 2400 * 1800 * 3
            XCTAssertGreaterThan(header.compactBytesFull, pixels, name)
            XCTAssertLessThan(header.compactBytesFull, pixels + pixels / 4, name)
            XCTAssertLessThan(header.compactBytesFull * 3 / 2, pixels + header.coefficientBytes, name)
            let decoded = try XCTUnwrap(Self.direct(bytes, shrink: 1, budget: header.compactBytesFull), name)
            XCTAssertEqual(decoded.decoder, Self.compact, name)
            XCTAssertNil(Self.direct(bytes, shrink: 1, budget: header.compactBytesFull - 1), name)
        }
    }

    /// Data cut short anywhere (inside the first DC scan, an AC scan, a
    /// refinement, before EOI): never decoded by the compact path. libjpeg
    /// warns about each, so the direct decode as a whole fails.
    func testTruncatedFilesFail() throws {
        let bytes = Self.writeTextured(root + "/t.jpg", width: 203, height: 157, bands: 3,
                                       options: "[Q=90,interlace,subsample-mode=on,strip]")
        let scans = JPEGDCConformanceTests.markers(bytes, 0xDA)
        XCTAssertGreaterThanOrEqual(scans.count, 8)
        var cuts = scans.map { $0 + 40 } + scans.map { $0 - 1 } + [bytes.count - 2, bytes.count - 1]
        var random = SplitMix64(state: 3)
        for _ in 0..<40 { cuts.append(scans[0] + Int(random.next() % UInt64(bytes.count - scans[0]))) }
        for cut in cuts where cut > scans[0] && cut < bytes.count {
            let short = Array(bytes[0..<cut])
            for shrink in [1, 2, 4] {
                XCTAssertNil(Self.direct(short, shrink: shrink), "cut at \(cut) of \(bytes.count), 1/\(shrink)")
            }
        }
    }

    /// Scan headers that break the rules (G.1.1.1.1 and libjpeg's checks):
    /// refused by the compact path, and the file then goes to libjpeg,
    /// which errors or warns: no decode at all.
    func testBrokenScanHeadersAreRefused() throws {
        let bytes = Self.writeTextured(root + "/h.jpg", width: 96, height: 64, bands: 3,
                                       options: "[Q=90,interlace,subsample-mode=off,strip]")
        XCTAssertEqual(Self.direct(bytes, shrink: 2)?.decoder, Self.compact)
        let scans = JPEGDCConformanceTests.markers(bytes, 0xDA)
        // The standard script: scan 0 is the interleaved DC scan, scan 1 an AC
        // first scan of luma (Ss=1), the last scans refinements.
        func edited(_ scan: Int, _ change: (inout [UInt8], Int) -> Void) -> [UInt8] {
            var copy = bytes
            change(&copy, scans[scan])
            return copy
        }
        /// Offset of Ss in the SOS at `at`.
        func ss(_ b: [UInt8], _ at: Int) -> Int { at + 5 + 2 * Int(b[at + 4]) }
        let cases: [(String, [UInt8])] = [
            ("Se beyond 63", edited(1) { b, at in b[ss(b, at) + 1] = 64 }),
            ("Ss after Se", edited(1) { b, at in b[ss(b, at)] = 9; b[ss(b, at) + 1] = 5 }),
            ("DC scan with Se", edited(0) { b, at in b[ss(b, at) + 1] = 5 }),
            ("Al too large", edited(1) { b, at in b[ss(b, at) + 2] = 14 }),
            ("Ah without Al = Ah - 1", edited(1) { b, at in b[ss(b, at) + 2] = 0x30 }),
            ("component twice", edited(0) { b, at in b[at + 7] = b[at + 5] }),
        ]
        for (label, file) in cases {
            for shrink in [1, 2, 4] {
                XCTAssertNil(Self.direct(file, shrink: shrink), "\(label), 1/\(shrink)")
            }
        }
        // A restart interval larger than the image: no RSTn at all, still fine.
        var dri = bytes
        let sof = JPEGDCConformanceTests.markers(bytes, 0xC2)[0]
        dri.insert(contentsOf: [0xFF, 0xDD, 0x00, 0x04, 0xFF, 0xFF], at: sof)
        try assertCloseToLibjpeg(dri, shrink: 2, "huge restart interval")
        try assertCloseToLibjpeg(dri, shrink: 1, "huge restart interval 1/1", mean: 0.1, max: 4)
    }

    /// Every scan of libjpeg's progressive files has its own Huffman tables
    /// (DHT between scans, as every test here decodes). A quantisation table
    /// redefined after the first scan changes nothing: libjpeg latches a
    /// component's table at its first scan, and so does the compact decode.
    func testQuantisationTableLatchedAtTheFirstScan() throws {
        let bytes = Self.writeTextured(root + "/q.jpg", width: 120, height: 88, bands: 3,
                                       options: "[Q=85,interlace,subsample-mode=on,strip]")
        let scans = JPEGDCConformanceTests.markers(bytes, 0xDA)
        XCTAssertGreaterThan(JPEGDCConformanceTests.markers(Array(bytes[scans[0]...]), 0xC4).count, scans.count / 2)
        let dqt: [UInt8] = [0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 99, count: 64)
        var changed = bytes
        changed.insert(contentsOf: dqt, at: scans[1])
        for shrink in [1, 2, 4] {
            try assertCloseToLibjpeg(changed, shrink: shrink, "DQT after the first scan 1/\(shrink)",
                                     mean: shrink == 1 ? 0.1 : 1.5, max: shrink == 1 ? 4 : 16)
            XCTAssertEqual(Self.direct(changed, shrink: shrink)?.pixels, Self.direct(bytes, shrink: shrink)?.pixels)
        }
    }

    /// Random damage to the entropy-coded data and the headers: each file
    /// decodes or fails, none crashes; when the compact path decodes it,
    /// libjpeg (through libvips's loader, failing on any warning) decodes
    /// it too, to the same size. (Pixels may differ: on corrupt data the
    /// compact decode clamps where libjpeg's range-limit table wraps.)
    func testMutatedFilesNeverCrash() throws {
        let originals = [
            Self.writeTextured(root + "/a.jpg", width: 83, height: 61, bands: 3,
                               options: "[Q=85,interlace,subsample-mode=on,restart-interval=2,strip]"),
            Self.writeTextured(root + "/b.jpg", width: 64, height: 48, bands: 1, options: "[Q=90,interlace,strip]"),
            try fixture("cjpeg-prog-422"),
            try fixture("tran-dc-refine-per-component"),
        ]
        var random = SplitMix64(state: 11)
        var compact = 0, refused = 0
        for round in 0..<600 {
            var bytes = originals[round % originals.count]
            let scans = JPEGDCConformanceTests.markers(bytes, 0xDA)
            for _ in 0..<(1 + Int(random.next() % 3)) {
                // Mostly inside the scans, sometimes anywhere.
                let from = round % 5 == 0 ? 2 : scans[0]
                let position = from + Int(random.next() % UInt64(bytes.count - from))
                bytes[position] = UInt8(truncatingIfNeeded: random.next())
            }
            for shrink in [1, 2, 4] {
                if let decoded = Self.direct(bytes, shrink: shrink), decoded.decoder == Self.compact {
                    compact += 1
                    let label = "round \(round) 1/\(shrink)"
                    let reference = try XCTUnwrap(JPEGDCConformanceTests.libvips(bytes, shrink: shrink),
                                                  "decoded a file libjpeg refuses: \(label)")
                    XCTAssertEqual([decoded.width, decoded.height, decoded.bands],
                                   [reference.width, reference.height, reference.bands], label)
                } else {
                    refused += 1
                }
            }
        }
        XCTAssertGreaterThan(compact, 0)
        XCTAssertGreaterThan(refused, 0)
    }

    private func fixture(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: ProgressiveJPEGFixtureTests.fixtures.appendingPathComponent(name + ".jpg")))
    }
}
