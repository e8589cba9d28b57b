import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// The seam every source goes through (`DecoderList`): each entry plans its
/// own sources and passes the others; the memory budget waits on the plans
/// that hold much (libvips with several sizes, a video); a fallback is
/// planned and reserved on its own; and a motion photo's decoders hold only
/// the JPEG's bytes, as the source reader counts them.
final class DecoderListTests: TemporaryFolderTestCase {
    private static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    private func settings(_ boxes: Int...) -> OutputSettings {
        var settings = OutputSettings()
        settings.sizes = boxes.map { ThumbSize(width: $0, height: $0) }
        return settings
    }

    /// `decoder`'s plan of the file at `path`, sniffed as the pipeline sniffs it.
    private func plan(_ decoder: any ImageDecoder, _ path: String, _ settings: OutputSettings) throws -> DecodePlan? {
        let file = try SourceFile(path: path)
        let format = try SourceHeader.read(file)?.format
        return try decoder.plan(DecoderInput(source: .file(file), format: format, settings: settings, limits: DecodeLimits()))
    }

    private func jpeg(_ name: String, width: Int, height: Int, options: String = "[Q=85]") -> String {
        TestImages.write(root + "/" + name, width: width, height: height, options: options)
    }

    // MARK: - Each entry's plan: its own header, and one that is not

    func testEachEntryPlansItsOwnHeaderAndPassesAnother() throws {
        let baseline = jpeg("baseline.jpg", width: 1600, height: 1200)
        let progressive = jpeg("progressive.jpg", width: 1600, height: 1200, options: "[Q=85,interlace]")
        let png = TestImages.write(root + "/picture.png", width: 640, height: 480)
        let heic = Self.fixtures.appendingPathComponent("heif/heic-orientation-6.heic").path
        let video = Self.fixtures.appendingPathComponent("video/h264.mp4").path
        let dng = root + "/photo.dng"
        let preview = TestDNG.jpegPreview(root, name: "preview", width: 1200, height: 800)
        try Data(TestDNG.make(width: 1200, height: 800, previews: [preview]).bytes).write(to: URL(fileURLWithPath: dng))

        // The DC decode: a baseline JPEG at 1/8 (a 128 box of 1600×1200).
        XCTAssertEqual(try plan(JPEGDCDecoder(), baseline, settings(128))?.path, .jpegDC)
        XCTAssertNil(try plan(JPEGDCDecoder(), png, settings(128)))
        // The compact progressive decode at 1/2; not a baseline file's.
        XCTAssertEqual(try plan(JPEGProgressiveDecoder(), progressive, settings(800))?.path, .jpegProgressive)
        XCTAssertNil(try plan(JPEGProgressiveDecoder(), baseline, settings(800)))
        // libjpeg: a baseline file at 1/2; not one the DC decode takes first
        // (it follows the DC decode only when that declines), nor a PNG.
        XCTAssertEqual(try plan(LibjpegDecoder(), baseline, settings(800))?.path, .libjpeg)
        XCTAssertNil(try plan(LibjpegDecoder(), png, settings(800)))
        // HEIF, RAW, video: their own files, never a JPEG.
        XCTAssertNotNil(try plan(HeifDecoder(), heic, settings(128)))
        XCTAssertEqual(try plan(HeifDecoder(), heic, settings(128))?.reads, .streamed)
        XCTAssertNil(try plan(HeifDecoder(), baseline, settings(128)))
        XCTAssertEqual(try plan(RawPreviewDecoder(), dng, settings(256))?.path, .rawPreview)
        XCTAssertNil(try plan(RawPreviewDecoder(), baseline, settings(256)))
        XCTAssertEqual(try plan(LibRawDecoder(), dng, settings(256))?.path, .libraw)
        XCTAssertNil(try plan(LibRawDecoder(), baseline, settings(256)))
        // A box its one preview (300×200) does not cover: the preview entry
        // passes, LibRaw's develops.
        let smallPreview = root + "/small-preview.dng"
        try Data(TestDNG.make(width: 1200, height: 800, previews: [TestDNG.jpegPreview(root, name: "small", width: 300, height: 200)]).bytes)
            .write(to: URL(fileURLWithPath: smallPreview))
        XCTAssertNil(try plan(RawPreviewDecoder(), smallPreview, settings(1024)))
        XCTAssertEqual(try plan(LibRawDecoder(), smallPreview, settings(1024))?.path, .libraw)
        XCTAssertEqual(try plan(VideoDecoder(), video, settings(128))?.path, .video)
        XCTAssertNil(try plan(VideoDecoder(), baseline, settings(128)))
        // libvips takes whatever reaches it, last: a PNG, read by ranges.
        let libvips = try XCTUnwrap(try plan(LibvipsImageDecoder(), png, settings(128)))
        XCTAssertEqual(libvips.path, .libvips)
        XCTAssertEqual(libvips.reads, .streamed)
        // The whole list: each source to its own entry.
        for (path, expected) in [(baseline, DecodePath.jpegDC), (png, .libvips), (heic, .heifThumbnail), (video, .video), (dng, .rawPreview)] {
            let file = try SourceFile(path: path)
            let format = try SourceHeader.read(file)?.format
            let planned = try DecoderList.plan(.file(file), format: format, settings: settings(128), limits: DecodeLimits())
            XCTAssertTrue([expected, .libheif].contains(planned.path), "\(path): \(planned.path)")
        }
    }

