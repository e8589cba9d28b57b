import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Issue 23: the run's items live in a spool file (`SourceItems`), and are
/// named there (`SourceFinaliser`), with the same ids and names as the
/// sets in memory gave, and memory that does not grow with the items.
final class SourceItemsTests: XCTestCase {
    /// A new, empty scratch folder.
    func scratchFolder() -> String {
        let folder = TestImages.temporaryDirectory()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), [])
        return folder
    }

    func spooled(_ items: [SourceItem], in folder: String) throws -> SourceItems {
        let spool = try SourceItems(scratchFolder: folder)
        spool.append(contentsOf: items)
        try spool.finishWriting()
        return spool
    }

    /// Byte for byte, not only `==` (which takes "é" composed or not as one).
    func assertSameBytes(_ got: [SourceItem], _ want: [SourceItem], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(got, want, file: file, line: line)
        for (a, b) in zip(got, want) {
            for (x, y) in [(a.id, b.id), (a.source, b.source), (a.outputName, b.outputName)] {
                XCTAssertEqual(Array(x.utf8), Array(y.utf8), file: file, line: line)
            }
        }
    }

    static let oddNames: [String] = [
        "plain.jpg", "", "line\nbreak.jpg", "tab\tand\rreturn.jpg", "ctl\u{1}\u{7}\u{1B}\u{7F}.png",
        "caf\u{E9}.jpg", "cafe\u{301}.jpg", "\u{212A}elvin.jpg", "日本語/写真.jpg", "emoji 👩‍👩‍👧.heic",
        String(repeating: "long-é-", count: 1500) + ".jpg",  // 12 KB
        "#hash#2", "a/b/../c.jpg",
    ]

    static func items(_ count: Int) -> [SourceItem] {
        (0..<count).map { index in
            let name = oddNames[index % oddNames.count] + "\(index)"
            switch index % 4 {
            case 0:
                return SourceItem(id: name, source: "/photos/" + name, outputName: "out/" + name,
                                  origin: .file(path: "/photos/" + name, size: Int64(index) * 1_000_003, modified: 1.7e9 + Double(index) / 7))
            case 1:
                return SourceItem(id: name, source: "/elsewhere/" + name,
                                  origin: .file(path: "/linked/" + name, size: -1, modified: -0.5))
            case 2:
                return SourceItem(id: name, source: "/photos/" + name, origin: .unreadable(path: "/photos/" + name, reason: "reason\n" + name))
            default:
                let url = "https://example.com/" + name
                let meta = EntryMeta(["download_url": .string(url), "n": .number(Double(index)), "x": .number(0.25),
                                      "t": .string("v\u{0}" + name), "ok": .bool(index % 8 == 3), "none": .null], url: url)
                let other = EntryMeta(["u": .string("https://other.test/" + name)], url: "https://other.test/" + name)
                return SourceItem(id: name, source: url, outputName: name,
                                  origin: .remote(url: url, meta: index % 8 == 3 ? meta : other))
            }
        }
    }

    func testSpoolKeepsEveryByteOfEveryField() throws {
        var items = Self.items(200)
        // A record larger than a read window (128 KB).
        items.append(SourceItem(id: "big", source: "/big", origin: .unreadable(path: "/big", reason: String(repeating: "x", count: 300_000))))
        items += Self.items(60)
        let spool = try spooled(items, in: scratchFolder())
        XCTAssertEqual(spool.count, items.count)
        assertSameBytes(Array(spool), items)
        assertSameBytes(Array(SourceItems(items)), items)
        let metas = spool.compactMap { item -> [String: JSONValue]? in
            if case .remote(_, let meta) = item.origin { return meta.fields } else { return nil }
        }
        XCTAssertEqual(metas[0]["t"], .string("v\u{0}" + Self.oddNames[3] + "3"))
        XCTAssertEqual(metas[0]["download_url"], .string("https://example.com/" + Self.oddNames[3] + "3"))
        XCTAssertEqual(metas[1]["u"], .string("https://other.test/" + Self.oddNames[7] + "7"))
    }

    func testRandomAccessAndTwoCursorsReadTheSameItems() throws {
        let items = Self.items(5000)
        let spool = try spooled(items, in: scratchFolder())
        var generator = SplitMix64(state: 23)
        for _ in 0..<2000 {
            let index = Int.random(in: 0..<items.count, using: &generator)
            XCTAssertEqual(spool[index], items[index])
            XCTAssertEqual(Array(spool.id(at: index).utf8), Array(items[index].id.utf8))
        }
        // The run's two cursors: the next item to start, the next to write.
        var ahead = 0, behind = 0
        while behind < items.count {
            if ahead < items.count {
                XCTAssertEqual(spool[ahead], items[ahead])
                ahead += 1
            }
            if ahead > 3000 || ahead == items.count {
                XCTAssertEqual(spool[behind], items[behind])
                behind += 1
            }
        }
        XCTAssertEqual(Array(spool.lazy.map(\.id)), items.map(\.id))
        XCTAssertEqual(spool.reversed().map(\.id), items.reversed().map(\.id))
    }

    func testTheSpoolFileNeverStaysInTheScratchFolder() throws {
        let folder = scratchFolder()
        let descriptors = { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1 }
        let before = descriptors()
        do {
            let spool = try spooled(Self.items(3000), in: folder)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), [], "unlinked at once: a kill leaves nothing")
            XCTAssertEqual(descriptors(), before + 1, "the file lives on by its descriptor")
            XCTAssertEqual(spool[2999].id, Self.items(3000)[2999].id)
            let named = try SourceFinaliser.finalise(spool)
            XCTAssertEqual(named.items.count, 3000)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), [], "no database or spool left")
        }
        XCTAssertEqual(descriptors(), before, "closed when the items go")
    }

    func testAScratchFolderThatCannotBeWrittenIsAnError() throws {
        let folder = scratchFolder() + "/missing"
        XCTAssertThrowsError(try SourceItems(scratchFolder: folder)) { error in
            XCTAssertTrue("\(error)".contains(folder), "\(error)")
        }
    }
}


