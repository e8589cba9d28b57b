import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// The one decision of how an image is decoded, the rounding rule that
/// keeps the decode at least as large as the box, and the decoder counts
/// a run reports.
final class DecodePathTests: TemporaryFolderTestCase {
    private func facts(progressive: Bool = false, direct: Bool = true, width: Int = 4000, height: Int = 3000) -> JPEGFacts {
        JPEGFacts(width: width, height: height, components: 3, progressive: progressive, directlyDecodable: direct,
                  coefficientBytes: progressive ? width * height * 3 * 2 : 0)
    }

    func testThePredicateListsItsReasons() {
        let budget = DirectJPEG.memoryBudget
        XCTAssertEqual(DecodePath.choose(jpeg: nil, shrink: 8, keepMetadata: false, pixelBudget: budget), .libvips, "not a JPEG")
        XCTAssertEqual(DecodePath.choose(jpeg: facts(), shrink: 8, keepMetadata: true, pixelBudget: budget), .libvips, "metadata kept")
        XCTAssertEqual(DecodePath.choose(jpeg: facts(direct: false), shrink: 8, keepMetadata: false, pixelBudget: budget), .libvips, "CMYK")
        XCTAssertEqual(DecodePath.choose(jpeg: facts(), shrink: 8, keepMetadata: false, pixelBudget: budget), .jpegDC)
        XCTAssertEqual(DecodePath.choose(jpeg: facts(progressive: true), shrink: 8, keepMetadata: false, pixelBudget: budget), .jpegDCProgressive)
        XCTAssertEqual(DecodePath.choose(jpeg: facts(), shrink: 2, keepMetadata: false, pixelBudget: budget), .libjpeg)
        XCTAssertEqual(JPEGPathRule.candidates(jpeg: facts(), shrink: 4, keepMetadata: false, pixelBudget: budget), [.jpegDC, .libjpeg],
                       "a baseline file at 1/4: the DC entry's 2x2 decode, then libjpeg")
        XCTAssertEqual(DecodePath.choose(jpeg: facts(progressive: true), shrink: 4, keepMetadata: false, pixelBudget: budget), .libjpeg,
                       "a progressive file at 1/4 never takes the DC entry (here the compact decode refuses its frame)")
        XCTAssertEqual(DecodePath.choose(jpeg: facts(width: 10000, height: 7500), shrink: 4, keepMetadata: false, pixelBudget: budget),
                       .libjpeg, "the 2x2 decode's planes and pixels (42 MB) are over the budget, libjpeg's 14 MB of pixels are not")
        XCTAssertEqual(DecodePath.choose(jpeg: facts(), shrink: 1, keepMetadata: false, pixelBudget: budget), .libvips,
                       "36 MB of pixels stream through libvips in strips")
        XCTAssertEqual(DecodePath.choose(jpeg: facts(progressive: true), shrink: 1, keepMetadata: false, pixelBudget: budget), .libjpeg,
                       "a progressive file whose frame the banded decode refuses stays on libjpeg")
    }