    // MARK: - The memory budget

    /// Waits (without a clock) until `budget` has `count` reservations queued.
    private func waitUntilQueued(_ budget: MemoryBudget, _ count: Int) async {
        for _ in 0..<100_000 where await budget.queued < count { await Task.yield() }
    }

    /// A plan's peak is held in full by one reservation: a second one waits
    /// until the first is given back.
    private func assertBudgetWaits(on plan: DecodePlan, _ label: String) async {
        XCTAssertGreaterThanOrEqual(plan.peakBytes, MemoryBudget.smallReservation, "\(label): counted")
        let budget = MemoryBudget(capacity: plan.peakBytes)
        let first = await budget.reserve(plan.peakBytes)
        XCTAssertEqual(first, plan.peakBytes)
        let second = Task { await budget.reserve(plan.peakBytes) }
        await waitUntilQueued(budget, 1)
        let queued = await budget.queued
        XCTAssertEqual(queued, 1, "\(label): the second waits")
        await budget.release(first)
        let granted = await second.value
        XCTAssertEqual(granted, plan.peakBytes)
        await budget.release(granted)
    }

    func testTheBudgetWaitsOnALibvipsPlanWithSeveralSizes() async throws {
        let png = TestImages.write(root + "/large.png", width: 3000, height: 2000)
        let planned = try XCTUnwrap(try plan(LibvipsImageDecoder(), png, settings(1024, 256)))
        // One copy of the decoded image (3 bands of 8 bits) for the sizes.
        XCTAssertEqual(planned.peakBytes, 3000 * 2000 * 3)
        await assertBudgetWaits(on: planned, "libvips")
        // One size streams: nothing of the image is held.
        XCTAssertEqual(try plan(LibvipsImageDecoder(), png, settings(256))?.peakBytes, 0)
    }

    func testTheBudgetWaitsOnAVideoPlan() async throws {
        let video = Self.fixtures.appendingPathComponent("video/h264-1080p.mp4").path
        let planned = try XCTUnwrap(try plan(VideoDecoder(), video, settings(256)))
        // Two decoded 1920×1080 frames of 8-bit 4:2:0 (3.1 MB each), the
        // RGB at 1/4 (480×270), the container's buffer and index.
        let frames = 2 * 1920 * 1080 * 3 / 2
        XCTAssertGreaterThanOrEqual(planned.peakBytes, frames + 480 * 270 * 3)
        XCTAssertLessThan(planned.peakBytes, frames + (1 << 20))
        await assertBudgetWaits(on: planned, "video")
    }