/// `SourceFinaliser` over a spool: the ids and names written out by hand.
final class SpooledNamingTests: XCTestCase {
    func file(_ id: String, size: Int64 = 1) -> SourceItem {
        SourceItem(id: id, source: "/in/" + id, origin: .file(path: "/in/" + id, size: size, modified: 0))
    }

    func remote(_ id: String) -> SourceItem {
        SourceItem(id: id, source: "https://x.test/" + id, origin: .remote(url: "https://x.test/" + id, meta: .empty))
    }

    func finalised(_ items: [SourceItem], shard: Shard? = nil) throws -> SourceFinaliser.Finalised {
        let folder = TestImages.temporaryDirectory()
        let spool = try SourceItems(scratchFolder: folder)
        spool.append(contentsOf: items)
        try spool.finishWriting()
        return try SourceFinaliser.finalise(spool, shard: shard)
    }

    func names(_ items: [SourceItem]) throws -> [[UInt8]] {
        try finalised(items).items.map { Array($0.outputName.utf8) }
    }

    func ids(_ items: [SourceItem]) throws -> [[UInt8]] {
        try finalised(items).items.map { Array($0.id.utf8) }
    }

    func bytes(_ texts: [String]) -> [[UInt8]] { texts.map { Array($0.utf8) } }

    func testSameStemDifferentExtensionAndCase() throws {
        XCTAssertEqual(try names([file("a.jpg"), file("a.png"), file("A.JPG")]), bytes(["a", "a_png", "A_jpg"]))
        XCTAssertEqual(try names([file("x.jpg"), file("x.jpg"), file("x.png"), file("x.jpg")]), bytes(["x", "x_jpg", "x_png", "x_jpg_2"]))
    }

