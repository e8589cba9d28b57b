import CThumbsTestShim
import Foundation
import ThumbsKit
import ThumbsTestSupport
import XCTest

/// HDR stills (HEIF and AVIF whose nclx box names PQ or HLG, BT.2020) come
/// out tone-mapped to SDR sRGB: never flat, grey or washed out, as libvips
/// 8.14's loader leaves them (it hands the 10-bit signal on as if it were
/// sRGB).
///
/// The test card: left half, top to bottom, greys at 5, 20, 100, 203 and
/// 600 nits; right half, BT.2020 red, green and blue at 100 nits each, then
/// a 1000-nit white. The expected greys come from the standards, not from
/// the code under test: reference white is 203 nits (ITU-R BT.2408), light
/// below 0.8 of it is left as it is, and sRGB's curve encodes it. Read
/// flat, the 100-nit grey would be 130 instead of 186, and the 1000-nit
/// white 192 instead of near 255.
final class HDRStillTests: TemporaryFolderTestCase {
    static let width = 320, height = 240
    static let greys: [Double] = [5, 20, 100, 203, 600]
    static let colours: [[Double]] = [[100, 0, 0], [0, 100, 0], [0, 0, 100], [1000, 1000, 1000]]

    /// SMPTE ST 2084's inverse EOTF: nits to a signal 0…1.
    static func pq(_ nits: Double) -> Double {
        let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128
        let c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32
        let y = pow(min(max(nits / 10000, 0), 1), m1)
        return pow((c1 + c2 * y) / (1 + c3 * y), m2)
    }

    /// BT.2100 HLG for a 1000-nit display: the OOTF undone (display light
    /// = 1000 · Ys^0.2 · scene light), then the OETF.
    static func hlg(_ rgbNits: [Double]) -> [Double] {
        let a = 0.17883277, b = 1 - 4 * a, c = 0.5 - a * log(4 * a)
        let display = rgbNits.map { $0 / 1000 }
        let yd = 0.2627 * display[0] + 0.6780 * display[1] + 0.0593 * display[2]
        guard yd > 0 else { return [0, 0, 0] }
        let gain = pow(pow(yd, 1 / 1.2), 0.2)
        return display.map { value in
            let e = value / gain
            return e <= 1.0 / 12 ? (3 * e).squareRoot() : a * log(12 * e - b) + c
        }
    }

