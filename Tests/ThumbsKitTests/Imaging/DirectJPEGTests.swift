import CVips
import CThumbsTestShim
import CVipsShim
import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// The direct JPEG path (libjpeg from memory, and the DC-only decode at 1/8)
/// against libvips's own JPEG loader, on photo-like data: every layout it
/// takes must give the loader's pixels, and everything else must fall back.
final class DirectJPEGTests: TemporaryFolderTestCase {
    /// Layouts the encoder can make: chroma subsampling, Huffman tables,
    /// restart markers, progressive, grey; odd sizes leave partial MCUs.
    func testEveryShrinkMatchesTheLibvipsLoader() throws {
        let variants: [(name: String, bands: Int, options: String)] = [
            ("420", 3, "[Q=90]"),
            ("444", 3, "[Q=92,subsample-mode=off]"),
            ("optimized", 3, "[Q=85,optimize-coding]"),
            ("restarts", 3, "[Q=90,restart-interval=3]"),
            ("progressive", 3, "[Q=90,interlace]"),
            ("grey", 1, "[Q=90]"),
            ("grey-restarts", 1, "[Q=75,restart-interval=1]"),
            ("q100", 3, "[Q=100]"),
        ]
        for variant in variants {
            let data = try Data(contentsOf: URL(fileURLWithPath: textured(variant.name, width: 517, height: 389, bands: variant.bands, options: variant.options)))
            for shrink in [1, 2, 4, 8] {
                let label = "\(variant.name) 1/\(shrink)"
                let pixels = try XCTUnwrap(data.withUnsafeBytes { DirectJPEG.decode($0, shrink: shrink) }, label)
                let progressive = variant.name == "progressive"
                let decoder: DecodePath = switch shrink {
                case 8: progressive ? .jpegDCProgressive : .jpegDC
                case 4: progressive ? .jpegProgressive : .jpegDC
                case 1, 2: progressive ? .jpegProgressive : .libjpeg
                default: .libjpeg
                }
                XCTAssertEqual(pixels.decoder, decoder, label)
                let direct = try XCTUnwrap(pixels.image(), label)
                let reference = try XCTUnwrap(libvipsDecode(data, shrink: shrink), label)
                XCTAssertEqual(direct.width, reference.width, label)
                XCTAssertEqual(direct.height, reference.height, label)
                XCTAssertEqual(direct.bands, reference.bands, label)
                XCTAssertEqual(direct.width, 517 / shrink, label)
                let psnr = try Self.psnr(direct, reference)
                // libjpeg at 1/1, 1/2, 1/4 is the loader's own decode. At 1/8
                // luma (and so grey) is identical; chroma comes from DC
                // values instead of libjpeg's 2x2 IDCT, which shows on this
                // noise (a wrong decode would be near 10 dB).
                let colourAt8 = shrink == 8 && variant.bands == 3
                // Progressive at 1/2 and 1/4: the compact decode (jpeg_prog.c)
                // leaves out coefficients 5 to 7, which this noise has.
                // At 1/1 it keeps every coefficient, but its IDCT is in
                // floating point where libjpeg's is in integers (about 60 dB).
                let compact = variant.name == "progressive" && (shrink == 2 || shrink == 4)
                let banded = variant.name == "progressive" && shrink == 1
                // Baseline at 1/4: the DC entry's 2x2 decode leaves out
                // coefficients 3, 5 and 7 of each direction, as the compact
                // decode does (jpeg_dc.c, QUARTER).
                let quarter = !progressive && shrink == 4
                XCTAssertGreaterThanOrEqual(psnr, colourAt8 ? 35 : compact || quarter ? 30 : banded ? 50 : 99, label)
            }
        }
    }

