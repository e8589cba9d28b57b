import CVips
import CVipsShim
import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// The DC decode (`jpeg_dc.c`) against libjpeg on hand-made files: values
/// and layouts encoders rarely write, and the rules libjpeg enforces. Every
/// file must either decode to libjpeg's pixels or be refused, and a file
/// libjpeg warns about or rejects must get the same verdict at every shrink.
final class JPEGDCConformanceTests: XCTestCase {
    override func setUp() {
        TestImages.start()
    }

    // MARK: - libjpeg's arithmetic

    /// DC values far outside 0...255 wrap the way libjpeg's range-limit
    /// table wraps them (a clamp would give 255 where libjpeg gives 0).
    func testOutOfRangeDCWrapsLikeLibjpeg() throws {
        // Coefficient k * 37 - 1900 with quantiser 16: pixel values from
        // -3800 to +3900 before the level shift, crossing every segment of
        // the table (clamp, wrap, clamp again).
        let values = { (_: Int, x: Int, y: Int) in ((y * 16 + x) % 104) * 37 - 1900 }
        for layout in [Layout.grey, .colour444] {
            for progressive in [false, true] {
                let file = layout.builder(width: 128, height: 52, quant: 16, progressive: progressive, dc: values)
                try assertMatchesLibjpeg(file.bytes(), exact: true, decoder: progressive ? .jpegDCProgressive : .jpegDC,
                                         "\(layout) progressive=\(progressive)")
            }
        }
    }

    /// 16-bit quantisers: libjpeg multiplies with 16-bit operands.
    func testSixteenBitQuantisersMatchLibjpeg() throws {
        for quant in [300, 4000, 40000] as [UInt16] {
            let file = Layout.grey.builder(width: 40, height: 24, quant: quant, progressive: false) { _, x, y in (x * 7 + y * 3) % 11 - 5 }
            try assertMatchesLibjpeg(file.bytes(), exact: true, decoder: .jpegDC, "quant \(quant)")
        }
    }

    /// Luma sampled below chroma: libjpeg decodes luma with a larger IDCT
    /// (AC coefficients count), so the DC decode must leave it to libjpeg.
    func testLumaSampledBelowChromaGoesToLibjpeg() throws {
        var file = Layout.colour444.builder(width: 48, height: 32, quant: 8, progressive: false) { c, x, y in c * 10 + x - y }
        file.components[1].h = 2
        file.components[1].v = 2
        let bytes = file.bytes()
        let header = try XCTUnwrap(bytes.withUnsafeBytes { DirectJPEG.probe($0) })
        XCTAssertFalse(header.dcCapable)
        let decoded = try XCTUnwrap(bytes.withUnsafeBytes { DirectJPEG.decode($0, shrink: 8) })
        XCTAssertEqual(decoded.decoder, .libjpeg)
    }

    // MARK: - Rules libjpeg enforces

    /// libjpeg allows 10 blocks per MCU; 3 components sampled 4x4 make 48.
    func testTooManyBlocksPerMCUIsRefused() throws {
        var file = Layout.colour444.builder(width: 32, height: 32, quant: 8, progressive: false) { _, _, _ in 0 }
        for c in 0..<3 { file.components[c].h = 4; file.components[c].v = 4 }
        assertOneVerdict(file.bytes(), expectDecodes: false, "48 blocks per MCU")
        // Luma 2x2 with two 1x1 chroma components (6 blocks) is fine.
        var fine = Layout.colour444.builder(width: 32, height: 32, quant: 8, progressive: false) { c, x, y in c + x + y }
        fine.components[0].h = 2
        fine.components[0].v = 2
        assertOneVerdict(fine.bytes(), expectDecodes: true, "6 blocks per MCU")
    }

    /// A DC table may only hold categories 0...15; libjpeg rejects the whole
    /// table even when the data never uses the bad symbol.
    func testDCSymbolAbove15IsRefused() throws {
        var file = Layout.grey.builder(width: 32, height: 16, quant: 8, progressive: false) { _, x, _ in x }
        file.dcTables = [JPEGDCBuilder.Table(counts: [0, 1, 5, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0], symbols: Array(0...11) + [16])]
        assertOneVerdict(file.bytes(), expectDecodes: false, "DC symbol 16")
    }