    /// Progressive files at 1/1, 1/2 and 1/4 take the compact decode when
    /// its frame rules take them, and count what it says it holds.
    func testProgressiveAtFullHalfAndQuarterTakesTheCompactDecode() throws {
        let budget = DirectJPEG.memoryBudget
        let file = TestImages.write(root + "/p.jpg", width: 1200, height: 900, options: "[Q=90,interlace]")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        let facts = try XCTUnwrap(bytes.withUnsafeBytes { DirectJPEG.probe($0) }).facts
        XCTAssertGreaterThan(facts.compactBytesHalf, 0)
        XCTAssertLessThan(facts.compactBytesHalf, facts.coefficientBytes / 2, "a third of libjpeg's coefficients, or less")
        XCTAssertLessThan(facts.compactBytesQuarter, facts.compactBytesHalf)
        // At 1/1 it decodes a band at a time: about the pixels alone.
        XCTAssertGreaterThan(facts.compactBytesFull, facts.decodedBytes(shrink: 1))
        XCTAssertLessThan(facts.compactBytesFull, facts.decodedBytes(shrink: 1) + facts.coefficientBytes / 2)
        for shrink in [1, 2, 4] {
            XCTAssertEqual(DecodePath.choose(jpeg: facts, shrink: shrink, keepMetadata: false, pixelBudget: budget), .jpegProgressive)
            // Counted: the pixels and more, and less than libjpeg holds.
            XCTAssertGreaterThan(facts.peakBytes(path: .jpegProgressive, shrink: shrink), facts.decodedBytes(shrink: shrink))
            XCTAssertLessThan(facts.peakBytes(path: .jpegProgressive, shrink: shrink), facts.peakBytes(path: .libjpeg, shrink: shrink))
            let decoded = try XCTUnwrap(bytes.withUnsafeBytes {
                DirectJPEG.decode($0, shrink: shrink, memoryBudget: facts.peakBytes(path: .jpegProgressive, shrink: shrink))
            })
            XCTAssertEqual(decoded.decoder, .jpegProgressive, "its own count is enough for it")
        }
        // Luma sampled below chroma: the compact decode refuses the frame.
        let refused = try Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Fixtures/jpeg/cjpeg-prog-luma-below-chroma.jpg").standardizedFileURL)
        let refusedFacts = try XCTUnwrap(refused.withUnsafeBytes { DirectJPEG.probe($0) }).facts
        XCTAssertEqual(refusedFacts.compactBytesHalf, 0)
        XCTAssertEqual(DecodePath.choose(jpeg: refusedFacts, shrink: 2, keepMetadata: false, pixelBudget: budget), .libjpeg)
    }

    func testPeakMemoryCountsProgressiveCoefficients() {
        let baseline = facts(), progressive = facts(progressive: true)
        XCTAssertEqual(baseline.peakBytes(path: .libjpeg, shrink: 2), 2000 * 1500 * 3)
        XCTAssertEqual(progressive.peakBytes(path: .libjpeg, shrink: 2), 2000 * 1500 * 3 + 4000 * 3000 * 6)
        XCTAssertLessThan(progressive.peakBytes(path: .jpegDCProgressive, shrink: 8), 2 << 20)
    }

    /// The decoders floor (libvips drops the last, partial pixel of a shrunk
    /// JPEG); so must the choice of the shrink, or 2047 px into 256 would
    /// decode 255 px at 1/8 and be scaled up.
    func testShrinkNeverDecodesBelowTheBox() {
        XCTAssertEqual(ThumbnailGeometry.jpegShrink(sourceWidth: 2047, sourceHeight: 1535, neededWidth: 256, neededHeight: 192), 4)
        XCTAssertEqual(ThumbnailGeometry.jpegShrink(sourceWidth: 2048, sourceHeight: 1536, neededWidth: 256, neededHeight: 192), 8)
        XCTAssertEqual(ThumbnailGeometry.jpegShrink(sourceWidth: 1023, sourceHeight: 767, neededWidth: 256, neededHeight: 192), 2)
        XCTAssertEqual(ThumbnailGeometry.jpegShrink(sourceWidth: 1024, sourceHeight: 768, neededWidth: 256, neededHeight: 192), 4)
        for width in [2041, 2046, 2047, 2048, 2055, 4095] {
            let height = width * 3 / 4
            let plan = ThumbnailGeometry(sourceWidth: width, sourceHeight: height, box: ThumbSize(width: 256, height: 256), fit: .inside, enlarge: false)
            let shrink = ThumbnailGeometry.jpegShrink(sourceWidth: width, sourceHeight: height, neededWidth: plan.resizedWidth, neededHeight: plan.resizedHeight)
            let decoded = ThumbnailGeometry.jpegDecodedSize(width: width, height: height, shrink: shrink)
            XCTAssertGreaterThanOrEqual(decoded.width, plan.resizedWidth, "\(width)")
            XCTAssertGreaterThanOrEqual(decoded.height, plan.resizedHeight, "\(width)")
        }
    }

