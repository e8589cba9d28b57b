import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// `ManifestSource`: a manifest read item by item, its header decoded once,
/// and `run.shardOrder` (a number per item of a whole run) left in the file
/// and read as a stream.
final class ManifestSourceTests: TemporaryFolderTestCase {
    private func manifest(items: Int, order: String?) -> Manifest {
        var run = RunCounters(ignored: 2, wallSeconds: 3.5, similar: 6)
        run.shardOrder = order
        var list: [ManifestItem] = []
        for i in 0..<items {
            let output = ManifestOutput(size: "256", path: "256/d/\(i).jpg", width: 40, height: 30, bytes: 900, format: "jpeg", sha256: "s\(i)")
            let status: ItemStatus = i % 7 == 0 ? .failed : .ok
            let note: JSONValue = .string(String(repeating: "ü", count: i % 300))
            list.append(ManifestItem(id: "d/\(i).jpg", source: "/p/d/\(i).jpg", status: status, sha256: String(i), width: 40 + i % 9,
                                     height: 30, outputs: [output], meta: ["note": note], ms: Double(i) / 8))
        }
        return Manifest(tool: .init(libvips: "8.14.1"), startedAt: "s", finishedAt: "f", settings: OutputSettings(),
                        shard: Shard(index: 1, count: 3), run: run, items: list)
    }

    private func readAll(_ source: ManifestSource) throws -> [ManifestItem] {
        let cursor = source.items()
        var items: [ManifestItem] = []
        while let item = try cursor.next() { items.append(item) }
        return items
    }

    /// An order longer than the reader's buffer (64 KiB) and items that
    /// straddle it: the same header, order and items as the file holds,
    /// and again on a second pass.
    func testStreamsItemsAndTheOrderOfAWholeRun() throws {
        let order = (0..<60_000).map { String($0 * 7 % 3) }.joined(separator: ",")
        let written = manifest(items: 1500, order: order)
        let path = root + "/manifest.json"
        try ManifestWriter.encode(written).write(to: URL(fileURLWithPath: path))
        let source = try ManifestSource.open(path)
        var header = written
        header.items = []
        header.run?.shardOrder = nil
        XCTAssertEqual(source.header, header)
        var digest = SHA256Hex.Stream()
        Data(order.utf8).withUnsafeBytes { digest.update($0) }
        XCTAssertEqual(source.order?.digest, digest.finish())
        XCTAssertEqual(source.order?.length, order.utf8.count)
        for _ in 0..<2 { XCTAssertEqual(try readAll(source), written.items) }
        let cursor = try XCTUnwrap(source.orderCursor(count: 3))
        var read: [Int] = []
        while let shard = try cursor.next() { read.append(shard) }
        XCTAssertFalse(cursor.damaged)
        XCTAssertEqual(read, order.split(separator: ",").map { Int($0)! })
    }

    /// Pretty-printed (another layout): read whole, same answers.
    func testOtherLayoutsAreReadWhole() throws {
        let written = manifest(items: 20, order: "0,1,2,2")
        let path = root + "/pretty.json"
        try JSONCoding.encode(written).write(to: URL(fileURLWithPath: path))
        let source = try ManifestSource.open(path)
        XCTAssertEqual(try readAll(source), written.items)
        XCTAssertEqual(source.order?.length, 7)
        let cursor = try XCTUnwrap(source.orderCursor(count: 3))
        var read: [Int] = []
        while let shard = try cursor.next() { read.append(shard) }
        XCTAssertEqual(read, [0, 1, 2, 2])
    }

    func testDamagedOrderAndCutFile() throws {
        for bad in ["0,1,x", "0,,1", "0,1,", "0,3"] {
            let path = root + "/bad.json"
            try ManifestWriter.encode(manifest(items: 2, order: bad)).write(to: URL(fileURLWithPath: path))
            let cursor = try XCTUnwrap(ManifestSource.open(path).orderCursor(count: 3))
            while try cursor.next() != nil {}
            XCTAssertTrue(cursor.damaged, bad)
        }
        // A manifest cut inside its items: a usage error naming the file.
        let data = ManifestWriter.encode(manifest(items: 200, order: nil))
        let path = root + "/cut.json"
        try data.prefix(data.count * 2 / 3).write(to: URL(fileURLWithPath: path))
        let source = try ManifestSource.open(path)
        XCTAssertThrowsError(try readAll(source)) { error in
            XCTAssertTrue("\(error)".contains("cut.json"), "\(error)")
        }
    }

    /// Issue 39, point 3: `gone` (an id per source gone: a whole run after
    /// an unmount) is not held when a manifest is opened for its items (a
    /// re-run's `PreviousIndex`, a merge); its items are read as before.
    func testTheGoneIdsAreNotReadIntoTheHeader() throws {
        let path = root + "/manifest.json"
        var manifest = Manifest(tool: .init(libvips: "8.14.1"), startedAt: "s", finishedAt: "f", settings: OutputSettings(),
                                gone: (0..<5000).map { "gone/\($0).jpg" }, run: RunCounters(),
                                items: [ManifestItem(id: "a.jpg", source: "/a.jpg", status: .ok, outputs: [], ms: 1)])
        try ManifestWriter.encode(manifest).write(to: URL(fileURLWithPath: path))
        let source = try ManifestSource.open(path)
        XCTAssertNil(source.header.gone)
        XCTAssertEqual(source.header.run, manifest.run)
        var ids: [String] = []
        let items = source.items()
        while let item = try items.next() { ids.append(item.id) }
        XCTAssertEqual(ids, ["a.jpg"])
        manifest.gone = nil
        manifest.items = []
        XCTAssertEqual(source.header, manifest)
    }

    /// Issue 34: a manifest in thumbs' layout whose header does not decode
    /// fails at its header, with a line that says so; its items are not
    /// decoded whole to find out (a million items held 1.4 GB).
    func testAHeaderThatDoesNotDecodeFailsThere() throws {
        let path = root + "/manifest.json"
        let text = String(decoding: ManifestWriter.encode(manifest(items: 300, order: nil)), as: UTF8.self)
        XCTAssertTrue(text.contains(#""startedAt": "s""#))
        try text.replacingOccurrences(of: #""startedAt": "s""#, with: #""startedAt": 7"#).write(toFile: path, atomically: false, encoding: .utf8)
        XCTAssertThrowsError(try ManifestSource.open(path)) { error in
            XCTAssertTrue("\(error)".contains("manifest.json is not a valid thumbs manifest: its header does not decode"), "\(error)")
        }
    }

    /// A file in another layout than thumbs' is read whole only up to
    /// `ManifestSource.wholeReadLimit`; a larger one fails with a line
    /// that says why, before it is read.
    func testAnotherLayoutPastTheLimitIsNotReadWhole() throws {
        let path = root + "/big.json"
        var bytes = Array("{\n".utf8)
        bytes += [UInt8](repeating: 0x20, count: ManifestSource.wholeReadLimit)
        bytes += Array("\n}\n".utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try ManifestSource.open(path)) { error in
            XCTAssertTrue("\(error)".contains("big.json is not laid out as thumbs writes a manifest (one item a line), and at 16 MB it is too large to read whole (at most 16 MB)"), "\(error)")
        }
    }
}