    func testAFileAndAFolderOfItsOutputName() throws {
        XCTAssertEqual(try names([file("a.png"), file("a.jpg/b.jpg"), file("a.jpg/c.jpg"), file("a.jpg/d/e.jpg")]),
                       bytes(["a", "a.jpg_dir/b", "a.jpg_dir/c", "a.jpg_dir/d/e"]))
        XCTAssertEqual(try names([file("a.jpg/b.jpg"), file("a.png")]), bytes(["a.jpg/b", "a_png"]))
        // The folder's renaming holds for its items that come later, past others.
        XCTAssertEqual(try names([file("a.png"), file("a.jpg/b.jpg"), file("z/y.jpg"), file("a.jpg/c.jpg")]),
                       bytes(["a", "a.jpg_dir/b", "z/y", "a.jpg_dir/c"]))
    }

    func testRepeatedIdsTakeTheFirstFreeSuffix() throws {
        XCTAssertEqual(try ids([remote("dup"), remote("dup"), remote("dup#2")]), bytes(["dup", "dup#3", "dup#2"]))
        XCTAssertEqual(try ids([remote("a#2"), remote("a"), remote("a"), remote("a#2")]), bytes(["a#2", "a", "a#3", "a#2#2"]))
        // The ids keep their '#'; the names map it to '_' (a web server
        // reads '#' as a fragment: issue 39).
        XCTAssertEqual(try names([remote("dup"), remote("dup"), remote("dup#2")]), bytes(["dup", "dup_3", "dup_2"]))
        // The same folder given twice: the walk's ids repeat.
        XCTAssertEqual(try ids([file("p/a.jpg"), file("p/b.jpg"), file("p/a.jpg"), file("p/b.jpg")]),
                       bytes(["p/a.jpg", "p/b.jpg", "p/a.jpg#2", "p/b.jpg#2"]))
    }

    func testCanonicallyEqualStringsAreOneAsSwiftSetsHadThem() throws {
        // "é" composed and decomposed, the Kelvin sign and "K": equal under
        // Swift's `==`, so they were one element of the former sets.
        XCTAssertEqual(try ids([remote("caf\u{E9}"), remote("cafe\u{301}")]), bytes(["caf\u{E9}", "cafe\u{301}#2"]))
        XCTAssertEqual(try ids([remote("K"), remote("\u{212A}")]), bytes(["K", "\u{212A}#2"]))
        XCTAssertEqual(OutputNamer.assign(stems: ["caf\u{E9}", "cafe\u{301}"], extensions: ["jpg", "png"]).map { Array($0.utf8) },
                       bytes(["caf\u{E9}", "cafe\u{301}_png"]))
    }

    func testShardKeepsItsItemsAndTheWholeOrder() throws {
        let items = (0..<200).map { file("d\($0 % 7)/p\($0).jpg", size: Int64($0 % 50)) }
        var seen: [String] = []
        var orders = Set<String>()
        for index in 0..<3 {
            let shard = try XCTUnwrap(Shard(index: index, count: 3))
            let result = try finalised(items, shard: shard)
            try result.shardOrder?.finishWriting()
            orders.insert(try XCTUnwrap(result.shardOrder?.text))
            XCTAssertTrue(result.items.allSatisfy { ShardPartition.shard(of: $0.id, count: 3) == index })
            seen += result.items.map(\.id)
        }
        XCTAssertEqual(Set(seen), Set(items.map(\.id)))
        XCTAssertEqual(seen.count, items.count)
        XCTAssertEqual(orders.count, 1, "every shard writes the same order")
        let order = try XCTUnwrap(orders.first).split(separator: ",")
        XCTAssertEqual(order.count, 200)
        XCTAssertEqual(order.first.map(String.init), String(ShardPartition.shard(of: "d0/p0.jpg", count: 3)))
    }

    func testSharedSizes() throws {
        let items = [5, 7, 5, 9, 9, 9, 1].enumerated().map { file("f\($0.offset).jpg", size: Int64($0.element)) }
        XCTAssertEqual(try finalised(items).sharedSizes, [5, 9])
        XCTAssertEqual(try finalised([remote("a"), remote("b")]).sharedSizes, [])
        XCTAssertEqual(try finalised([file("a", size: 8), file("b", size: 3), file("c", size: 3)]).sharedSizes, [3])
    }
}