    /// A video's plan reserves from its header: a larger frame, an HDR
    /// frame's 16-bit samples and wide RGB, a larger box's RGB all hold more.
    func testAVideoPlanReservesWhatItsFrameHolds() throws {
        func peak(_ name: String, _ box: Int) throws -> Int {
            let path = Self.fixtures.appendingPathComponent("video/" + name).path
            return try XCTUnwrap(try plan(VideoDecoder(), path, settings(box))).peakBytes
        }
        let small = try peak("h264.mp4", 256), large = try peak("h264-1080p.mp4", 256)
        // 160×90: two frames of 21.6 KB and the RGB at full size (43 KB).
        XCTAssertGreaterThanOrEqual(small, 2 * 160 * 90 * 3 / 2 + 160 * 90 * 3)
        XCTAssertLessThan(small, 1 << 20)
        XCTAssertGreaterThan(large, 20 * small, "1920×1080 against 160×90")
        XCTAssertGreaterThan(try peak("twin-pq.mp4", 512), try peak("twin-sdr.mp4", 512), "PQ: 10-bit samples, 16-bit RGB")
        XCTAssertGreaterThan(try peak("h264-1080p.mp4", 1920), large, "the RGB at full size, not at 1/4")
    }

    // MARK: - Fallbacks

    /// Declines every source it is given, after planning `peakBytes`.
    private struct Declining: ImageDecoder {
        var peakBytes: Int
        func plan(_ input: DecoderInput) throws(ItemError) -> DecodePlan? {
            DecodePlan(path: .jpegDC, info: nil, peakBytes: peakBytes, reads: .all) { _, _, _ in nil }
        }
    }

    /// Decodes every source with libvips, after planning `peakBytes`.
    private struct Accepting: ImageDecoder {
        var peakBytes: Int
        func plan(_ input: DecoderInput) throws(ItemError) -> DecodePlan? {
            guard var plan = try LibvipsImageDecoder().plan(input) else { return nil }
            plan.peakBytes = peakBytes
            return plan
        }
    }

    /// The entry after a declined decode is planned and reserved like any
    /// other: the declined plan's reservation is given back first, and the
    /// fallback runs under a reservation of its own size.
    func testAFallbackReservesItsOwnMemory() async throws {
        let png = TestImages.write(root + "/fallback.png", width: 320, height: 240)
        let list = DecoderList(entries: [Declining(peakBytes: 10 << 20), Accepting(peakBytes: 20 << 20)])
        let budget = MemoryBudget(capacity: 1 << 30)
        let file = try SourceFile(path: png)
        let (image, reserved) = try await list.decode(
            file, format: "png", settings: settings(64), limits: DecodeLimits(), memory: budget, pool: BlockingPool(threads: 1)
        )
        XCTAssertEqual(image.decoder, .libvips)
        XCTAssertEqual(reserved, 20 << 20, "the fallback's own reservation")
        let most = await budget.mostUsed
        XCTAssertEqual(most, 20 << 20, "the declined plan's 10 MB was given back before the fallback's 20 MB")
        await budget.release(reserved)
    }

    /// A RAW whose preview's header promises a picture its scan does not
    /// hold (the entropy data cut to 16 bytes): the preview entry plans it,
    /// reserves, and declines at decode; LibRaw's entry is planned next and
    /// develops under a reservation of its own plan's size.
    func testARAWPreviewThatDoesNotDecodeFallsToLibRawUnderItsOwnReservation() async throws {
        var preview = TestDNG.jpegPreview(root, name: "cut", width: 1200, height: 800)
        let jpeg = preview.jpeg
        let sos = try XCTUnwrap((0..<jpeg.count - 1).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDA })
        let scanStart = sos + 2 + (Int(jpeg[sos + 2]) << 8 | Int(jpeg[sos + 3]))
        preview.jpeg = Array(jpeg[0..<scanStart + 16]) + [0xFF, 0xD9]
        let path = root + "/cut-preview.dng"
        try Data(TestDNG.make(width: 1200, height: 800, previews: [preview]).bytes).write(to: URL(fileURLWithPath: path))

        let first = try XCTUnwrap(try plan(RawPreviewDecoder(), path, settings(256)))
        XCTAssertEqual(first.path, .rawPreview, "the header alone says the preview serves")
        let developed = try XCTUnwrap(try plan(LibRawDecoder(), path, settings(256)))
        XCTAssertGreaterThanOrEqual(developed.peakBytes, MemoryBudget.smallReservation, "LibRaw's plan is counted")
        XCTAssertGreaterThan(developed.peakBytes, first.peakBytes)