    /// The card at `width` × `height`, three 10-bit values a pixel.
    static func card(width: Int = width, height: Int = height, hlg useHLG: Bool) -> [UInt16] {
        var pixels = [UInt16]()
        pixels.reserveCapacity(width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let nits = x < width / 2 ? Array(repeating: greys[y * greys.count / height], count: 3)
                    : colours[y * colours.count / height]
                let signal = useHLG ? hlg(nits) : nits.map(pq)
                pixels += signal.map { UInt16(($0 * 1023).rounded()) }
            }
        }
        return pixels
    }

    /// sRGB's encoding of light relative to 203-nit reference white.
    static func expectedGrey(_ nits: Double) -> Double {
        let v = nits / 203
        return 255 * (v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055)
    }

    private func writeCard(_ name: String, transfer: Int32, thumbnail: Bool = false) throws {
        try FileManager.default.createDirectory(atPath: root + "/in", withIntermediateDirectories: true)
        let primary = Self.card(hlg: transfer == 18)
        let status: Int32
        if thumbnail {
            let small = Self.card(width: Self.width / 2, height: Self.height / 2, hlg: transfer == 18)
            status = test_write_hdr_heif(root + "/in/" + name, primary, Int32(Self.width), Int32(Self.height), 9, transfer, 0,
                                         small, Int32(Self.width / 2), Int32(Self.height / 2))
        } else {
            status = test_write_hdr_heif(root + "/in/" + name, primary, Int32(Self.width), Int32(Self.height), 9, transfer, 0,
                                         nil, 0, 0)
        }
        XCTAssertEqual(status, 0, "libheif could not write \(name)")
    }

    private func mean(_ path: String, band: Int, column: Int, row: Int, rows: Int) -> Double {
        TestImages.mean(path, band: band, x: column == 0 ? 0.1 : 0.6, y: (Double(row) + 0.3) / Double(rows), w: 0.3,
                        h: 0.4 / Double(rows))
    }

    /// Checks the card's tone mapping in the thumbnail at `path`.
    private func assertToneMapped(_ path: String, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        var greys = [Double]()
        for (row, nits) in Self.greys.enumerated() {
            let levels = (0..<3).map { mean(path, band: $0, column: 0, row: row, rows: Self.greys.count) }
            XCTAssertLessThan(levels.max()! - levels.min()!, 4, "\(what): the \(Int(nits))-nit grey stays neutral", file: file, line: line)
            greys.append(levels[1])
        }
        // Below half of reference white, light is kept as it is.
        for (index, nits) in Self.greys.enumerated() where nits <= 100 {
            XCTAssertEqual(greys[index], Self.expectedGrey(nits), accuracy: 7, "\(what): \(Int(nits)) nits", file: file, line: line)
        }
        // Above, compressed, never clipped flat and never darker.
        XCTAssertLessThan(greys[2] + 10, greys[3], "\(what): 203 nits brighter than 100", file: file, line: line)
        XCTAssertLessThan(greys[3] + 5, greys[4], "\(what): 600 nits brighter than 203", file: file, line: line)
        let white = (0..<3).map { mean(path, band: $0, column: 1, row: 3, rows: 4) }
        XCTAssertGreaterThan(white.min()!, 240, "\(what): 1000 nits is white, not grey", file: file, line: line)
        // Saturated BT.2020 primaries keep their hue in sRGB.
        for (row, channel) in [0, 1, 2].enumerated() {
            let levels = (0..<3).map { mean(path, band: $0, column: 1, row: row, rows: 4) }
            let others = levels.enumerated().filter { $0.offset != channel }.map(\.element)
            XCTAssertGreaterThan(levels[channel], others.max()! + 60, "\(what): primary \(channel) keeps its hue: \(levels)", file: file, line: line)
        }
    }

    func testPQAndHLGHEICsAreToneMappedToSRGB() async throws {
        try writeCard("pq.heic", transfer: 16)
        // Canon, Fujifilm and Sony cameras write HLG HEIFs named .HIF.
        try writeCard("hlg.HIF", transfer: 18)
        let outcome = try await runThumbs([root + "/in"], out: root + "/out") { $0.size([256]) }
        let manifest = try XCTUnwrap(outcome.manifest)
        for id in ["pq.heic", "hlg.HIF"] {
            let item = try XCTUnwrap(manifest.item(id))
            XCTAssertEqual(item.status, .ok, "\(id): \(String(describing: item.error))")
            XCTAssertEqual(item.decoder, .libheif, id)
            XCTAssertEqual([item.width, item.height], [Self.width, Self.height])
            let output = try XCTUnwrap(item.outputs.first)
            XCTAssertEqual([output.width, output.height], [256, 192])
            assertToneMapped(root + "/out/" + output.path, id)
        }
    }

    func testAnHDRThumbnailIsToneMappedToo() async throws {
        try writeCard("pq.heic", transfer: 16, thumbnail: true)
        let outcome = try await runThumbs([root + "/in"], out: root + "/out") { $0.size([128]) }
        let item = try XCTUnwrap(outcome.manifest?.item("pq.heic"))
        XCTAssertEqual(item.decoder, .heifThumbnail)
        XCTAssertEqual([item.width, item.height], [Self.width, Self.height], "the primary image's size")
        assertToneMapped(root + "/out/" + (item.outputs.first?.path ?? ""), "thumbnail")
    }

    /// HDR takes precedence over --keep-metadata: libvips's loader, which
    /// carries metadata over, would show the card flat.
    func testKeepMetadataStillToneMaps() async throws {
        try writeCard("pq.heic", transfer: 16)
        let outcome = try await runThumbs([root + "/in"], out: root + "/out") {
            $0.size([256])
            $0.output.keepMetadata = true
        }
        let item = try XCTUnwrap(outcome.manifest?.item("pq.heic"))
        XCTAssertEqual(item.decoder, .libheif)
        assertToneMapped(root + "/out/" + (item.outputs.first?.path ?? ""), "--keep-metadata")
    }

    /// An AVIF card written by FFmpeg's AV1 encoder (scripts/make-hdr-fixtures.sh).
    func testAPQAVIFIsToneMapped() async throws {
        try FileManager.default.createDirectory(atPath: root + "/in", withIntermediateDirectories: true)
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/heif/hdr-pq-card.avif").path
        try FileManager.default.copyItem(atPath: fixture, toPath: root + "/in/card.avif")
        let outcome = try await runThumbs([root + "/in"], out: root + "/out") { $0.size([256]) }
        let item = try XCTUnwrap(outcome.manifest?.item("card.avif"))
        XCTAssertEqual(item.status, .ok, "\(String(describing: item.error))")
        XCTAssertEqual(item.format, "avif")
        XCTAssertEqual(item.decoder, .libheif)
        assertToneMapped(root + "/out/" + (item.outputs.first?.path ?? ""), "AVIF")
    }
}