    func testADecodeJustUnderAMultipleOfEightIsNotScaledUp() throws {
        let path = TestImages.write(root + "/odd.jpg", width: 2047, height: 1535, options: "[Q=90]")
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let settings = OutputSettings(sizes: [ThumbSize(width: 256, height: 256)])
        let decoded = try data.withUnsafeBytes { try Thumbnailer.decode($0, settings: settings, limits: DecodeLimits()) }
        guard case .pixels(let pixels) = decoded.stage else { return XCTFail("a plain JPEG takes a direct path") }
        XCTAssertEqual([pixels.width, pixels.height], [2047 / 4, 1535 / 4])
        XCTAssertEqual(decoded.decoder, .jpegDC, "1/4: the DC entry's 2x2 decode")
        let thumbnails = try Thumbnailer.finish(decoded, settings: settings).thumbnails
        XCTAssertEqual(thumbnails.map { [$0.width, $0.height] }, [[256, 192]])
    }

    /// A progressive JPEG on jpeg_prog.c streams its rows into the largest
    /// thumbnail's resize (in stored orientation), and reserves what that
    /// holds rather than the full-size image.
    func testProgressiveDecodesStreamIntoTheLargestSize() throws {
        for orientation in [1, 6] {
            let path = TestImages.write(root + "/s\(orientation).jpg", width: 1200, height: 900, orientation: orientation,
                                        options: "[Q=90,interlace]")
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let settings = OutputSettings(sizes: [ThumbSize(width: 400, height: 400), ThumbSize(width: 700, height: 700)])
            let plan = try data.withUnsafeBytes { try Thumbnailer.plan($0, settings: settings, limits: DecodeLimits()) }
            XCTAssertEqual(plan.path, .jpegProgressive)
            XCTAssertEqual(plan.shrink, 1)
            let target = try XCTUnwrap(plan.target)
            // Stored 1200x900 either way: upright 900x1200 fits 525x700.
            XCTAssertEqual([target.width, target.height], [700, 525])
            let facts = try XCTUnwrap(data.withUnsafeBytes { DirectJPEG.probe($0) }).facts
            XCTAssertLessThan(plan.peakBytes, facts.peakBytes(path: .jpegProgressive, shrink: 1), "less than decoding the full-size image")
            let decoded = try data.withUnsafeBytes { try Thumbnailer.decode($0, plan: plan, settings: settings, limits: DecodeLimits()) }
            XCTAssertEqual(decoded.decoder, .jpegProgressive)
            let sizes = try Thumbnailer.finish(decoded, settings: settings).thumbnails.map { [$0.width, $0.height] }
            XCTAssertEqual(sizes, orientation == 6 ? [[300, 400], [525, 700]] : [[400, 300], [700, 525]])
        }
        // A size of nearly the decode's: the resize would hold more than it saves.
        let near = TestImages.write(root + "/near.jpg", width: 1200, height: 900, options: "[Q=90,interlace]")
        let nearData = try Data(contentsOf: URL(fileURLWithPath: near))
        let nearPlan = try nearData.withUnsafeBytes {
            try Thumbnailer.plan($0, settings: OutputSettings(sizes: [ThumbSize(width: 1150, height: 1150)]), limits: DecodeLimits())
        }
        XCTAssertEqual(nearPlan.shrink, 1)
        XCTAssertNil(nearPlan.target)
        // No smaller size to stream to: no target.
        let path = TestImages.write(root + "/small.jpg", width: 300, height: 200, options: "[Q=90,interlace]")
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let settings = OutputSettings(sizes: [ThumbSize(width: 400, height: 400)])
        let plan = try data.withUnsafeBytes { try Thumbnailer.plan($0, settings: settings, limits: DecodeLimits()) }
        XCTAssertNil(plan.target)
    }