    /// What follows the last MCU: libjpeg reads the markers up to EOI and
    /// warns or fails on surprises; the DC decode must then stand aside.
    func testTailAfterTheLastMCU() throws {
        let file = Layout.colour444.builder(width: 40, height: 24, quant: 8, progressive: false) { c, x, y in c * 3 + x - y }
        let good = file.bytes()
        assertOneVerdict(good, expectDecodes: true, "clean file")
        let eoi = good.count - 2
        let cases: [(String, [UInt8])] = [
            ("garbage before EOI", Array(good[..<eoi]) + Array(repeating: 0x5A, count: 300) + [0xFF, 0xD9]),
            ("missing EOI", Array(good[..<eoi])),
            ("second SOS", Array(good[..<eoi]) + file.sos(.sequential([0])) + file.entropy(.sequential([0]), dcTable: file.dcTables[0]) + [0xFF, 0xD9]),
            ("unknown marker", Array(good[..<eoi]) + [0xFF, 0x4F, 0x00, 0x04, 0x00, 0x00, 0xFF, 0xD9]),
            ("SOF after the scan", Array(good[..<eoi]) + JPEGDCBuilder.segment(0xC0, [8, 0, 8, 0, 8, 1, 1, 0x11, 0]) + [0xFF, 0xD9]),
        ]
        for (name, bytes) in cases {
            assertOneVerdict(bytes, expectDecodes: nil, name)
            XCTAssertNotEqual(bytes.withUnsafeBytes { DirectJPEG.decode($0, shrink: 8)?.decoder }, .jpegDC, name)
        }
        // Markers libjpeg reads quietly before EOI: an APPn, a COM.
        let quiet = Array(good[..<eoi]) + JPEGDCBuilder.segment(0xFE, Array("note".utf8)) + JPEGDCBuilder.segment(0xE5, [1, 2]) + [0xFF, 0xD9]
        try assertMatchesLibjpeg(quiet, exact: true, decoder: .jpegDC, "COM and APP5 before EOI")
    }

    /// Each component at most once per scan; libjpeg rejects the file.
    func testComponentTwiceInOneScanIsRefused() throws {
        var file = Layout.colour444.builder(width: 24, height: 16, quant: 8, progressive: true) { c, x, _ in c + x }
        file.scans = [.dcFirst([0, 1, 2], al: 0), .dcFirst([1], al: 0)]
        var bytes = file.bytes()
        // The second SOS (one component: 10 bytes) names component 0 twice.
        let second = try XCTUnwrap(Self.markers(bytes, 0xDA).last)
        let id = file.components[0].id
        bytes.replaceSubrange(second..<(second + 10), with: JPEGDCBuilder.segment(0xDA, [2, id, 0, id, 0, 0, 0, 0]))
        assertOneVerdict(bytes, expectDecodes: false, "component twice in SOS")
    }

    /// libjpeg finds the component at scan position i only among frame
    /// indices >= i (it tests cur_comp_info[ci], which is indexed by
    /// position): Cr, Cb passes, Cr, Y is "Invalid component ID". Found by
    /// the fuzzer (Tests/Fixtures/jpeg/fuzz-sos-component-order.jpg).
    func testScanComponentOrderFollowsLibjpeg() throws {
        var file = Layout.colour444.builder(width: 24, height: 16, quant: 8, progressive: true) { c, x, y in c * 5 + x - y }
        file.scans = [.dcFirst([0], al: 0), .dcFirst([2, 1], al: 0)] + (0..<3).map { .ac($0, ss: 1, se: 63, ah: 0, al: 0) }
        try assertMatchesLibjpeg(file.bytes(), exact: true, decoder: .jpegDCProgressive, "Cr, Cb")
        file.scans = [.dcFirst([1], al: 0), .dcFirst([2, 0], al: 0)] + (0..<3).map { .ac($0, ss: 1, se: 63, ah: 0, al: 0) }
        assertOneVerdict(file.bytes(), expectDecodes: false, "Cr, Y")
        let fuzzed = [UInt8](try Data(contentsOf: ProgressiveJPEGFixtureTests.fixtures.appendingPathComponent("fuzz-sos-component-order.jpg")))
        assertOneVerdict(fuzzed, expectDecodes: false, "fuzzer input")
    }

