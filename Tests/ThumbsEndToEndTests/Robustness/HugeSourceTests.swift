import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit
#if canImport(Glibc)
import Glibc
#endif

/// Issue 27, point 1: a huge file never takes the machine down. A file's
/// first bytes and header are looked at before anything more of it is read;
/// what is not an image, or cannot be what its header says, is refused
/// unread, and a signal stops a long read at once.
///
/// Each case runs the built binary as a child (`MeasuredRun`), so the peak
/// memory measured is that run's alone. Sizes come from sparse files: a
/// 20 GB file here takes no disk.
final class HugeSourceTests: TemporaryFolderTestCase {
    /// A photo-sized JPEG in `folder`.
    @discardableResult
    func photo(in folder: String) -> String {
        TestImages.write(folder + "/photo.jpg", width: 3000, height: 2000, options: "[Q=95]")
    }

    func run(_ folder: String, out: String, _ extra: [String] = []) throws -> MeasuredRun.Result {
        try MeasuredRun.run(["run", folder, "--out", out, "--progress", "never", "--jobs", "2"] + extra, timeout: 120)
    }

    func testAGigabyteOfZerosNamedLikeAJPEGFailsAtOnceAndCostsNoMemory() throws {
        try ThumbsProcess.requireExecutable()
        photo(in: root + "/alone")
        photo(in: root + "/with-zeros")
        try SparseFile.write(root + "/with-zeros/zeros.jpg", size: 1 << 30)

        let alone = try run(root + "/alone", out: root + "/out-alone")
        XCTAssertEqual(alone.status, 0, alone.stderr)
        let withZeros = try run(root + "/with-zeros", out: root + "/out-zeros")
        XCTAssertEqual(withZeros.status, 1, "one failure: \(withZeros.stderr)")

        let manifest = try readManifest(root + "/out-zeros")
        XCTAssertEqual(manifest.item("photo.jpg")?.status, .ok)
        let zeros = try XCTUnwrap(manifest.item("zeros.jpg"))
        XCTAssertEqual(zeros.status, .failed)
        XCTAssertEqual(zeros.error?.code, "unsupported")
        let message = zeros.error?.message ?? ""
        XCTAssertTrue(message.hasPrefix("not an image: "), message)
        XCTAssertTrue(message.contains("zeros.jpg") && message.contains("all zero"), message)
        XCTAssertNil(zeros.sha256, "not read, so not hashed")
        // The gigabyte was never read: the run costs what the photo costs,
        // and takes about as long (it took 9.4 s and 1.1 GB when every
        // byte was read first).
        XCTAssertLessThan(withZeros.peakMB, alone.peakMB + 64,
                          "peak \(withZeros.peakMB) MB with the zeros, \(alone.peakMB) MB for the photo alone")
        XCTAssertLessThan(withZeros.seconds, alone.seconds + 2,
                          "\(withZeros.seconds) s with the zeros, \(alone.seconds) s for the photo alone")
    }

    func testTwentyGigabyteFilesAreRefusedFromTheirHeaders() throws {
        try ThumbsProcess.requireExecutable()
        let folder = root + "/in"
        photo(in: folder)
        let twenty = 20 << 30
        // A plausible camera frame, a single pixel, and a frame over
        // --max-pixels, each followed by 20 GB of zeros.
        try SparseFile.write(folder + "/camera.jpg", size: twenty, header: SparseFile.jpegHeader(width: 4000, height: 3000))
        try SparseFile.write(folder + "/one-pixel.jpg", size: twenty, header: SparseFile.jpegHeader(width: 1, height: 1))
        try SparseFile.write(folder + "/bomb.jpg", size: twenty, header: SparseFile.jpegHeader(width: 60000, height: 60000))

        let result = try run(folder, out: root + "/out", ["--max-failures", "100%"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertLessThan(result.seconds, 20, "20 GB files must be refused, not read")
        XCTAssertLessThan(result.peakMB, 400, "peak \(result.peakMB) MB")

        let manifest = try readManifest(root + "/out")
        XCTAssertEqual(manifest.item("photo.jpg")?.status, .ok)
        func refusal(_ id: String) -> String {
            let item = manifest.item(id)
            XCTAssertEqual(item?.status, .failed, id)
            XCTAssertEqual(item?.error?.code, "too-large", "\(id): \(item?.error?.message ?? "")")
            XCTAssertNil(item?.sha256, "\(id) was hashed, so it was read")
            return item?.error?.message ?? ""
        }
        for id in ["camera.jpg", "one-pixel.jpg"] {
            let message = refusal(id)
            XCTAssertTrue(message.contains("20.0 GB") && message.contains("not read"), "\(id): \(message)")
        }
        XCTAssertTrue(refusal("camera.jpg").contains("4000×3000 JPEG"))
        XCTAssertTrue(refusal("one-pixel.jpg").contains("1×1 JPEG"))
        XCTAssertTrue(refusal("bomb.jpg").contains("--max-pixels"))
    }

    /// SIGTERM while a large source is being read: the read stops at the
    /// next chunk, the item is left for the next run, and the run exits 130
    /// at once instead of reading (and hashing, and decoding) the rest.
    func testSIGTERMDuringALargeReadIsObeyedWithinASecond() throws {
        try ThumbsProcess.requireExecutable()
        let folder = root + "/in"
        // Large, and a JPEG frame that makes such a size plausible.
        let size = (1 << 30) - (1 << 20)
        XCTAssertGreaterThanOrEqual(size, 255 << 20)
        try SparseFile.write(folder + "/large.jpg", size: size, header: SparseFile.jpegHeader(width: 8000, height: 8000))

        let child = try MeasuredRun(["run", folder, "--out", root + "/out", "--progress", "never"])
        let deadline = ContinuousClock.now + .seconds(60)
        while child.bytesRead < 48 << 20, ContinuousClock.now < deadline { usleep(500) }
        XCTAssertGreaterThanOrEqual(child.bytesRead, 48 << 20, "the run never started reading the large file")
        let signalled = ContinuousClock.now
        child.signal(SIGTERM)
        let result = child.wait(timeout: 60)
        let afterSignal = ContinuousClock.now - signalled
        XCTAssertEqual(result.status, 130, result.stderr)
        XCTAssertLessThan(afterSignal, .seconds(1), "SIGTERM obeyed after \(afterSignal)")

        let manifest = try readManifest(root + "/out")
        XCTAssertEqual(manifest.interrupted, true)
        XCTAssertEqual(manifest.items.map(\.id), [], "the abandoned read is left for the next run")
    }
}
