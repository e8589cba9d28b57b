import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// `SpillingStore` answers the same whether an entry lives in its
/// dictionary or in its SQLite file: the same sets, replacements and
/// lookups are run against a store that never spills and one whose limit
/// sends most entries to the file.
final class SpillingStoreTests: XCTestCase {
    private var folder = ""

    override func setUp() {
        super.setUp()
        folder = TestImages.temporaryDirectory()
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: folder)
        super.tearDown()
    }

    /// Sets 50 keys, then replaces every third one (some held in memory,
    /// most in the file), and asks for every key and for keys never set.
    func testBelowAndAboveTheLimitTheAnswersAreTheSame() throws {
        let memory = SpillingStore<String>(path: folder + "/memory.sqlite", limit: 1000)
        let spilled = SpillingStore<String>(path: folder + "/spilled.sqlite", limit: 3)
        let keys = (0..<50).map { "key \($0) \"é\"" }
        for store in [memory, spilled] {
            for (k, key) in keys.enumerated() { try store.set("value \(k)", for: key) }
            for (k, key) in keys.enumerated() where k % 3 == 0 { try store.set("replaced \(k)", for: key) }
        }
        XCTAssertFalse(memory.hasSpilled)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/memory.sqlite"), "a store within its limit makes no file")
        XCTAssertTrue(spilled.hasSpilled)
        XCTAssertEqual(spilled.inMemoryCount, 3, "the entries held when the limit was met stay in memory")
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/spilled.sqlite"))
        for (k, key) in keys.enumerated() {
            let expected = k % 3 == 0 ? "replaced \(k)" : "value \(k)"
            XCTAssertEqual(memory.value(for: key), expected, key)
            XCTAssertEqual(spilled.value(for: key), expected, key)
        }
        for absent in ["key 50 \"é\"", "", "key 1"] {
            XCTAssertNil(memory.value(for: absent))
            XCTAssertNil(spilled.value(for: absent))
            XCTAssertFalse(spilled.contains(absent))
        }
        spilled.remove()
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/spilled.sqlite"), "remove deletes the file")
        XCTAssertNil(spilled.value(for: keys[0]))
    }

    /// Used as a set (`OutputPathIndex`): a key is there or not, in memory
    /// or in the file.
    func testASetAnswersMembershipFromTheFile() throws {
        let paths = SpillingStore<KeyOnly>(path: folder + "/paths.sqlite", limit: 1)
        try paths.set(KeyOnly(), for: "256/a.jpg")
        try paths.set(KeyOnly(), for: "256/b.jpg")
        try paths.set(KeyOnly(), for: "256/b.jpg")
        XCTAssertTrue(paths.hasSpilled)
        XCTAssertTrue(paths.contains("256/a.jpg"))
        XCTAssertTrue(paths.contains("256/b.jpg"))
        XCTAssertFalse(paths.contains("256/c.jpg"))
    }

    /// A store with no folder never spills, whatever its limit.
    func testAStoreWithNoFolderKeepsEverythingInMemory() throws {
        let store = SpillingStore<String>(path: nil, limit: 0)
        for k in 0..<10 { try store.set("\(k)", for: "k\(k)") }
        XCTAssertFalse(store.hasSpilled)
        XCTAssertEqual(store.inMemoryCount, 10)
        XCTAssertEqual(store.value(for: "k7"), "7")
    }

    /// A file that cannot be made: `set` says so, and the entry is kept in
    /// memory all the same (the registry and the leaders go on with it).
    func testAFileThatCannotBeMadeKeepsTheEntryInMemory() {
        let store = SpillingStore<String>(path: folder + "/missing/folder/store.sqlite", limit: 0)
        XCTAssertThrowsError(try store.set("v", for: "k"))
        XCTAssertFalse(store.hasSpilled)
        XCTAssertEqual(store.value(for: "k"), "v")
    }

    /// A duplicate outcome kept in the file comes back whole (what a
    /// follower copies: info, decoder, signature, outputs, video, error).
    func testAnOutcomeKeptOnDiskComesBackWhole() throws {
        let store = SpillingStore<DuplicateRegistry.Outcome>(path: folder + "/outcomes.sqlite", limit: 0)
        let output = ManifestOutput(size: "256", path: "256/a.jpg", width: 4, height: 3, bytes: 9, format: "jpeg", sha256: "cd")
        let video = VideoFacts(durationSeconds: 3.5, codec: "hevc", fps: 29.97, frameAtSeconds: 1, hdr: "pq")
        var full = DuplicateRegistry.Outcome(
            leaderID: "a.mov", info: SourceImageInfo(format: "mov", width: 1920, height: 1080, orientation: 6), decoder: .video,
            signature: ImageSignature(placeholder: Placeholder(thumbhash: "t", blurhash: "b"), color: "#102030", phash: "8021d40efe7ecc6e"),
            outputs: [output], error: nil, video: video)
        full.leaderPosition = 7
        full.warnings = ["profile"]
        let failed = DuplicateRegistry.Outcome(leaderID: "b.jpg", info: nil, decoder: nil, signature: nil, outputs: [],
                                               error: ItemError(.decode, "truncated"))
        try store.set(full, for: DuplicateRegistryTests.digest("full").hex)
        try store.set(failed, for: DuplicateRegistryTests.digest("failed").hex)
        XCTAssertEqual(store.spilledCount, 2)
        let back = try XCTUnwrap(store.value(for: DuplicateRegistryTests.digest("full").hex))
        XCTAssertEqual(back.leaderID, "a.mov")
        XCTAssertEqual(back.leaderPosition, 7)
        XCTAssertEqual(back.info, full.info)
        XCTAssertEqual(back.decoder, .video)
        XCTAssertEqual(back.signature, full.signature)
        XCTAssertEqual(back.outputs, [output])
        XCTAssertEqual(back.video, video)
        XCTAssertEqual(back.warnings, ["profile"])
        XCTAssertNil(back.error)
        let error = try XCTUnwrap(store.value(for: DuplicateRegistryTests.digest("failed").hex)?.error)
        XCTAssertEqual(error.code, .decode)
        XCTAssertEqual(error.message, "truncated")
        XCTAssertNil(store.value(for: DuplicateRegistryTests.digest("other").hex))
    }
}