    /// A baseline file at 1/4 takes the DC entry's 2x2 decode (jpeg_dc.c,
    /// QUARTER): on smooth content with detail inside the blocks, its
    /// pixels stay within 40 dB of libjpeg's 2x2 reduced IDCT (the
    /// loader's), in grey, 4:4:4 and 4:2:0, with restart markers too.
    /// (4:2:0 chroma with detail of a few pixels, which photos rarely have,
    /// is softer: 2 x 2 samples per 16 x 16 pixels, bilinearly upsampled,
    /// where libjpeg makes 4 x 4 from the block's 16 lowest coefficients.)
    func testQuarterDecodeOfBaselineIsCloseToLibjpeg() throws {
        let variants: [(name: String, bands: Int, options: String)] = [
            ("waves-444", 3, "[Q=90,subsample-mode=off]"),
            ("waves-420", 3, "[Q=90,subsample-mode=on]"),
            ("waves-restarts", 3, "[Q=85,restart-interval=2]"),
            ("waves-grey", 1, "[Q=90]"),
        ]
        for variant in variants {
            let data = try Data(contentsOf: URL(fileURLWithPath: waves(variant.name, width: 517, height: 389, bands: variant.bands, options: variant.options)))
            let pixels = try XCTUnwrap(data.withUnsafeBytes {
                DirectJPEG.decode($0, path: .jpegDC, shrink: 4, memoryBudget: DirectJPEG.memoryBudget)
            }, variant.name)
            XCTAssertEqual(pixels.decoder, .jpegDC, variant.name)
            let mine = try XCTUnwrap(pixels.image(), variant.name)
            let reference = try XCTUnwrap(libvipsDecode(data, shrink: 4), variant.name)
            XCTAssertEqual([mine.width, mine.height, mine.bands], [517 / 4, 389 / 4, variant.bands], variant.name)
            XCTAssertEqual([reference.width, reference.height, reference.bands], [517 / 4, 389 / 4, variant.bands], variant.name)
            XCTAssertGreaterThanOrEqual(try Self.psnr(mine, reference), 40, variant.name)
        }
        // A progressive file's low AC coefficients come in scans of their
        // own: the DC entry refuses it at 1/4 (and takes it at 1/8).
        let progressive = try Data(contentsOf: URL(fileURLWithPath: waves("waves-progressive", width: 517, height: 389, bands: 3, options: "[Q=90,interlace]")))
        XCTAssertNil(progressive.withUnsafeBytes { DirectJPEG.decode($0, path: .jpegDC, shrink: 4, memoryBudget: DirectJPEG.memoryBudget) })
        XCTAssertEqual(progressive.withUnsafeBytes { DirectJPEG.decode($0, path: .jpegDC, shrink: 8, memoryBudget: DirectJPEG.memoryBudget) }?.decoder,
                       .jpegDCProgressive)
    }

    func testProbeReadsSizeAndOrientation() throws {
        let path = TestImages.write(root + "/o6.jpg", width: 300, height: 200, orientation: 6)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let header = try XCTUnwrap(data.withUnsafeBytes { DirectJPEG.probe($0) })
        XCTAssertEqual([header.width, header.height, header.orientation], [300, 200, 6])
        XCTAssertFalse(header.progressive)
        XCTAssertTrue(header.dcCapable)
        XCTAssertEqual(header.components, 3)
        XCTAssertEqual(header.coefficientBytes, 0)
        let image = try XCTUnwrap(data.withUnsafeBytes { DirectJPEG.decode($0, shrink: 8)?.image() })
        XCTAssertEqual(image.orientation, 6)
    }

    func testICCProfileTravelsWithThePixels() throws {
        let path = TestImages.write(root + "/p3.jpg", width: 160, height: 120, options: "[profile=p3]")
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        for shrink in [1, 8] {
            let image = try XCTUnwrap(data.withUnsafeBytes { DirectJPEG.decode($0, shrink: shrink)?.image() })
            XCTAssertTrue(image.hasICCProfile, "1/\(shrink)")
        }
    }

    /// Files libjpeg would only warn about go to libvips, which applies
    /// `--fail-on`; so do formats this path does not take.
    func testDamagedAndUnusualFilesFallBack() throws {
        let whole = try Data(contentsOf: URL(fileURLWithPath: textured("t", width: 400, height: 300, bands: 3, options: "[Q=90]")))
        let truncated = whole.prefix(whole.count * 6 / 10)
        for shrink in [1, 8] {
            XCTAssertNil(truncated.withUnsafeBytes { DirectJPEG.decode($0, shrink: shrink) }, "truncated, 1/\(shrink)")
        }
        let cmyk = try Data(contentsOf: URL(fileURLWithPath: TestImages.write(
            root + "/cmyk.jpg", width: 64, height: 48, bands: 4, interpretation: VIPS_INTERPRETATION_CMYK)))
        XCTAssertNil(cmyk.withUnsafeBytes { DirectJPEG.probe($0) })
        let png = try Data(contentsOf: URL(fileURLWithPath: TestImages.write(root + "/a.png", width: 64, height: 48)))
        XCTAssertNil(png.withUnsafeBytes { DirectJPEG.probe($0) })
        XCTAssertNil(Data([0xFF, 0xD8, 0xFF]).withUnsafeBytes { DirectJPEG.probe($0) })
    }

