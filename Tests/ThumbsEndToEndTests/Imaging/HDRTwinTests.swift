import CThumbsTestShim
import Foundation
import ThumbsKit
import ThumbsTestSupport
import XCTest

/// An SDR picture and its HDR twins (issue 36): the same colour bars made
/// PQ and HLG the way a grading tool or FFmpeg's zscale makes them — sRGB
/// to linear BT.709 light, SDR white at 203 nits (reference white, ITU-R
/// BT.2408), BT.709 primaries to BT.2020 (BT.2087), then PQ's inverse EOTF
/// or HLG's inverse OOTF and OETF for a 1000-nit display (BT.2100). The
/// thumbnail of each twin must look like the SDR picture: at least 0.85 of
/// its colourfulness (Hasler and Süsstrunk's metric), a mean brightness
/// 0.9 to 1.1 times its, and each bar's hue within 5 degrees.
final class HDRTwinTests: TemporaryFolderTestCase {
    static let width = 384, height = 160
    /// Top row at 100 %, bottom row at 75 % (sRGB levels): a test card's
    /// bars (white, yellow, cyan, green, magenta, red, blue), a mid grey,
    /// and colours of photos (orange, skin, sky, foliage), whose hue a
    /// channel-by-channel curve would turn.
    static let bars: [[Double]] = [[1, 1, 1], [1, 1, 0], [0, 1, 1], [0, 1, 0], [1, 0, 1], [1, 0, 0], [0, 0, 1], [0.5, 0.5, 0.5],
                                   [1, 0.5, 0], [0.9, 0.7, 0.55], [0.4, 0.6, 0.9], [0.3, 0.55, 0.2]]
    static let levels: [Double] = [1, 0.75]

    static func sdr(bar: Int, row: Int) -> [Double] { bars[bar].map { $0 * levels[row] * 255 } }