    // MARK: - Progressive layouts

    /// Every progressive layout gives libjpeg's pixels, decoded from DC
    /// scans alone: per-component and interleaved DC scans, refinements at
    /// several bits, AC scans in between, tables redefined between scans,
    /// restart intervals, odd sizes.
    func testProgressiveLayoutsMatchLibjpeg() throws {
        let values = { (c: Int, x: Int, y: Int) in ((x * 13 + y * 7 + c * 5) % 61 - 30) * 3 }
        struct Case { var name: String; var layout: Layout; var width: Int; var height: Int; var restart: Int; var scans: [JPEGDCBuilder.Scan]; var tables: [JPEGDCBuilder.Table] }
        let refineTwice: [JPEGDCBuilder.Scan] = [.dcFirst([0, 1, 2], al: 2), .ac(0, ss: 1, se: 63, ah: 0, al: 0), .dcRefine([0, 1, 2], al: 1), .ac(1, ss: 1, se: 63, ah: 0, al: 0), .dcRefine([0, 1, 2], al: 0), .ac(2, ss: 1, se: 2, ah: 0, al: 0)]
        let acEverywhere: [JPEGDCBuilder.Scan] = [.ac(0, ss: 1, se: 63, ah: 0, al: 0), .ac(1, ss: 1, se: 9, ah: 0, al: 0), .ac(2, ss: 9, se: 63, ah: 0, al: 0)]
        let perComponent: [JPEGDCBuilder.Scan] = [.dcFirst([0], al: 1), .dcFirst([1], al: 1), .dcFirst([2], al: 1), .ac(0, ss: 1, se: 5, ah: 0, al: 2), .ac(0, ss: 6, se: 63, ah: 0, al: 2),
                                                  .ac(0, ss: 1, se: 63, ah: 2, al: 1), .dcRefine([2], al: 0), .dcRefine([0], al: 0), .dcRefine([1], al: 0), .ac(2, ss: 1, se: 63, ah: 0, al: 0), .ac(1, ss: 1, se: 63, ah: 0, al: 0)]
        let cases: [Case] = [
            Case(name: "grey, refined twice", layout: .grey, width: 77, height: 45, restart: 0, scans: [.dcFirst([0], al: 2), .ac(0, ss: 1, se: 63, ah: 0, al: 1), .dcRefine([0], al: 1), .dcRefine([0], al: 0), .ac(0, ss: 1, se: 63, ah: 1, al: 0)], tables: [.dcLuminance]),
            Case(name: "grey, restarts", layout: .grey, width: 61, height: 37, restart: 3, scans: [.dcFirst([0], al: 1), .ac(0, ss: 1, se: 63, ah: 0, al: 0), .dcRefine([0], al: 0)], tables: [.dcLuminance]),
            Case(name: "4:4:4 interleaved", layout: .colour444, width: 53, height: 29, restart: 0, scans: refineTwice, tables: [.dcLuminance]),
            Case(name: "4:4:4 per component, restarts", layout: .colour444, width: 53, height: 29, restart: 2, scans: perComponent, tables: [.dcLuminance]),
            Case(name: "4:4:4 tables redefined", layout: .colour444, width: 40, height: 40, restart: 0, scans: [.dcFirst([0], al: 0), .dcFirst([1, 2], al: 0)] + acEverywhere, tables: [.dcLuminance, .dcChrominance]),
            Case(name: "4:4:4 huge restart interval", layout: .colour444, width: 40, height: 24, restart: 65535, scans: [.dcFirst([0, 1, 2], al: 0)] + acEverywhere, tables: [.dcLuminance]),
            Case(name: "4:4:4 9x9", layout: .colour444, width: 9, height: 9, restart: 0, scans: [.dcFirst([0, 1, 2], al: 0)] + acEverywhere, tables: [.dcLuminance]),
        ]
        for item in cases {
            var file = item.layout.builder(width: item.width, height: item.height, quant: 6, progressive: true, dc: values)
            file.restartInterval = item.restart
            file.scans = item.scans
            file.dcTables = item.tables
            try assertMatchesLibjpeg(file.bytes(), exact: true, decoder: .jpegDCProgressive, item.name)
        }
        // A component without any AC data: libjpeg smooths its DC values
        // from their neighbours, so libjpeg decodes the file.
        for scans in [[.dcFirst([0, 1, 2], al: 0)], [.dcFirst([0, 1, 2], al: 0), .ac(0, ss: 1, se: 63, ah: 0, al: 0), .ac(1, ss: 10, se: 63, ah: 0, al: 0)]] as [[JPEGDCBuilder.Scan]] {
            var file = Layout.colour444.builder(width: 40, height: 32, quant: 6, progressive: true, dc: values)
            file.scans = scans
            try assertMatchesLibjpeg(file.bytes(), exact: true, decoder: .libjpeg, "no AC data in \(scans.count) scans")
        }
        // Subsampled chroma: libjpeg upsamples differently, so compare with
        // the same coefficients in a baseline file through the DC decode.
        for (h, v) in [(2, 2), (2, 1), (1, 2)] {
            var progressive = Layout.colour444.builder(width: 75, height: 51, quant: 6, progressive: true, dc: values)
            progressive.components[0].h = h
            progressive.components[0].v = v
            progressive.restartInterval = 2
            progressive.scans = perComponent
            var baseline = progressive
            baseline.progressive = false
            baseline.scans = [.sequential([0, 1, 2])]
            baseline.restartInterval = 0
            let a = try XCTUnwrap(progressive.bytes().withUnsafeBytes { DirectJPEG.decode($0, shrink: 8) }, "\(h)x\(v)")
            let b = try XCTUnwrap(baseline.bytes().withUnsafeBytes { DirectJPEG.decode($0, shrink: 8) }, "\(h)x\(v)")
            XCTAssertEqual(a.decoder, .jpegDCProgressive)
            XCTAssertEqual(b.decoder, .jpegDC)
            XCTAssertEqual(try Self.pixels(XCTUnwrap(a.image())), try Self.pixels(XCTUnwrap(b.image())), "\(h)x\(v)")
            // (This chroma changes every block, the worst case for DC upsampling.)
            try assertMatchesLibjpeg(progressive.bytes(), exact: false, decoder: .jpegDCProgressive, "\(h)x\(v)")
        }
    }

