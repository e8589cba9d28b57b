import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// A hash that could not be made is never a duplicate key (issue 26, §1).
///
/// The duplicate registry keys on `SHA256Hex.Digest`, which only a hash of
/// every byte makes, and the read makes it: there is no value left for a
/// failed hash to become. Before, `ItemProcessor` hashed on the decode pool
/// and turned any failure there into `""`, which the registry then took as
/// the bytes of every other file that failed the same way: two different
/// files of one size were linked as "same bytes".
final class FailedHashTests: TemporaryFolderTestCase {
    /// A processor whose decode pool has stopped, so every step that used to
    /// run there (the hash, the decode) fails; its I/O pool works.
    func processor(sharedSize: Int64) async throws -> (ItemProcessor, [BlockingPool]) {
        let decoders = BlockingPool(threads: 1)
        await decoders.shutdown()
        let finishers = BlockingPool(threads: 1), io = BlockingPool(threads: 2)
        let processor = ItemProcessor(
            settings: OutputSettings(), limits: DecodeLimits(), out: try OutputDirectory(path: root + "/out"),
            decoders: decoders, finishers: finishers, io: io, memory: MemoryBudget(capacity: 64 << 20),
            sources: AsyncSemaphore(permits: 2), previous: .empty, force: true,
            sharedSizes: [sharedSize], fetcher: nil)
        return (processor, [finishers, io])
    }

    func testTwoDifferentFilesOfOneSizeAreNeverLinkedWhenTheirHashOrDecodeFails() async throws {
        let a = TestImages.write(root + "/in/a.jpg", width: 64, height: 48)
        var bytes = [UInt8](FileManager.default.contents(atPath: a)!)
        // The same size, other bytes: one byte in the middle flipped.
        bytes[bytes.count / 2] ^= 0xFF
        let b = root + "/in/b.jpg"
        try Data(bytes).write(to: URL(fileURLWithPath: b))
        let size = Int64(bytes.count)
        let (processor, pools) = try await processor(sharedSize: size)
        var records: [ManifestItem] = []
        for (id, path) in [("a.jpg", a), ("b.jpg", b)] {
            let modified = FileInfo.of(path)?.modified ?? 0
            records.append(await processor.process(SourceItem(
                id: id, source: path, outputName: String(id.dropLast(4)), origin: .file(path: path, size: size, modified: modified))))
        }
        for pool in pools { await pool.shutdown() }

        for record in records {
            XCTAssertEqual(record.status, .failed, record.id)
            XCTAssertNil(record.duplicateOf, record.id)
            XCTAssertFalse(record.error?.message.hasPrefix("same bytes as") ?? true,
                           "\(record.id) was linked to another file: \(record.error?.message ?? "")")
        }
        // Each record's hash, where there is one, is its own file's.
        XCTAssertEqual(records[0].sha256, SHA256Hex.of(try Data(contentsOf: URL(fileURLWithPath: a))))
        XCTAssertEqual(records[1].sha256, SHA256Hex.of(Data(bytes)))
    }
}