    static func linear(_ level: Double) -> Double {
        let v = level / 255
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    /// BT.709 to BT.2020 (BT.2087), linear light.
    static func toBT2020(_ rgb: [Double]) -> [Double] {
        [0.6274 * rgb[0] + 0.3293 * rgb[1] + 0.0433 * rgb[2],
         0.0691 * rgb[0] + 0.9195 * rgb[1] + 0.0114 * rgb[2],
         0.0164 * rgb[0] + 0.0880 * rgb[1] + 0.8956 * rgb[2]]
    }

    /// The HDR twin, three 10-bit values a pixel.
    static func twin(hlg: Bool) -> [UInt16] {
        var pixels = [UInt16]()
        for y in 0..<height {
            for x in 0..<width {
                let sdr = Self.sdr(bar: x * bars.count / width, row: y * levels.count / height)
                let nits = toBT2020(sdr.map(linear)).map { $0 * 203 }
                let signal = hlg ? HDRStillTests.hlg(nits) : nits.map(HDRStillTests.pq)
                pixels += signal.map { UInt16((min(max($0, 0), 1) * 1023).rounded()) }
            }
        }
        return pixels
    }

    /// The mean sRGB levels of each bar of the thumbnail at `path`, row by row.
    private func barLevels(_ path: String) -> [[Double]] {
        var result: [[Double]] = []
        for row in 0..<Self.levels.count {
            for bar in 0..<Self.bars.count {
                let x = (Double(bar) + 0.25) / Double(Self.bars.count), y = (Double(row) + 0.25) / Double(Self.levels.count)
                result.append((0..<3).map {
                    TestImages.mean(path, band: $0, x: x, y: y, w: 0.5 / Double(Self.bars.count), h: 0.5 / Double(Self.levels.count))
                })
            }
        }
        return result
    }

    /// Hasler and Süsstrunk's colourfulness over equally weighted patches.
    static func colourfulness(_ patches: [[Double]]) -> Double {
        let rg = patches.map { $0[0] - $0[1] }, yb = patches.map { 0.5 * ($0[0] + $0[1]) - $0[2] }
        func mean(_ v: [Double]) -> Double { v.reduce(0, +) / Double(v.count) }
        func sd(_ v: [Double]) -> Double { let m = mean(v); return (v.map { ($0 - m) * ($0 - m) }.reduce(0, +) / Double(v.count)).squareRoot() }
        return (sd(rg) * sd(rg) + sd(yb) * sd(yb)).squareRoot() + 0.3 * (mean(rg) * mean(rg) + mean(yb) * mean(yb)).squareRoot()
    }

    /// Hue angle in degrees, in the opponent plane (nil for a grey).
    static func hue(_ rgb: [Double]) -> Double? {
        let a = 2 * rgb[0] - rgb[1] - rgb[2], b = 3.0.squareRoot() * (rgb[1] - rgb[2])
        return (a * a + b * b).squareRoot() < 20 ? nil : atan2(b, a) * 180 / .pi
    }

    /// The bars' SDR levels, row by row, as `barLevels` reads them.
    static var sdrBars: [[Double]] { (0..<levels.count).flatMap { row in (0..<bars.count).map { sdr(bar: $0, row: row) } } }

    /// Checks the twin `id`'s thumbnail against the SDR bars: colourfulness,
    /// mean brightness and each bar's hue.
    private func assertLooksLikeTheSDRBars(_ item: ManifestItem?, _ id: String, file: StaticString = #filePath,
                                           line: UInt = #line) throws {
        let item = try XCTUnwrap(item, id, file: file, line: line)
        XCTAssertEqual(item.status, .ok, "\(id): \(String(describing: item.error))", file: file, line: line)
        let hdr = barLevels(root + "/out/" + (item.outputs.first?.path ?? ""))
        let sdr = Self.sdrBars
        let colourfulness = Self.colourfulness(hdr) / Self.colourfulness(sdr)
        let brightness = hdr.map { $0.reduce(0, +) / 3 }.reduce(0, +) / sdr.map { $0.reduce(0, +) / 3 }.reduce(0, +)
        XCTAssertGreaterThanOrEqual(colourfulness, 0.85, "\(id): colourfulness against the SDR twin's", file: file, line: line)
        XCTAssertGreaterThanOrEqual(brightness, 0.9, "\(id): brightness against the SDR twin's", file: file, line: line)
        XCTAssertLessThanOrEqual(brightness, 1.1, "\(id): brightness against the SDR twin's", file: file, line: line)
        for (index, (made, wanted)) in zip(hdr, sdr).enumerated() {
            guard let wantedHue = Self.hue(wanted) else { continue }
            let madeHue = try XCTUnwrap(Self.hue(made), "\(id) bar \(index) became grey: \(made)", file: file, line: line)
            var difference = abs(madeHue - wantedHue).truncatingRemainder(dividingBy: 360)
            if difference > 180 { difference = 360 - difference }
            XCTAssertLessThanOrEqual(difference, 5, "\(id) bar \(index): hue \(madeHue) against \(wantedHue) (\(made) against \(wanted))",
                                     file: file, line: line)
        }
    }

    func testHDRTwinsKeepTheSDRPicturesColour() async throws {
        try FileManager.default.createDirectory(atPath: root + "/in", withIntermediateDirectories: true)
        for (name, transfer) in [("pq.heic", Int32(16)), ("hlg.heic", Int32(18))] {
            let status = test_write_hdr_heif(root + "/in/" + name, Self.twin(hlg: transfer == 18), Int32(Self.width), Int32(Self.height),
                                             9, transfer, 0, nil, 0, 0)
            XCTAssertEqual(status, 0, "libheif could not write \(name)")
        }
        let outcome = try await runThumbs([root + "/in"], out: root + "/out") { $0.size([Self.width]) }
        let manifest = try XCTUnwrap(outcome.manifest)
        for id in ["pq.heic", "hlg.heic"] {
            try assertLooksLikeTheSDRBars(manifest.item(id), id)
        }
    }

    /// The same bars made PQ and HLG by FFmpeg's zscale, an encoder other
    /// than this file's formulas (scripts/make-hdr-fixtures.sh), as AVIF.
    func testFFmpegsAVIFTwinsKeepTheSDRPicturesColour() async throws {
        try FileManager.default.createDirectory(atPath: root + "/in", withIntermediateDirectories: true)
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/heif")
        for name in ["twin-pq.avif", "twin-hlg.avif"] {
            try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent(name).path, toPath: root + "/in/" + name)
        }
        let outcome = try await runThumbs([root + "/in"], out: root + "/out") { $0.size([Self.width]) }
        let manifest = try XCTUnwrap(outcome.manifest)
        for id in ["twin-pq.avif", "twin-hlg.avif"] {
            XCTAssertEqual(manifest.item(id)?.decoder, .libheif, id)
            try assertLooksLikeTheSDRBars(manifest.item(id), id)
        }
    }
}