    /// A baseline file whose MCU is luma's H x V blocks and one block of
    /// each chroma component (4:2:2, 4:2:0, 4:4:0: most cameras' files)
    /// takes a loop of its own in the DC decode (`SUBSAMPLED_SHAPE` in
    /// jpeg_dc.c). It gives the pixels of the same coefficients in one scan
    /// per component, which take the one-block loop; with restart markers
    /// too, on sizes that leave partial MCUs at the right and the bottom.
    func testSubsampledBaselineMCUsMatchScansPerComponent() throws {
        let values = { (c: Int, x: Int, y: Int) in ((x * 11 + y * 5 + c * 7) % 53 - 26) * 4 }
        for (h, v) in [(2, 1), (2, 2), (1, 2)] {
            for restart in [0, 3] {
                let label = "\(h)x\(v) restart \(restart)"
                var interleaved = Layout.colour444.builder(width: 75, height: 51, quant: 6, progressive: false, dc: values)
                interleaved.components[0].h = h
                interleaved.components[0].v = v
                interleaved.restartInterval = restart
                interleaved.scans = [.sequential([0, 1, 2])]
                var perComponent = interleaved
                perComponent.scans = [.sequential([0]), .sequential([1]), .sequential([2])]
                let a = try XCTUnwrap(interleaved.bytes().withUnsafeBytes { DirectJPEG.decode($0, shrink: 8) }, label)
                let b = try XCTUnwrap(perComponent.bytes().withUnsafeBytes { DirectJPEG.decode($0, shrink: 8) }, label)
                XCTAssertEqual([a.decoder, b.decoder], [.jpegDC, .jpegDC], label)
                XCTAssertEqual(try Self.pixels(XCTUnwrap(a.image())), try Self.pixels(XCTUnwrap(b.image())), label)
                try assertMatchesLibjpeg(interleaved.bytes(), exact: false, decoder: .jpegDC, label)
            }
        }
    }

