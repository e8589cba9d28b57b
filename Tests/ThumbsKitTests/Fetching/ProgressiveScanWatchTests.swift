import CThumbsTestShim
import CVips
import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Issue 24: the scans of a progressive JPEG read while it arrives, the cut
/// after its DC scans, and the completed prefix decoded on the DC path to
/// the whole file's 1/8 image (within the DC refinement bit not sent).
final class ProgressiveScanWatchTests: XCTestCase {
    override func setUp() {
        TestImages.start()
    }

    static let fixtures = ProgressiveJPEGFixtureTests.fixtures
    /// A real photo (exif-samples' DSCN0038, 320 px; see its README).
    static let photo = fixtures.deletingLastPathComponent().appendingPathComponent("lookalikes/DSCN0038-1-original.jpg")

    /// Feeds `bytes` in chunks of `chunk` and returns the verdict.
    static func watch(_ bytes: [UInt8], chunk: Int = 997, accepts: Bool = true) -> ProgressiveScanWatch.Verdict {
        var watch = ProgressiveScanWatch { _ in accepts }
        var at = 0
        while at < bytes.count {
            let verdict = watch.feed(bytes[at..<min(bytes.count, at + chunk)])
            if verdict != .needMore { return verdict }
            at += chunk
        }
        return watch.verdict
    }

    /// The watcher found no cut where a test expects one.
    struct NoCut: Error, CustomStringConvertible {
        var description: String
    }

    /// The prefix up to the cut, completed. No cut is a failure of the
    /// test that asked (a watcher that regressed), never a skip.
    static func completed(_ bytes: [UInt8], chunk: Int = 997) throws -> (file: [UInt8], cut: Int) {
        guard case .enough(let cut, let completion) = watch(bytes, chunk: chunk) else {
            throw NoCut(description: "no cut: \(watch(bytes, chunk: chunk))")
        }
        return (Array(bytes[0..<cut]) + completion.tail(cut: cut, size: Int64(bytes.count)), cut)
    }

    /// The 1/8 decode of `bytes` on the JPEG paths: pixels and decoder.
    static func dcDecode(_ bytes: [UInt8]) throws -> (pixels: [UInt8], width: Int, decoder: DecodePath) {
        let decoded = try XCTUnwrap(bytes.withUnsafeBytes { DirectJPEG.decode($0, shrink: 8, memoryBudget: 64 << 20) })
        let image = try XCTUnwrap(decoded.image())
        return (try JPEGDCConformanceTests.pixels(image), decoded.width, decoded.decoder)
    }

    /// Largest difference of one sample, and PSNR.
    static func compare(_ a: [UInt8], _ b: [UInt8]) -> (maxError: Int, psnr: Double) {
        (zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0, JPEGDCConformanceTests.psnr(a, b))
    }