    /// Bytes between a picture's last MCU and its EOI (libjpeg's "extraneous
    /// bytes before marker 0xd9", as a Minolta DiMAGE A1's preview has them)
    /// come after every row: libjpeg's path keeps the pixels, the same as
    /// without them. In a progressive file libjpeg meets them before its
    /// first row, and the file still goes to libvips.
    func testBytesAfterTheLastMCUSpareAWholePicture() throws {
        let baseline = try Data(contentsOf: URL(fileURLWithPath: textured("tail", width: 400, height: 300, bands: 3, options: "[Q=90]")))
        let padded = Data(Self.withBytesBeforeEOI(Array(baseline), count: 2703))
        for shrink in [1, 2] {
            let label = "1/\(shrink)"
            let pixels = try XCTUnwrap(padded.withUnsafeBytes { DirectJPEG.decode($0, path: .libjpeg, shrink: shrink, memoryBudget: 1 << 30) }, label)
            XCTAssertEqual(pixels.decoder, .libjpeg, label)
            let reference = try XCTUnwrap(libvipsDecode(baseline, shrink: shrink), label)
            XCTAssertGreaterThanOrEqual(try Self.psnr(try XCTUnwrap(pixels.image(), label), reference), 99, label)
        }
        let progressive = try Data(contentsOf: URL(fileURLWithPath: textured("tail-p", width: 400, height: 300, bands: 3, options: "[Q=90,interlace]")))
        let paddedProgressive = Data(Self.withBytesBeforeEOI(Array(progressive), count: 2703))
        XCTAssertNil(paddedProgressive.withUnsafeBytes { DirectJPEG.decode($0, path: .libjpeg, shrink: 2, memoryBudget: 1 << 30) })
    }

    /// `jpeg` with `count` bytes (none 0xFF, so no marker among them)
    /// inserted before its closing EOI.
    static func withBytesBeforeEOI(_ jpeg: [UInt8], count: Int) -> [UInt8] {
        precondition(jpeg.suffix(2) == [0xFF, 0xD9], "ends with EOI")
        let extra: [UInt8] = (0..<count).map { (i: Int) -> UInt8 in UInt8((i &* 37 &+ 11) % 0xFF) }
        var padded = Array(jpeg.dropLast(2))
        padded += extra
        padded += [0xFF, 0xD9]
        return padded
    }

    /// Mutated files: each one decodes to the size its header declares (as
    /// libjpeg reads it) or falls back; none may crash or take more than a
    /// few seconds, and the whole thumbnailer turns each into a result or
    /// one clear error.
    func testMutatedFilesNeverCrash() throws {
        let original = try Data(contentsOf: URL(fileURLWithPath: textured("m", width: 203, height: 157, bands: 3, options: "[Q=85,restart-interval=2]")))
        var random = SplitMix64(state: 42)
        let settings = OutputSettings(sizes: [ThumbSize(width: 24, height: 24)], format: .jpeg)
        var decoded = 0
        for round in 0..<300 {
            var bytes = [UInt8](original)
            let changes = 1 + Int(random.next() % 6)
            for _ in 0..<changes {
                // Mostly the entropy-coded data; sometimes the header (tables).
                let position = random.next() % 4 == 0
                    ? 2 + Int(random.next() % 600)
                    : 600 + Int(random.next() % UInt64(bytes.count - 602))
                bytes[position] = UInt8(truncatingIfNeeded: random.next())
            }
            if round % 10 == 0 { bytes.removeLast(Int(random.next() % 500)) }
            let data = Data(bytes)
            let outcome = Outcome()
            assertFinishes(within: 10, "round \(round)") {
                outcome.set(Self.decodeAndThumbnail(data, settings: settings))
            }
            guard let (sizes, result) = outcome.value else { continue }
            let header = data.withUnsafeBytes { DirectJPEG.probe($0) }
            for (shrink, size) in sizes {
                guard let size else { continue }
                decoded += 1
                // libvips's loader keeps floor(side / shrink), at least 1.
                let header = try XCTUnwrap(header, "decoded without a header, round \(round)")
                XCTAssertEqual(size.width, max(1, header.width / shrink), "round \(round) 1/\(shrink)")
                XCTAssertEqual(size.height, max(1, header.height / shrink), "round \(round) 1/\(shrink)")
            }
            switch result {
            case .success(let thumbnail):
                XCTAssertTrue(thumbnail.width > 0 && thumbnail.width <= 24 && thumbnail.height > 0, "round \(round)")
            case .failure(let error):
                XCTAssertFalse(error.message.isEmpty, "round \(round)")
                XCTAssertFalse(error.message.contains("\n"), "one line: \(error.message)")
            }
        }
        XCTAssertGreaterThan(decoded, 0, "some mutations leave a decodable file")
    }

    // MARK: - Helpers