    /// An interleaved DC first pass of a 4:4:4 file whose chroma shares a
    /// DC table decodes Cb's and Cr's differences by one lookup when both
    /// fit in it (`dc_pair` in jpeg_dc.c), else one after the other; a
    /// one-component DC first pass without restarts does the same with each
    /// two blocks of a row. Chroma stepping by -1...1 takes the pairs; a
    /// jump of about 300 every few blocks (a 16-bit code and magnitude)
    /// takes the single lookups, in either place of the pair; with and
    /// without a point transform and restarts, interleaved and one scan per
    /// component (15 blocks a row: an odd one at each row's end).
    func testChromaDCDifferencesInPairsMatchLibjpeg() throws {
        let values = { (c: Int, x: Int, y: Int) -> Int in
            if c == 0 { return (x * 5 + y * 3) % 200 - 100 }
            let jump = (x * 3 + y + c) % 7 == 0 ? (c == 1 ? 300 : -280) : 0
            return (x + y * 2 + c) % 3 - 1 + jump
        }
        let acEverywhere: [JPEGDCBuilder.Scan] = [.ac(0, ss: 1, se: 63, ah: 0, al: 0), .ac(1, ss: 1, se: 9, ah: 0, al: 0), .ac(2, ss: 9, se: 63, ah: 0, al: 0)]
        for (al, restart) in [(0, 0), (1, 0), (1, 5)] {
            for interleaved in [true, false] {
                var file = Layout.colour444.builder(width: 120, height: 56, quant: 2, progressive: true, dc: values)
                file.restartInterval = restart
                let first: [JPEGDCBuilder.Scan] = interleaved ? [.dcFirst([0, 1, 2], al: al)] : [.dcFirst([0], al: al), .dcFirst([1], al: al), .dcFirst([2], al: al)]
                file.scans = first + (al > 0 ? [.dcRefine([0, 1, 2], al: 0)] : []) + acEverywhere
                file.dcTables = [.dcLuminance]
                try assertMatchesLibjpeg(file.bytes(), exact: true, decoder: .jpegDCProgressive,
                                         "Al \(al), restart \(restart), interleaved \(interleaved)")
            }
        }
    }

    /// Progressive files that break a rule: libjpeg rejects or warns, or the
    /// DC is incomplete. Each gets one verdict at every shrink, and the DC
    /// decode never produces their pixels.
    func testBrokenProgressionsAreRefused() throws {
        let values = { (c: Int, x: Int, y: Int) in (x + y + c) % 9 }
        let cases: [(String, [JPEGDCBuilder.Scan])] = [
            ("AC before DC", [.ac(0, ss: 1, se: 63, ah: 0, al: 0), .dcFirst([0, 1, 2], al: 0)]),
            ("DC refinement missing", [.dcFirst([0, 1, 2], al: 1), .ac(0, ss: 1, se: 63, ah: 0, al: 0)]),
            ("a component without DC", [.dcFirst([0, 1], al: 0)]),
            ("refinement of the wrong bit", [.dcFirst([0, 1, 2], al: 2), .dcRefine([0, 1, 2], al: 0)]),
            ("DC first twice with Al > 0", [.dcFirst([0, 1, 2], al: 1), .dcFirst([0, 1, 2], al: 1), .dcRefine([0, 1, 2], al: 0)]),
            ("AC scan of two components", [.dcFirst([0, 1, 2], al: 0)]),
        ]
        for (name, scans) in cases {
            var file = Layout.colour444.builder(width: 40, height: 24, quant: 8, progressive: true, dc: values)
            file.scans = scans
            var bytes = file.bytes()
            if name == "AC scan of two components" {
                // An AC band naming two components: libjpeg's JERR_BAD_PROGRESSION.
                bytes.removeLast(2)
                bytes += JPEGDCBuilder.segment(0xDA, [2, file.components[0].id, 0, file.components[1].id, 0, 1, 63, 0]) + [0x00, 0xFF, 0xD9]
            }
            assertOneVerdict(bytes, expectDecodes: nil, name)
            XCTAssertNotEqual(bytes.withUnsafeBytes { DirectJPEG.decode($0, shrink: 8)?.decoder }, .jpegDCProgressive, name)
        }
        // Bad Ss/Se/Ah/Al in a later scan header, patched in place.
        var file = Layout.colour444.builder(width: 40, height: 24, quant: 8, progressive: true, dc: values)
        file.scans = [.dcFirst([0, 1, 2], al: 1), .ac(0, ss: 1, se: 63, ah: 0, al: 0), .dcRefine([0, 1, 2], al: 0)]
        let good = file.bytes()
        let lastSOS = try XCTUnwrap(Self.markers(good, 0xDA).last)
        let parameters = lastSOS + 4 + 1 + 2 * 3 // Ss, Se, Ah/Al of the DC refinement
        for (name, patch) in [("Se > 0 in a DC scan", [0, 5, 0x10]), ("Ss > Se", [0, 0, 0x10]), ("Al > 13", [0, 0, 0xFE]), ("Ah != Al + 1", [0, 0, 0x30])] as [(String, [UInt8])] {
            var bytes = good
            bytes.replaceSubrange(parameters..<(parameters + 3), with: name == "Ss > Se" ? [9, 3, 0] : patch)
            assertOneVerdict(bytes, expectDecodes: nil, name)
            XCTAssertNotEqual(bytes.withUnsafeBytes { DirectJPEG.decode($0, shrink: 8)?.decoder }, .jpegDCProgressive, name)
        }
        // SOS before SOF: nothing decodes it.
        let sof = try XCTUnwrap(Self.markers(good, 0xC2).first)
        let firstSOS = try XCTUnwrap(Self.markers(good, 0xDA).first)
        var early = Array(good[..<sof])
        early += good[firstSOS..<(firstSOS + 2 + Int(good[firstSOS + 2]) << 8 + Int(good[firstSOS + 3]))]
        early += good[sof...]
        assertOneVerdict(early, expectDecodes: false, "SOS before SOF")
    }

