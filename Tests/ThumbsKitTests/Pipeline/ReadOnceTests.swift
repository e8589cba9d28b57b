import Foundation
import Synchronization
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// The bytes a decoder takes into memory are read once: the hash reads them
/// into a buffer from the run's `SourceBufferPool`, the decoder is served
/// from it (`SourceFile.keep`, `ImageSource.withBytes`), and the buffer goes
/// back to the pool for the next item.
final class ReadOnceTests: TemporaryFolderTestCase {
    private func write(_ bytes: Data, _ name: String) throws -> String {
        try FileManager.default.createDirectory(atPath: root + "/in", withIntermediateDirectories: true)
        let path = root + "/in/" + name
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A whole run over one JPEG: every byte of it is read once, not once
    /// for the hash and again for the DC decode; the record's sha256 is the
    /// file's and the thumbnail is made.
    func testAJPEGIsReadOnceForItsHashAndItsDecode() async throws {
        try await readOnce(wholeFiles: false)
    }

    /// The same with `--whole-files`, which reads every source whole (as a
    /// list's whole download is): planned first all the same, so that its
    /// decoder's range is kept.
    func testWithWholeFilesAJPEGIsReadOnceToo() async throws {
        try await readOnce(wholeFiles: true)
    }

    private func readOnce(wholeFiles: Bool) async throws {
        let made = TestImages.write(root + "/photo.jpg", width: 2400, height: 1800, options: "[Q=95,strip]")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: made))
        XCTAssertGreaterThan(bytes.count, 3 * SourceFile.prefixLength, "a file well past the first read")
        let path = try write(bytes, "photo.jpg")

        let total = Mutex(0)
        let hook = SourceReadHook(reads: { read, range in
            if read == path { total.withLock { $0 += range.count } }
        })
        _ = try await SourceReadHook.$current.withValue(hook) {
            try await runThumbs([root + "/in"], out: root + "/out") { options in
                options.size([256])
                options.wholeFiles = wholeFiles
            }
        }
        let item = try XCTUnwrap(try readManifest(root + "/out").item("photo.jpg"))
        XCTAssertEqual(item.status, .ok)
        XCTAssertEqual(item.sha256, SHA256Hex.of(bytes))
        XCTAssertEqual(item.outputs.count, 1)
        let read = total.withLock { $0 }
        XCTAssertGreaterThanOrEqual(read, bytes.count)
        // The header's probe and the check for the EOI read a few bytes twice.
        XCTAssertLessThan(read, bytes.count + 4096, "read \(read) bytes of a \(bytes.count)-byte file")
    }

    /// The kept range holds the file's bytes as hashed; the decoder's read
    /// of it is served from memory; released, the buffer waits in the pool
    /// and the next file's hash reads into that same buffer.
    func testTheKeptBytesAreTheFilesAndTheirBufferIsReused() throws {
        var random = SplitMix64(state: 7)
        let bytes = Data((0..<(3 << 20)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        let first = try write(bytes, "a.bin")
        let second = try write(bytes.prefix(2 << 20), "b.bin")
        let pool = SourceBufferPool(count: 2)

        let file = try SourceFile(path: first)
        let kept = 100..<(bytes.count - 100)
        let hashed = try SourceBytes(hashing: file, interrupt: nil, keeping: kept, pool: pool)
        XCTAssertEqual(hashed.sha256(), SHA256Hex.of(bytes))
        let served = try XCTUnwrap(file.keptBytes(1000..<5000))
        XCTAssertEqual(Data(served), bytes[1000..<5000])
        XCTAssertNil(file.keptBytes(0..<200), "a range the buffer does not cover is read from the file")
        let fromSource = try ImageSource.file(file).withBytes(in: kept) { Data($0) }
        XCTAssertEqual(fromSource, bytes[kept])
        let address = try XCTUnwrap(file.keptBytes(kept)?.baseAddress)
        XCTAssertEqual(file.peakBytesHeld, kept.count)
        XCTAssertEqual(pool.waiting, 0)

        file.releaseKept()
        XCTAssertNil(file.keptBytes(kept))
        XCTAssertEqual(pool.waiting, 1)

        let next = try SourceFile(path: second)
        _ = try SourceBytes(hashing: next, interrupt: nil, keeping: 0..<next.size, pool: pool)
        XCTAssertEqual(next.keptBytes(0..<next.size)?.baseAddress, address, "the pool's buffer, reused")
        XCTAssertEqual(Data(try XCTUnwrap(next.keptBytes(0..<next.size))), bytes.prefix(2 << 20))
        XCTAssertEqual(pool.waiting, 0)
    }

    /// A partly read file keeps the range inside what it reads; a range
    /// outside it is not kept (the decoder reads it).
    func testAPartlyReadFileKeepsOnlyARangeItReads() throws {
        var random = SplitMix64(state: 9)
        let bytes = Data((0..<(2 << 20)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        let path = try write(bytes, "c.bin")
        let pool = SourceBufferPool(count: 2)
        let ranges = ReadRanges([0..<SourceFile.prefixLength, 500_000..<900_000])

        let inside = try SourceFile(path: path)
        _ = try SourceBytes(hashing: inside, ranges: ranges, interrupt: nil, keeping: 600_000..<800_000, pool: pool)
        XCTAssertEqual(Data(try XCTUnwrap(inside.keptBytes(600_000..<800_000))), bytes[600_000..<800_000])

        let outside = try SourceFile(path: path)
        _ = try SourceBytes(hashing: outside, ranges: ranges, interrupt: nil, keeping: 800_000..<1_000_000, pool: pool)
        XCTAssertNil(outside.keptBytes(800_000..<1_000_000))
        XCTAssertEqual(outside.peakBytesHeld, 0)
    }

    /// A file cut short while it is hashed fails, keeps nothing, and its
    /// buffer goes back to the pool.
    func testAFileThatChangesWhileReadKeepsNothing() throws {
        let bytes = Data(repeating: 0x42, count: 3 << 20)
        let path = try write(bytes, "d.bin")
        let pool = SourceBufferPool(count: 2)
        let hook = SourceReadHook { read, stage in
            if read == path, stage == .chunk { truncate(path, 1 << 20) }
        }
        let file = try SourceFile(path: path, hook: hook)
        XCTAssertThrowsError(try SourceBytes(hashing: file, interrupt: nil, keeping: 0..<file.size, pool: pool))
        XCTAssertNil(file.keptBytes(0..<1024))
        XCTAssertEqual(pool.waiting, 1)
        XCTAssertEqual(file.peakBytesHeld, 0)
    }

    /// The pool keeps at most `count` buffers, the largest ones.
    func testThePoolKeepsItsLargestBuffersUpToItsCount() {
        let pool = SourceBufferPool(count: 2)
        let small = pool.take(1), middle = pool.take(SourceBufferPool.step + 1), large = pool.take(3 * SourceBufferPool.step)
        XCTAssertEqual(small.count, SourceBufferPool.step, "whole steps")
        pool.give(small)
        pool.give(middle)
        pool.give(large)
        XCTAssertEqual(pool.waiting, 2)
        let first = pool.take(10), second = pool.take(10)
        XCTAssertEqual(first.baseAddress, middle.baseAddress, "the smallest that holds it; the smallest of all was freed")
        XCTAssertEqual(second.baseAddress, large.baseAddress)
        XCTAssertEqual(pool.waiting, 0)
        pool.give(first)
        pool.give(second)
    }
}