    /// A reservation that does not fit waits until memory is released: the
    /// flag is set just before the release, so a reservation that returned
    /// without waiting sees it unset. Each wait is bounded (a lost wake-up
    /// fails instead of hanging).
    func testTheMemoryBudgetMakesALargeReservationWaitForARelease() async throws {
        let budget = MemoryBudget(capacity: 64 << 20)
        let released = ReleaseFlag()
        let first = await budget.reserve(40 << 20)
        XCTAssertEqual(first, 40 << 20)
        let small = await budget.reserve(1 << 20)
        XCTAssertEqual(small, 0, "small: not counted, never waits")
        let second = Task { () -> (bytes: Int, afterRelease: Bool) in
            let bytes = await budget.reserve(40 << 20)
            return (bytes, released.isSet)
        }
        try await waitUntilQueued(budget, 1)
        // A small reservation still passes a queued large one.
        let passing = await budget.reserve(2 << 20)
        XCTAssertEqual(passing, 0)
        released.set()
        await budget.release(first)
        let granted = try await bounded { await second.value }
        XCTAssertEqual(granted.bytes, 40 << 20)
        XCTAssertTrue(granted.afterRelease, "the second reservation returned before the first was released")

        // Larger than the whole budget: waits until nothing else is held,
        // then runs alone instead of waiting forever.
        released.clear()
        let huge = Task { () -> (bytes: Int, afterRelease: Bool) in
            let bytes = await budget.reserve(500 << 20)
            return (bytes, released.isSet)
        }
        try await waitUntilQueued(budget, 1)
        released.set()
        await budget.release(granted.bytes)
        let alone = try await bounded { await huge.value }
        XCTAssertEqual(alone.bytes, 500 << 20)
        XCTAssertTrue(alone.afterRelease, "the huge reservation did not wait for the budget to empty")
        await budget.release(alone.bytes)
        let queued = await budget.queued
        XCTAssertEqual(queued, 0)
    }

    /// Waiters are admitted in arrival order: a large one queued first is
    /// not overtaken by a later one that would fit.
    func testTheMemoryBudgetAdmitsInArrivalOrder() async throws {
        let budget = MemoryBudget(capacity: 64 << 20)
        let order = ReleaseFlag()
        let held = await budget.reserve(40 << 20)
        let large = Task { _ = await budget.reserve(60 << 20); order.append("large") }
        try await waitUntilQueued(budget, 1)
        let later = Task { _ = await budget.reserve(10 << 20); order.append("later") }
        try await waitUntilQueued(budget, 2)
        await budget.release(held)
        try await bounded { await large.value }
        XCTAssertEqual(order.names, ["large"], "the 10 MB reservation fits beside the 60 MB one only after it is released")
        await budget.release(60 << 20)
        try await bounded { await later.value }
        XCTAssertEqual(order.names, ["large", "later"])
        await budget.release(10 << 20)
    }

    private struct TimedOut: Error {}

    /// Waits (at most 10 s) until `count` reservations are queued.
    private func waitUntilQueued(_ budget: MemoryBudget, _ count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while await budget.queued < count {
            guard ContinuousClock.now < deadline else {
                XCTFail("\(count) reservations never queued (10 s)")
                throw TimedOut()
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// `body`, failing the test after 10 s instead of hanging. (A task
    /// group would wait for a reservation that never returns: the body runs
    /// unstructured, and the first of it and the deadline wins.)
    @discardableResult
    private func bounded<T: Sendable>(_ body: @escaping @Sendable () async -> T) async throws -> T {
        let first = FirstOutcome<T>()
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            first.start(continuation)
            Task { first.finish(await body()) }
            Task { try? await Task.sleep(for: .seconds(10)); first.finish(nil) }
        }
        guard let result else {
            XCTFail("a reservation was never granted (10 s)")
            throw TimedOut()
        }
        return result
    }
}

/// Resumes a continuation with the first outcome given, once.
private final class FirstOutcome<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T?, Never>?
    func start(_ continuation: CheckedContinuation<T?, Never>) { lock.withLock { self.continuation = continuation } }
    func finish(_ value: T?) {
        let waiting = lock.withLock { () -> CheckedContinuation<T?, Never>? in
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(returning: value)
    }
}

/// A flag and a list of names shared between the test and its tasks.
private final class ReleaseFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    private var list: [String] = []
    var isSet: Bool { lock.withLock { flag } }
    var names: [String] { lock.withLock { list } }
    func set() { lock.withLock { flag = true } }
    func clear() { lock.withLock { flag = false } }
    func append(_ name: String) { lock.withLock { list.append(name) } }
}