    /// Truncation inside the DC refinement and inside an AC scan: refused,
    /// never decoded from what is left.
    func testTruncatedProgressiveFilesAreRefused() throws {
        var file = Layout.colour444.builder(width: 96, height: 64, quant: 8, progressive: true) { c, x, y in (x * 5 + y * 3 + c) % 40 - 20 }
        file.scans = [.dcFirst([0, 1, 2], al: 1), .ac(0, ss: 1, se: 63, ah: 0, al: 0), .dcRefine([0, 1, 2], al: 0), .ac(1, ss: 1, se: 63, ah: 0, al: 0)]
        let whole = file.bytes()
        let sos = Self.markers(whole, 0xDA)
        XCTAssertEqual(sos.count, 4)
        // Cut inside the AC scan (after its header), inside the refinement,
        // and inside the last AC scan.
        for cut in [sos[1] + 12, sos[2] + 16, sos[3] + 11] {
            let bytes = Array(whole[..<cut])
            XCTAssertNotEqual(bytes.withUnsafeBytes { DirectJPEG.decode($0, shrink: 8)?.decoder }, .jpegDCProgressive, "cut at \(cut)")
            assertOneVerdict(bytes, expectDecodes: nil, "cut at \(cut)")
        }
    }

    // MARK: - Helpers

    enum Layout: CustomStringConvertible {
        case grey, colour444

        var description: String { self == .grey ? "grey" : "4:4:4" }

        func builder(width: Int, height: Int, quant: UInt16, progressive: Bool,
                     dc: @escaping (Int, Int, Int) -> Int) -> JPEGDCBuilder {
            let components: [JPEGDCBuilder.Component] = self == .grey
                ? [.init(id: 1, quant: quant)]
                : [.init(id: 1, quant: quant), .init(id: 2, quant: quant), .init(id: 3, quant: quant)]
            let all = Array(components.indices)
            return JPEGDCBuilder(
                width: width, height: height, components: components, progressive: progressive,
                scans: progressive ? [.dcFirst(all, al: 1)] + all.map { .ac($0, ss: 1, se: 63, ah: 0, al: 0) } + [.dcRefine(all, al: 0)]
                                   : [.sequential(all)],
                dc: dc)
        }
    }

    /// Offsets of every `marker` (FF xx) in the header and between scans.
    static func markers(_ bytes: [UInt8], _ marker: UInt8) -> [Int] {
        var found: [Int] = []
        var i = 0
        while i + 1 < bytes.count {
            if bytes[i] == 0xFF && bytes[i + 1] == marker { found.append(i) }
            i += 1
        }
        return found
    }