        let file = try SourceFile(path: path)
        let budget = MemoryBudget(capacity: 1 << 30)
        let (image, reserved) = try await DecoderList.standard.decode(
            file, format: try SourceHeader.read(file)?.format, settings: settings(256), limits: DecodeLimits(),
            memory: budget, pool: BlockingPool(threads: 1)
        )
        XCTAssertEqual(image.decoder, .libraw)
        XCTAssertEqual(reserved, developed.peakBytes, "LibRaw developed under its own plan's reservation")
        let most = await budget.mostUsed
        XCTAssertEqual(most, developed.peakBytes, "the preview's reservation was given back before LibRaw's")
        await budget.release(reserved)
    }

    // MARK: - Bytes held

    /// A motion photo (a JPEG with a video appended): the JPEG decoders
    /// hold the JPEG's bytes only, as `SourceFile` counts what its readers
    /// hold; the video is never read into memory.
    func testAMotionPhotoHoldsOnlyTheJPEGsBytes() async throws {
        let photo = jpeg("photo.jpg", width: 1600, height: 1200)
        let jpegBytes = try Data(contentsOf: URL(fileURLWithPath: photo))
        var motion = jpegBytes
        // An MP4's start, and 8 MB of its data (no JPEG marker at its end).
        motion.append(contentsOf: [0, 0, 0, 0x18] + Array("ftypmp42".utf8))
        motion.append(Data(repeating: 0x5A, count: 8 << 20))
        let path = root + "/PXL_MP.jpg"
        try motion.write(to: URL(fileURLWithPath: path))

        let file = try SourceFile(path: path)
        let budget = MemoryBudget(capacity: 1 << 30)
        let (image, reserved) = try await DecoderList.standard.decode(
            file, format: "jpeg", settings: settings(128), limits: DecodeLimits(), memory: budget, pool: BlockingPool(threads: 1)
        )
        await budget.release(reserved)
        XCTAssertEqual(image.decoder, .jpegDC)
        XCTAssertEqual(image.info.width, 1600)
        XCTAssertGreaterThan(file.peakBytesHeld, 0, "the JPEG's bytes were read into memory")
        XCTAssertLessThanOrEqual(file.peakBytesHeld, jpegBytes.count, "only the JPEG's bytes are held, not the video's")
        XCTAssertEqual(JPEGExtent.find(.file(file))?.length, jpegBytes.count)
    }

    /// A PNG with a large private chunk (20 MB of a camera app's data) goes
    /// to libvips, which reads the file through thumbs' descriptor: nothing
    /// of it is held in memory by a reader.
    func testLibvipsReadsAFileByRangesHoldingNothing() async throws {
        let plain = try [UInt8](Data(contentsOf: URL(fileURLWithPath: TestImages.write(root + "/plain.png", width: 320, height: 240))))
        let payload = [UInt8](repeating: 0x42, count: 20 << 20)
        let type = Array("prVt".utf8)
        var chunk = withUnsafeBytes(of: UInt32(payload.count).bigEndian, Array.init) + type + payload
        chunk += withUnsafeBytes(of: Self.crc32(type + payload).bigEndian, Array.init)
        // After the signature (8 bytes) and IHDR (25).
        let path = root + "/chunk.png"
        try Data(Array(plain[0..<33]) + chunk + Array(plain[33...])).write(to: URL(fileURLWithPath: path))

        let file = try SourceFile(path: path)
        let planned = try DecoderList.plan(.file(file), format: "png", settings: settings(64), limits: DecodeLimits())
        XCTAssertEqual(planned.path, .libvips)
        XCTAssertEqual(planned.reads, .streamed)
        let budget = MemoryBudget(capacity: 1 << 30)
        let (image, reserved) = try await DecoderList.standard.decode(
            file, format: "png", settings: settings(64), limits: DecodeLimits(), memory: budget, pool: BlockingPool(threads: 1)
        )
        await budget.release(reserved)
        XCTAssertEqual(image.info.width, 320)
        XCTAssertEqual(file.peakBytesHeld, 0, "libvips read the file by ranges, not from a buffer of it")
    }

    /// PNG's CRC-32 (ISO 3309), for a chunk made here.
    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