    static func progressive(_ source: URL, options: String = "[Q=90,interlace,strip]") throws -> [UInt8] {
        let folder = TestImages.temporaryDirectory("scan-watch")
        let path = folder + "/" + source.deletingPathExtension().lastPathComponent + "-p.jpg"
        var image: UnsafeMutablePointer<VipsImage>?
        XCTAssertEqual(shim_open_file(source.path, &image), 0)
        let loaded = try XCTUnwrap(image)
        defer { g_object_unref(loaded) }
        XCTAssertEqual(shim_save_file(loaded, path + options), 0)
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// libvips's interlaced JPEG (libjpeg's standard script: an interleaved
    /// DC scan with Al = 1 first, its refinement seventh): the cut comes
    /// after the first scan, and the completed prefix decodes on the DC
    /// path to the whole file's 1/8 image within a level (the missing bit).
    func testStandardScriptCutsAfterTheFirstScanAndDecodesLikeTheWholeFile() throws {
        let whole = try Self.progressive(Self.photo)
        let (file, cut) = try Self.completed(whole)
        XCTAssertLessThan(Double(cut) / Double(whole.count), 0.3, "cut at \(cut) of \(whole.count)")
        XCTAssertEqual(JPEGDCConformanceTests.markers(Array(whole[0..<cut]), 0xDA).count, 1, "one scan before the cut")
        let partial = try Self.dcDecode(file), reference = try Self.dcDecode(whole)
        XCTAssertEqual(partial.decoder, .jpegDCProgressive)
        XCTAssertEqual(reference.decoder, .jpegDCProgressive)
        XCTAssertEqual(partial.width, reference.width)
        let (maxError, psnr) = Self.compare(partial.pixels, reference.pixels)
        XCTAssertGreaterThan(psnr, 40)
        XCTAssertLessThanOrEqual(maxError, 4, "psnr \(psnr)")
        // The same cut however the body is chunked.
        for chunk in [1, 64, 4096, whole.count] {
            XCTAssertEqual(try Self.completed(whole, chunk: chunk).cut, cut, "chunk \(chunk)")
        }
    }

    /// Files of the JPEG fixtures with DC scans per component, restart
    /// intervals, 4:2:2 and 4:4:0 sampling, grey, two DC refinements: each
    /// completed prefix decodes on the DC path like the whole file (exactly,
    /// where every DC bit came before the cut).
    func testFixturesDecodeFromTheirPrefixAsFromTheWholeFile() throws {
        var compared: [String] = []
        defer { XCTAssertGreaterThanOrEqual(compared.count, 5, "compared \(compared)") }
        for name in ["tran-dc-per-component.jpg", "tran-dc-refine-per-component.jpg", "tran-dc-two-refinements.jpg",
                     "tran-prog-restart-1.jpg", "tran-prog-grey-restart-5.jpg", "cjpeg-prog-422.jpg", "cjpeg-prog-440-restart.jpg"] {
            let whole = [UInt8](try Data(contentsOf: Self.fixtures.appendingPathComponent(name)))
            guard case .enough(let cut, let completion) = Self.watch(whole) else {
                XCTFail("\(name): \(Self.watch(whole))"); continue
            }
            let file = Array(whole[0..<cut]) + completion.tail(cut: cut, size: Int64(whole.count))
            guard let reference = try? Self.dcDecode(whole), reference.decoder == .jpegDCProgressive else { continue }
            let partial = try Self.dcDecode(file)
            compared.append(name)
            XCTAssertEqual(partial.decoder, .jpegDCProgressive, name)
            let (maxError, psnr) = Self.compare(partial.pixels, reference.pixels)
            XCTAssertGreaterThan(psnr, 40, name)
            if completion.dcShift.allSatisfy({ $0 == 0 }) { XCTAssertEqual(maxError, 0, name) }
            // libvips decodes it too, without a warning.
            XCTAssertNotNil(JPEGDCConformanceTests.libvips(file, shrink: 8), name)
        }
    }

    func testBaselineOtherFormatsAndRefusedHeadersGoWhole() throws {
        let folder = TestImages.temporaryDirectory("scan-watch-whole")
        let baseline = [UInt8](try Data(contentsOf: URL(fileURLWithPath: TestImages.write(folder + "/b.jpg", width: 64, height: 48, options: "[Q=80]"))))
        guard case .whole = Self.watch(baseline) else { return XCTFail("baseline: \(Self.watch(baseline))") }
        let png = [UInt8](try Data(contentsOf: URL(fileURLWithPath: TestImages.write(folder + "/p.png", width: 16, height: 16))))
        guard case .whole = Self.watch(png) else { return XCTFail("png: \(Self.watch(png))") }
        let whole = try Self.progressive(Self.photo)
        guard case .whole = Self.watch(whole, accepts: false) else { return XCTFail("refused header: \(Self.watch(whole, accepts: false))") }
        // SOF2 but a scan of DC and AC together: claims progressive, is not.
        var lying = whole
        let sos = try XCTUnwrap(JPEGDCConformanceTests.markers(lying, 0xDA).first)
        let count = Int(lying[sos + 4])
        lying[sos + 5 + 2 * count + 1] = 63  // Se of the first scan
        guard case .whole = Self.watch(lying) else { return XCTFail("lying: \(Self.watch(lying))") }
    }

    func testABodyThatEndsInsideTheDCScanNeedsMore() throws {
        let whole = try Self.progressive(Self.photo)
        let (_, cut) = try Self.completed(whole)
        XCTAssertEqual(Self.watch(Array(whole[0..<(cut - 100)])), .needMore)
        XCTAssertEqual(Self.watch(Array(whole[0..<(cut + 1)])), .needMore, "the marker after the scan is not whole yet")
        if case .enough = Self.watch(Array(whole[0..<(cut + 2)])) {} else { XCTFail("the marker after the scan arrived") }
    }

    /// Optional measurement on real photos: THUMBS_PARTIAL_PHOTOS names a
    /// folder of progressive JPEGs; prints each one's cut and level error.
    func testMeasureRealPhotos() throws {
        guard let folder = ProcessInfo.processInfo.environment["THUMBS_PARTIAL_PHOTOS"] else {
            throw XCTSkip("set THUMBS_PARTIAL_PHOTOS to a folder of progressive JPEGs to measure")
        }
        for name in try FileManager.default.contentsOfDirectory(atPath: folder).sorted() where name.hasSuffix(".jpg") {
            let whole = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
            guard case .enough(let cut, let completion) = Self.watch(whole, chunk: 16384) else {
                print("MEASURE \(name): \(Self.watch(whole))"); continue
            }
            let file = Array(whole[0..<cut]) + completion.tail(cut: cut, size: Int64(whole.count))
            let partial = try Self.dcDecode(file), reference = try Self.dcDecode(whole)
            let (maxError, psnr) = Self.compare(partial.pixels, reference.pixels)
            let mean = Double(zip(partial.pixels, reference.pixels).map { Int($0) - Int($1) }.reduce(0, +)) / Double(partial.pixels.count)
            print(String(format: "MEASURE %@: cut %.1f%% of %d bytes, DC Al %@, max error %d, mean error %.2f, PSNR %.1f dB (%@)",
                         name, Double(cut) * 100 / Double(whole.count), whole.count, "\(completion.dcShift)", maxError, mean, psnr,
                         partial.decoder.rawValue))
        }
    }
}
