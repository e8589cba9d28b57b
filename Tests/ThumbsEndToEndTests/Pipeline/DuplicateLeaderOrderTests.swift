import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Identical sources: the first in source order is `ok` and the others are
/// its `duplicate`s, whichever finished hashing first (`SourceOrderLeaders`),
/// as a merge labels them.
final class DuplicateLeaderOrderTests: TemporaryFolderTestCase {
    var source: String { root + "/in" }
    var out: String { root + "/out" }

    /// `a.jpg` comes first in source order but is held before it is opened
    /// until `b.jpg`, its copy, has led and written its thumbnail: the race
    /// that `VideoRunTests` lost now and then under load, made certain.
    func testTheFirstInSourceOrderLeadsWhenALaterCopyFinishedFirst() async throws {
        TestImages.write(source + "/a.jpg", width: 320, height: 240)
        try FileManager.default.copyItem(atPath: source + "/a.jpg", toPath: source + "/b.jpg")
        TestImages.write(source + "/c.jpg", width: 200, height: 100)
        try FileManager.default.copyItem(atPath: source + "/a.jpg", toPath: source + "/d.jpg")
        let first = source + "/a.jpg", leadersThumbnail = out + "/256/b.jpg"
        let hook = SourceReadHook { path, stage in
            guard path == first, stage == .willOpen else { return }
            let deadline = Date().addingTimeInterval(20)
            while !FileManager.default.fileExists(atPath: leadersThumbnail), Date() < deadline { usleep(5000) }
        }
        let outcome = try await SourceReadHook.$current.withValue(hook) {
            try await runThumbs([source], out: out) { $0.jobs = 2 }
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: leadersThumbnail), "b.jpg must have led while a.jpg was held")
        let items = try XCTUnwrap(outcome.manifest?.items)
        XCTAssertEqual(items.map(\.id), ["a.jpg", "b.jpg", "c.jpg", "d.jpg"])
        XCTAssertEqual(items.map(\.status), [.ok, .duplicate, .ok, .duplicate])
        XCTAssertEqual(items.map(\.duplicateOf), [nil, "a.jpg", nil, "a.jpg"])
        // Every copy has its own thumbnail, with the same bytes.
        let thumbnails = try ["a", "b", "d"].map { try Data(contentsOf: URL(fileURLWithPath: out + "/256/\($0).jpg")) }
        XCTAssertEqual(Set(thumbnails).count, 1)
        XCTAssertEqual(outcome.statistics?.counts.duplicate, 2)
        XCTAssertEqual(outcome.statistics?.counts.ok, 2)
        // One decode for the three copies, one for c.jpg.
        XCTAssertEqual(outcome.manifest?.run?.decoders?.values.values.reduce(0, +), 2)
    }

    /// The relabelling alone, over records as a window hands them on: the
    /// leader (position 2) finished before two earlier copies. Then again
    /// with the inversions in their SQLite file (`THUMBS_IN_MEMORY_LIMIT=0`).
    func testRecordsAreRelabelledInSourceOrder() throws {
        defer { unsetenv("THUMBS_IN_MEMORY_LIMIT") }
        for onDisk in [false, true] {
            if onDisk { setenv("THUMBS_IN_MEMORY_LIMIT", "0", 1) }
            let folder = root + "/tmp-\(onDisk)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let leaders = SourceOrderLeaders(folder: folder)
            func copy(_ id: String, _ status: ItemStatus, leader: Int?) -> ManifestItem {
                var item = ManifestItem(id: id, source: id, status: status, sha256: "s")
                if status == .duplicate { item.duplicateOf = "l"; item.leaderPosition = leader }
                return item
            }
            var records = [
                copy("f", .duplicate, leader: 2), copy("g", .duplicate, leader: 2), copy("l", .ok, leader: nil),
                copy("h", .duplicate, leader: 2), ManifestItem(id: "x", source: "x", status: .ok, sha256: "t"),
            ]
            for k in records.indices { leaders.relabel(&records[k], position: k) }
            XCTAssertEqual(records.map(\.status), [.ok, .duplicate, .duplicate, .duplicate, .ok], "on disk: \(onDisk)")
            XCTAssertEqual(records.map(\.duplicateOf), [nil, "f", "f", "f", nil], "on disk: \(onDisk)")
            XCTAssertEqual(records.map(\.leaderPosition), [nil, nil, nil, nil, nil])
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).count, onDisk ? 1 : 0)
            leaders.remove()
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), [])
        }
    }
}
