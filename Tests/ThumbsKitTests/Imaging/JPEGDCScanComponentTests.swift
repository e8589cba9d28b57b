import CVips
import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// A component named twice in one SOS. libjpeg's jpeg_read_header parses
/// only the first scan header; `jpeg_dc.c` parses the later ones itself, so
/// it must refuse a repeat on its own (`components_distinct`), not count on
/// libjpeg having looked. Refused, the file goes on to libjpeg, which
/// rejects it, and then to libvips: the item gets libvips's verdict under
/// every `--fail-on`, as if the direct path did not exist.
final class JPEGDCScanComponentTests: XCTestCase {
    override func setUp() {
        TestImages.start()
    }

    /// 64 x 48, 4:4:4, ids 1, 2, 3: at an 8 x 8 box the plan is the 1/8 decode.
    private func builder(progressive: Bool, scans: [JPEGDCBuilder.Scan]) -> JPEGDCBuilder {
        JPEGDCBuilder(
            width: 64, height: 48,
            components: [.init(id: 1), .init(id: 2), .init(id: 3)],
            progressive: progressive, scans: scans,
            dc: { c, x, y in (x * 11 + y * 5 + c * 7) % 40 - 20 })
    }

    private let settings = OutputSettings(sizes: [ThumbSize(width: 8, height: 8)])
    private let acScans: [JPEGDCBuilder.Scan] = (0..<3).map { .ac($0, ss: 1, se: 63, ah: 0, al: 0) }

    /// Cb twice in a later DC first pass with Al = 0: libjpeg finds both at
    /// frame index 1 (its search starts at the scan position), and the
    /// progression checks pass (the second Cb's Ah = 0 matches the Al = 0
    /// the first one just set), so only the repeat check refuses it.
    func testCbTwiceInALaterProgressiveScanIsRefused() throws {
        let good = builder(progressive: true, scans: [.dcFirst([0], al: 0), .dcFirst([1], al: 0), .dcFirst([2], al: 0)] + acScans)
        let twice = builder(progressive: true, scans: [.dcFirst([0], al: 0), .dcFirst([1, 1], al: 0), .dcFirst([2], al: 0)] + acScans)
        // The same file with Cb once takes the DC decode: the layout is sound.
        let decoded = try XCTUnwrap(good.bytes().withUnsafeBytes { DirectJPEG.decode($0, shrink: 8) })
        XCTAssertEqual(decoded.decoder, .jpegDCProgressive)

        let bytes = twice.bytes()
        let plan = try bytes.withUnsafeBytes { raw throws(ItemError) in try Thumbnailer.plan(raw, settings: settings, limits: DecodeLimits()) }
        XCTAssertEqual(plan.path, .jpegDCProgressive, "the header and first scan are sound: the DC decode is planned")
        XCTAssertEqual(plan.shrink, 8)
        XCTAssertNil(bytes.withUnsafeBytes { DirectJPEG.decode($0, shrink: 8) }, "neither the DC decode nor libjpeg takes it")
        assertLibvipsVerdict(bytes, "Cb twice, progressive")
    }

    /// A sequential file whose second scan names Cb twice.
    func testCbTwiceInALaterSequentialScanIsRefused() throws {
        let bytes = builder(progressive: false, scans: [.sequential([0]), .sequential([1, 1]), .sequential([2])]).bytes()
        XCTAssertNotNil(bytes.withUnsafeBytes { DirectJPEG.probe($0) })
        XCTAssertNil(bytes.withUnsafeBytes { DirectJPEG.decode($0, shrink: 8) })
        assertLibvipsVerdict(bytes, "Cb twice, sequential")
    }

    /// In the first scan libjpeg's own header parse rejects the repeat: the
    /// probe refuses the file and libvips decides from the start.
    func testCbTwiceInTheFirstScanIsRefused() throws {
        let bytes = builder(progressive: true, scans: [.dcFirst([1, 1], al: 0), .dcFirst([0], al: 0), .dcFirst([2], al: 0)] + acScans).bytes()
        XCTAssertNil(bytes.withUnsafeBytes { DirectJPEG.probe($0) })
        XCTAssertNil(bytes.withUnsafeBytes { DirectJPEG.decode($0, shrink: 8) })
        assertLibvipsVerdict(bytes, "Cb twice, first scan")
    }

    /// The thumbnailer's decode, planned as usual, ends as libvips alone
    /// ends: with libvips's error, or libvips's pixels, never a direct
    /// decoder's pixels.
    ///
    /// Which of the two is libvips's business, and libvips 8.14 is not
    /// deterministic on such a file under any `--fail-on`: `vipsthumbnail`
    /// on the same bytes exits 0 or 255 from one run to the next, as its
    /// decode threads race to the libjpeg error. So the test accepts either
    /// of libvips's verdicts, from both ways in.
    private func assertLibvipsVerdict(_ bytes: [UInt8], _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        for failOn in FailOn.allCases {
            let limits = DecodeLimits(failOn: failOn)
            let libvipsOnly = bytes.withUnsafeBytes { raw in
                try! LibvipsImageDecoder().plan(DecoderInput(source: .memory(raw), format: nil, settings: settings, limits: limits))!
            }
            let planned = verdict { raw throws(ItemError) in try Thumbnailer.decode(raw, settings: settings, limits: limits) }
            let libvips = verdict { raw throws(ItemError) in try Thumbnailer.decode(raw, plan: libvipsOnly, settings: settings, limits: limits) }
            XCTAssertTrue(planned.isLibvipsVerdict, "\(label), --fail-on \(failOn), planned: \(planned)", file: file, line: line)
            XCTAssertTrue(libvips.isLibvipsVerdict, "\(label), --fail-on \(failOn), libvips alone: \(libvips)", file: file, line: line)
        }

        func verdict(_ decode: (UnsafeRawBufferPointer) throws(ItemError) -> DecodedImage) -> Verdict {
            // libvips's error buffer is per process; other tests may leave
            // messages in it, which the next error would repeat.
            vips_error_clear()
            return bytes.withUnsafeBytes { raw in
                do throws(ItemError) {
                    return Verdict(decoder: try decode(raw).decoder, code: nil, message: nil)
                } catch {
                    return Verdict(decoder: nil, code: error.code, message: error.message)
                }
            }
        }
    }

    private struct Verdict: Equatable {
        var decoder: DecodePath?
        var code: ItemError.Code?
        var message: String?

        /// libvips's pixels, or libvips's refusal of the repeated component.
        var isLibvipsVerdict: Bool {
            if let decoder { return decoder == .libvips && code == nil }
            return code == .decode && message?.hasSuffix("VipsJpeg: Invalid component ID 2 in SOS") == true
        }
    }
}
