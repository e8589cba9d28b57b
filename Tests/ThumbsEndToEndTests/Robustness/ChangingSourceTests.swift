import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Issue 14, point 1 and its neighbours: a source that changes, shrinks or
/// disappears while the run reads it fails alone (`io`), the run goes on and
/// the manifest is written; a FIFO or a device as a source neither hangs the
/// run nor is read forever.
///
/// A `SourceReadHook` runs between the steps of a read: after the file is
/// opened and its size taken, the test truncates it, exactly what `cp` over
/// a file does to a reader (which, when the file was memory-mapped, killed
/// the process with SIGBUS). The hook is a task-local value around the run
/// (`runReading(_:)`), never a global of the product.
final class ChangingSourceTests: TemporaryFolderTestCase {
    var source: String { root + "/in" }
    var out: String { root + "/out" }
    let fm = FileManager.default

    override func setUp() {
        super.setUp()
        TestImages.write(source + "/small.jpg", width: 320, height: 240)
    }

    /// An uncompressed TIFF larger than the size that used to be mapped.
    @discardableResult
    func writeLargeImage(_ name: String) -> String {
        let path = TestImages.write(source + "/" + name, width: 2600, height: 2400, options: "[compression=none]")
        let size = (try? fm.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        XCTAssertGreaterThan(size, 16 << 20, "the test image must be above the old mapping threshold (16 MB)")
        return path
    }

    /// A hook that acts on the file named `name` at `stage`.
    func when(_ name: String, _ stage: SourceReadHook.Stage, _ action: @escaping @Sendable (String) -> Void) -> SourceReadHook {
        let target = source + "/" + name
        return SourceReadHook { path, at in
            if at == stage && path == target { action(path) }
        }
    }

    /// A run over `source` with `hook` acting on its reads.
    func runReading(_ hook: SourceReadHook) async throws -> ThumbsRun.Outcome {
        try await SourceReadHook.$current.withValue(hook) {
            try await runThumbs([source], out: out) { $0.maxFailures = .percent(100) }
        }
    }

    func testLargeSourceTruncatedWhileReadFailsAloneAndTheManifestIsWritten() async throws {
        writeLargeImage("large.tif")
        let outcome = try await runReading(when("large.tif", .opened) { path in _ = truncate(path, 4096) })
        XCTAssertEqual(outcome.status, .success)
        let manifest = try readManifest(out)
        let large = try XCTUnwrap(manifest.item("large.tif"))
        XCTAssertEqual(large.status, .failed)
        XCTAssertEqual(large.error?.code, "io")
        XCTAssertTrue(large.error?.message.contains("changed while being read") ?? false, large.error?.message ?? "")
        XCTAssertEqual(manifest.item("small.jpg")?.status, .ok)
        XCTAssertEqual(try fm.contentsOfDirectory(atPath: out + "/.thumbs/tmp"), [])

        // Once the file is whole again, the next run makes its thumbnail.
        writeLargeImage("large.tif")
        let again = try await runThumbs([source], out: out)
        XCTAssertEqual(again.manifest?.item("large.tif")?.status, .ok)
        XCTAssertEqual(again.manifest?.item("small.jpg")?.status, .unchanged)
    }

    func testLargeSourceReadWholeMakesItsThumbnail() async throws {
        writeLargeImage("large.tif")
        let outcome = try await runThumbs([source], out: out)
        XCTAssertEqual(outcome.status, .success)
        let large = try XCTUnwrap(outcome.manifest?.item("large.tif"))
        XCTAssertEqual(large.status, .ok)
        XCTAssertEqual([large.width, large.height], [2600, 2400])
        XCTAssertEqual(TestImages.header(out + "/256/large.tif".replacingOccurrences(of: ".tif", with: ".jpg"))?.width, 256)
    }

    func testSourceRewrittenInPlaceDuringTheReadIsCaught() async throws {
        // Same size, new modification time: a sync tool rewriting the file.
        let outcome = try await runReading(when("small.jpg", .read) { path in
            var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 0)]
            _ = utimensat(AT_FDCWD, path, &times, 0)
        })
        let small = try XCTUnwrap(outcome.manifest?.item("small.jpg"))
        XCTAssertEqual(small.status, .failed)
        XCTAssertEqual(small.error?.code, "io")
        XCTAssertTrue(small.error?.message.contains("changed while being read") ?? false, small.error?.message ?? "")
    }

    func testSourceThatGrowsDuringTheReadIsCaught() async throws {
        let outcome = try await runReading(when("small.jpg", .read) { path in
            let handle = FileHandle(forWritingAtPath: path)
            handle?.seekToEndOfFile()
            handle?.write(Data(repeating: 0, count: 1000))
            try? handle?.close()
        })
        let small = try XCTUnwrap(outcome.manifest?.item("small.jpg"))
        XCTAssertEqual(small.error?.code, "io")
        XCTAssertTrue(small.error?.message.contains("changed while being read") ?? false, small.error?.message ?? "")
    }

    func testSourceDeletedBeforeItIsReadFailsWithIO() async throws {
        TestImages.write(source + "/other.jpg", width: 100, height: 80)
        let outcome = try await runReading(when("small.jpg", .willOpen) { path in unlink(path) })
        let small = try XCTUnwrap(outcome.manifest?.item("small.jpg"))
        XCTAssertEqual(small.status, .failed)
        XCTAssertEqual(small.error?.code, "io")
        XCTAssertTrue(small.error?.message.contains("No such file") ?? false, small.error?.message ?? "")
        XCTAssertEqual(outcome.manifest?.item("other.jpg")?.status, .ok)
    }

    func testSourceDeletedAfterItWasOpenedIsStillRead() async throws {
        // Deleting a name does not change the open file: it is read whole.
        let outcome = try await runReading(when("small.jpg", .opened) { path in unlink(path) })
        XCTAssertEqual(outcome.manifest?.item("small.jpg")?.status, .ok)
    }

    func testFIFOAsSourceFailsAtOnce() async throws {
        let fifo = root + "/pipe.jpg"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        // Nobody ever writes to the FIFO: opening it for reading the usual
        // way would wait forever.
        let outcome = try await runThumbs([fifo, source + "/small.jpg"], out: out) { $0.maxFailures = .percent(100) }
        let pipe = try XCTUnwrap(outcome.manifest?.item("pipe.jpg"))
        XCTAssertEqual(pipe.status, .failed)
        XCTAssertEqual(pipe.error?.code, "io")
        XCTAssertTrue(pipe.error?.message.contains("FIFO") ?? false, pipe.error?.message ?? "")
        XCTAssertEqual(outcome.manifest?.item("small.jpg")?.status, .ok)
    }

    func testEndlessDeviceAsSourceIsNotRead() async throws {
        let outcome = try await runThumbs(["/dev/zero", source + "/small.jpg"], out: out) { $0.maxFailures = .percent(100) }
        let zero = try XCTUnwrap(outcome.manifest?.item("zero"))
        XCTAssertEqual(zero.status, .failed)
        XCTAssertEqual(zero.error?.code, "io")
        XCTAssertTrue(zero.error?.message.contains("character device") ?? false, zero.error?.message ?? "")
    }

    func testFIFOAndDeviceLinksInAFolderAreSkipped() async throws {
        XCTAssertEqual(mkfifo(source + "/pipe.jpg", 0o644), 0)
        try fm.createSymbolicLink(atPath: source + "/zero.jpg", withDestinationPath: "/dev/zero")
        let outcome = try await runThumbs([source], out: out)
        XCTAssertEqual(outcome.status, .success)
        XCTAssertEqual(outcome.manifest?.items.map(\.id), ["small.jpg"])
    }
}