    /// The DC decode gives libjpeg's pixels (libvips's loader at shrink 8,
    /// failing on any warning): identical, or PSNR >= 20 with subsampled
    /// chroma (a wrong decode is near 10 dB).
    private func assertMatchesLibjpeg(_ bytes: [UInt8], exact: Bool, decoder: DecodePath, _ label: String,
                                      file: StaticString = #filePath, line: UInt = #line) throws {
        let decoded = try XCTUnwrap(bytes.withUnsafeBytes { DirectJPEG.decode($0, shrink: 8) }, label, file: file, line: line)
        XCTAssertEqual(decoded.decoder, decoder, label, file: file, line: line)
        let mine = try XCTUnwrap(decoded.image(), label, file: file, line: line)
        let reference = try XCTUnwrap(Self.libvips(bytes, shrink: 8), "libjpeg refuses: \(label)", file: file, line: line)
        XCTAssertEqual([mine.width, mine.height, mine.bands], [reference.width, reference.height, reference.bands], label, file: file, line: line)
        let a = try Self.pixels(mine), b = reference.pixels
        if exact {
            XCTAssertEqual(a, b, label, file: file, line: line)
        } else {
            XCTAssertGreaterThanOrEqual(Self.psnr(a, b), 20, label, file: file, line: line)
        }
    }

    /// One verdict at every shrink: the direct path decodes the file at
    /// 1/8 exactly when it does at 1/2 (where libjpeg alone decides), and
    /// never a file libvips's loader, failing on warnings, rejects.
    /// `expectDecodes` pins the verdict when the test knows it.
    private func assertOneVerdict(_ bytes: [UInt8], expectDecodes: Bool?, _ label: String,
                                  file: StaticString = #filePath, line: UInt = #line) {
        let at8 = bytes.withUnsafeBytes { DirectJPEG.decode($0, shrink: 8) } != nil
        let at2 = bytes.withUnsafeBytes { DirectJPEG.decode($0, shrink: 2) } != nil
        let strict = Self.libvips(bytes, shrink: 2) != nil
        XCTAssertEqual(at8, at2, "1/8 vs 1/2: \(label)", file: file, line: line)
        if at2 {
            XCTAssertTrue(strict, "direct decodes what libvips --fail-on warning rejects: \(label)", file: file, line: line)
        }
        if let expectDecodes {
            XCTAssertEqual(at8, expectDecodes, label, file: file, line: line)
        }
    }

    /// libvips's loader at `shrink`, failing on any libjpeg warning.
    static func libvips(_ bytes: [UInt8], shrink: Int) -> Raster? {
        bytes.withUnsafeBytes { raw in
            var out: UnsafeMutablePointer<VipsImage>?
            guard shim_load_from_buffer(raw.baseAddress, raw.count, "jpegload_buffer", Int32(shrink), 1,
                                        Int32(VIPS_FAIL_ON_WARNING.rawValue), &out) == 0,
                  let out
            else { return nil }
            let image = VipsImageRef(out)
            // Decoding happens here: libjpeg's warnings surface while pixels are read.
            var size = 0
            guard let memory = vips_image_write_to_memory(image.pointer, &size) else { return nil }
            defer { g_free(memory) }
            let pixels = [UInt8](UnsafeRawBufferPointer(start: memory, count: size))
            return Raster(width: image.width, height: image.height, bands: image.bands, pixels: pixels)
        }
    }

    /// Decoded pixels and their layout.
    struct Raster {
        var width, height, bands: Int
        var pixels: [UInt8]
    }

    static func pixels(_ image: VipsImageRef) throws -> [UInt8] {
        var size = 0
        let memory = try XCTUnwrap(vips_image_write_to_memory(image.pointer, &size))
        defer { g_free(memory) }
        return [UInt8](UnsafeRawBufferPointer(start: memory, count: size))
    }

    static func psnr(_ x: [UInt8], _ y: [UInt8]) -> Double {
        guard x.count == y.count, !x.isEmpty else { return 0 }
        var sum = 0.0
        for i in 0..<x.count {
            let d = Double(Int(x[i]) - Int(y[i]))
            sum += d * d
        }
        return sum == 0 ? 100 : 10 * log10(255 * 255 / (sum / Double(x.count)))
    }
}
