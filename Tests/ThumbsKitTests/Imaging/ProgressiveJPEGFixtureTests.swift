import CVips
import CVipsShim
import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Progressive JPEGs as real encoders write them, decoded at 1/8 from their
/// DC scans: libjpeg's standard script (libvips's `interlace`), and the
/// fixtures in Tests/Fixtures/jpeg, made by fuzz/make_fixtures.sh with
/// jpegtran and cjpeg (scan scripts CI cannot make: one DC scan per
/// component as mozjpeg writes, DC refined twice, restarts in every scan,
/// 4:2:2 and 4:4:0 sampling, a sequential file in three scans).
final class ProgressiveJPEGFixtureTests: TemporaryFolderTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/jpeg")

    private func fixture(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: Self.fixtures.appendingPathComponent(name + ".jpg")))
    }

    /// Each fixture: the decoder that should take it, and libjpeg's pixels
    /// (grey identical, colour close: chroma comes from DC values).
    func testFixturesMatchLibjpeg() throws {
        let expected: [(String, DecodePath)] = [
            ("vips-420", .jpegDC),
            ("cjpeg-sequential-3-scans", .jpegDC),
            ("tran-dc-per-component", .jpegDCProgressive),
            ("tran-dc-refine-per-component", .jpegDCProgressive),
            ("tran-dc-two-refinements", .jpegDCProgressive),
            ("tran-prog-restart-1", .jpegDCProgressive),
            ("tran-prog-grey-restart-5", .jpegDCProgressive),
            ("cjpeg-prog-422", .jpegDCProgressive),
            ("cjpeg-prog-440-restart", .jpegDCProgressive),
            // libjpeg's 1/8 luma is not the DC value here, and an unrefined
            // DC is incomplete: libjpeg decodes both.
            ("cjpeg-prog-luma-below-chroma", .libjpeg),
            ("tran-missing-dc-refinement", .libjpeg),
            // No AC scans at all: libjpeg smooths the DC values.
            ("tran-dc-only", .libjpeg),
        ]
        for (name, decoder) in expected {
            let bytes = try fixture(name)
            let decoded = try XCTUnwrap(bytes.withUnsafeBytes { DirectJPEG.decode($0, shrink: 8) }, name)
            XCTAssertEqual(decoded.decoder, decoder, name)
            let mine = try XCTUnwrap(decoded.image(), name)
            let reference = try XCTUnwrap(JPEGDCConformanceTests.libvips(bytes, shrink: 8), name)
            XCTAssertEqual([mine.width, mine.height, mine.bands], [123 / 8, 85 / 8, name.contains("grey") ? 1 : 3], name)
            XCTAssertEqual([mine.width, mine.height, mine.bands], [reference.width, reference.height, reference.bands], name)
            let psnr = JPEGDCConformanceTests.psnr(try JPEGDCConformanceTests.pixels(mine), reference.pixels)
            XCTAssertGreaterThanOrEqual(psnr, mine.bands == 1 || decoder == .libjpeg ? 99 : 30, name)
        }
    }

    /// jpegtran rewrites scans losslessly: every progressive script of the
    /// same coefficients gives the baseline file's DC pixels, byte for byte.
    func testEveryScanScriptGivesTheBaselinePixels() throws {
        let baseline = try XCTUnwrap(try fixture("vips-420").withUnsafeBytes { DirectJPEG.decode($0, shrink: 8)?.image() })
        let expected = try JPEGDCConformanceTests.pixels(baseline)
        for name in ["tran-dc-per-component", "tran-dc-refine-per-component", "tran-dc-two-refinements", "tran-prog-restart-1"] {
            let image = try XCTUnwrap(try fixture(name).withUnsafeBytes { DirectJPEG.decode($0, shrink: 8)?.image() }, name)
            XCTAssertEqual(try JPEGDCConformanceTests.pixels(image), expected, name)
        }
    }

    /// libvips's `interlace` (libjpeg's jpeg_simple_progression: DC with
    /// Al=1, AC scans, DC refinement) at odd sizes, with restarts, grey,
    /// 4:2:0 and 4:4:4: luma identical to libjpeg, colour close.
    func testLibvipsInterlacedFilesMatchLibjpeg() throws {
        let variants: [(String, Int, String)] = [
            ("420", 3, "[Q=85,interlace,strip]"),
            ("444", 3, "[Q=90,interlace,subsample-mode=off,strip]"),
            ("restarts", 3, "[Q=85,interlace,restart-interval=2,strip]"),
            ("grey", 1, "[Q=85,interlace,strip]"),
            ("grey-restarts", 1, "[Q=80,interlace,restart-interval=1,strip]"),
        ]
        for (name, bands, options) in variants {
            let path = TestImages.write(root + "/\(name).jpg", width: 301, height: 203, bands: bands,
                                        interpretation: bands == 1 ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB,
                                        options: options)
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let header = try XCTUnwrap(bytes.withUnsafeBytes { DirectJPEG.probe($0) }, name)
            XCTAssertTrue(header.progressive, name)
            XCTAssertTrue(header.dcCapable, name)
            let decoded = try XCTUnwrap(bytes.withUnsafeBytes { DirectJPEG.decode($0, shrink: 8) }, name)
            XCTAssertEqual(decoded.decoder, .jpegDCProgressive, name)
            let mine = try XCTUnwrap(decoded.image(), name)
            let reference = try XCTUnwrap(JPEGDCConformanceTests.libvips(bytes, shrink: 8), name)
            XCTAssertEqual([mine.width, mine.height, mine.bands], [301 / 8, 203 / 8, bands], name)
            let psnr = JPEGDCConformanceTests.psnr(try JPEGDCConformanceTests.pixels(mine), reference.pixels)
            XCTAssertGreaterThanOrEqual(psnr, bands == 1 || name == "444" ? 99 : 35, name)
        }
    }

    /// libjpeg holds a progressive file's coefficients (128 bytes a block,
    /// MCU-padded) besides the pixels: the probe reports them and the decode
    /// counts them against its budget.
    func testCoefficientMemoryCountsAgainstTheBudget() throws {
        let bytes = try fixture("tran-prog-restart-1")
        let header = try XCTUnwrap(bytes.withUnsafeBytes { DirectJPEG.probe($0) })
        // 123 x 85, 4:2:0: luma 16 x 12 blocks (rows padded to 2), chroma 8 x 6 each.
        XCTAssertEqual(header.coefficientBytes, (16 * 12 + 2 * 8 * 6) * 128)
        XCTAssertTrue(header.progressive)
        XCTAssertEqual(header.components, 3)
        let pixels = (123 + 1) / 2 * ((85 + 1) / 2) * 3 // libjpeg's 1/2 output before the crop
        let need = header.coefficientBytes + pixels
        // The same layout with DC left unrefined: the compact decode
        // (jpeg_prog.c, CompactProgressiveTests) steps aside, libjpeg decodes.
        let libjpegOnly = try fixture("tran-missing-dc-refinement")
        XCTAssertNil(libjpegOnly.withUnsafeBytes { DirectJPEG.decode($0, shrink: 2, memoryBudget: need - 1) })
        let decoded = try XCTUnwrap(libjpegOnly.withUnsafeBytes { DirectJPEG.decode($0, shrink: 2, memoryBudget: need) })
        XCTAssertEqual(decoded.decoder, .libjpeg)
        // A baseline file streams: no coefficients to hold.
        let baseline = try XCTUnwrap(try fixture("vips-420").withUnsafeBytes { DirectJPEG.probe($0) })
        XCTAssertEqual(baseline.coefficientBytes, 0)
        XCTAssertFalse(baseline.progressive)
        // The DC decode needs far less: it holds 2 bytes a block.
        XCTAssertNotNil(bytes.withUnsafeBytes { DirectJPEG.decode($0, shrink: 8, memoryBudget: 4096) })
    }

    /// Mutated progressive files: each decodes to the size its header
    /// declares (as libjpeg reads it) or falls back, none crashes or takes
    /// more than a few seconds.
    func testMutatedProgressiveFilesNeverCrash() throws {
        let interlaced = TestImages.write(root + "/m.jpg", width: 203, height: 157, options: "[Q=85,interlace,restart-interval=2,strip]")
        let originals = [
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: interlaced))),
            try fixture("tran-dc-refine-per-component"),
            try fixture("tran-prog-grey-restart-5"),
        ]
        var random = SplitMix64(state: 7)
        var decoded = 0
        for round in 0..<450 {
            var bytes = originals[round % originals.count]
            let changes = 1 + Int(random.next() % 4)
            for _ in 0..<changes {
                let position = 2 + Int(random.next() % UInt64(bytes.count - 2))
                bytes[position] = UInt8(truncatingIfNeeded: random.next())
            }
            if round % 7 == 0 { bytes.removeLast(1 + Int(random.next() % UInt64(bytes.count / 2))) }
            let mutated = bytes
            let sizes = SizesBox()
            assertFinishes(within: 10, "round \(round)") {
                sizes.set([8, 4].map { shrink in
                    (shrink, mutated.withUnsafeBytes { DirectJPEG.decode($0, shrink: shrink) }.map { ($0.width, $0.height) })
                })
            }
            let header = bytes.withUnsafeBytes { DirectJPEG.probe($0) }
            for (shrink, size) in sizes.value {
                guard let size else { continue }
                decoded += 1
                // libvips's loader keeps floor(side / shrink), at least 1.
                let header = try XCTUnwrap(header, "decoded without a header, round \(round)")
                XCTAssertEqual(size.0, max(1, header.width / shrink), "round \(round) 1/\(shrink)")
                XCTAssertEqual(size.1, max(1, header.height / shrink), "round \(round) 1/\(shrink)")
            }
        }
        XCTAssertGreaterThan(decoded, 0, "some mutations leave a decodable file")
    }

    /// Decoded sizes handed back from the deadline's thread.
    private final class SizesBox: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [(Int, (Int, Int)?)] = []
        func set(_ value: [(Int, (Int, Int)?)]) { lock.withLock { stored = value } }
        var value: [(Int, (Int, Int)?)] { lock.withLock { stored } }
    }
}