    /// What one mutated file gives: the size of the direct decode at 1/8
    /// and 1/2 (nil when it falls back), and the thumbnailer's result.
    private static func decodeAndThumbnail(_ data: Data, settings: OutputSettings)
        -> ([(Int, PixelSize?)], Result<PixelSize, ItemError>)
    {
        let sizes: [(Int, PixelSize?)] = [8, 2].map { shrink in
            (shrink, data.withUnsafeBytes { DirectJPEG.decode($0, shrink: shrink) }.map { PixelSize(width: $0.width, height: $0.height) })
        }
        let result = data.withUnsafeBytes { raw -> Result<PixelSize, ItemError> in
            do throws(ItemError) {
                let decoded = try Thumbnailer.decode(raw, settings: settings, limits: DecodeLimits())
                let rendered = try Thumbnailer.finish(decoded, settings: settings)
                guard let first = rendered.thumbnails.first else { return .failure(ItemError(.encode, "no thumbnail")) }
                return .success(PixelSize(width: first.width, height: first.height))
            } catch {
                return .failure(error)
            }
        }
        return (sizes, result)
    }

    /// A value handed back from the deadline's thread.
    private final class Outcome: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: ([(Int, PixelSize?)], Result<PixelSize, ItemError>)?
        func set(_ value: ([(Int, PixelSize?)], Result<PixelSize, ItemError>)) { lock.withLock { stored = value } }
        var value: ([(Int, PixelSize?)], Result<PixelSize, ItemError>)? { lock.withLock { stored } }
    }

    /// A photo-like JPEG: noise over gradients, so that blocks carry many AC
    /// coefficients of every size (long codes, runs, ZRL) as in a camera file.
    private func textured(_ name: String, width: Int, height: Int, bands: Int, options: String) -> String {
        var random = SplitMix64(state: UInt64(name.utf8.reduce(5) { $0 &* 31 &+ Int($1) }))
        return write(name, width: width, height: height, bands: bands, options: options) { x, y, b in
            let smooth = x > width / 2 && y > height / 2
            let base = (b == 0 ? x * 255 / width : b == 1 ? y * 255 / height : (x + y) * 127 / (width + height) + 64)
            return base + (smooth ? 0 : Int(random.next() % 96) - 48)
        }
    }

    /// A smooth JPEG with detail inside each block: waves of 24 and 34
    /// pixels in brightness over gradients of colour, so that every block's
    /// lowest AC coefficients carry much of it, as edges and shading do in a
    /// photo (whose colour, as here, changes more slowly than its
    /// brightness).
    private func waves(_ name: String, width: Int, height: Int, bands: Int, options: String) -> String {
        write(name, width: width, height: height, bands: bands, options: options) { x, y, b in
            let base = b == 0 ? x * 160 / width + 48 : b == 1 ? y * 160 / height + 48 : 128
            let wave = 50 * sin(Double(x) * .pi / 12) + 40 * cos(Double(y) * .pi / 17)
            return base + Int(wave.rounded())
        }
    }

    /// Writes `value(x, y, band)` (clamped to 0...255) as ROOT/NAME.jpg with
    /// libvips's save options.
    private func write(_ name: String, width: Int, height: Int, bands: Int, options: String,
                       value: (Int, Int, Int) -> Int) -> String {
        var pixels = [UInt8](repeating: 0, count: width * height * bands)
        for y in 0..<height {
            for x in 0..<width {
                for b in 0..<bands {
                    pixels[(y * width + x) * bands + b] = UInt8(clamping: value(x, y, b))
                }
            }
        }
        let path = root + "/\(name).jpg"
        let image = pixels.withUnsafeBytes {
            vips_image_new_from_memory_copy($0.baseAddress, $0.count, Int32(width), Int32(height), Int32(bands), VIPS_FORMAT_UCHAR)
        }!
        image.pointee.Type = bands == 1 ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB
        let status = shim_save_file(image, path + options)
        shim_unref(image)
        precondition(status == 0, "cannot write \(path)")
        return path
    }

    private func libvipsDecode(_ data: Data, shrink: Int) -> VipsImageRef? {
        data.withUnsafeBytes { raw in
            var out: UnsafeMutablePointer<VipsImage>?
            guard shim_load_from_buffer(raw.baseAddress, raw.count, "jpegload_buffer", Int32(shrink), 1, Int32(VIPS_FAIL_ON_ERROR.rawValue), &out) == 0,
                  let out
            else { return nil }
            return VipsImageRef(out)
        }
    }

    /// The PSNR of two images' pixels (the conformance tests' measure).
    private static func psnr(_ a: VipsImageRef, _ b: VipsImageRef) throws -> Double {
        JPEGDCConformanceTests.psnr(try JPEGDCConformanceTests.pixels(a), try JPEGDCConformanceTests.pixels(b))
    }
}

