import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// A final name only ever holds a complete file: written whole, replaced
/// whole, never written through a link, and no temporary file left behind.
final class AtomicFileTests: TemporaryFolderTestCase {
    var temporary: String { root + "/tmp" }
    let fm = FileManager.default

    override func setUp() {
        super.setUp()
        try? fm.createDirectory(atPath: temporary, withIntermediateDirectories: true)
    }

    private func contents(_ path: String) -> String? {
        fm.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Emits `text` through `emit` (typed throws all the way).
    private func emitText(_ text: String, _ emit: (UnsafeRawBufferPointer) throws(ItemError) -> Void) throws(ItemError) {
        var failure: ItemError?
        Array(text.utf8).withUnsafeBytes { raw in
            do throws(ItemError) { try emit(raw) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    private func leftovers() -> [String] {
        (try? fm.contentsOfDirectory(atPath: temporary)) ?? ["<tmp is gone>"]
    }

    func testWriteCreatesFoldersAndReplacesWhole() throws {
        let file = AtomicFile(temporaryDirectory: temporary, synchronise: false)
        let path = root + "/a/b/c.txt"
        try file.write(Data("first".utf8), to: path)
        XCTAssertEqual(contents(path), "first")
        try file.write(Data("second, longer".utf8), to: path)
        XCTAssertEqual(contents(path), "second, longer")
        try file.write(Data(), to: root + "/empty")
        XCTAssertEqual(contents(root + "/empty"), "")
        XCTAssertEqual(leftovers(), [])
    }

    func testChunksAreWrittenInOrder() throws {
        let file = AtomicFile(temporaryDirectory: temporary, root: root)
        let chunks = (0..<50).map { "chunk \($0);" }
        try file.write(to: root + "/out/chunks.txt") { (emit: (UnsafeRawBufferPointer) throws(ItemError) -> Void) throws(ItemError) in
            for chunk in chunks { try emitText(chunk, emit) }
        }
        XCTAssertEqual(contents(root + "/out/chunks.txt"), chunks.joined())
        XCTAssertEqual(leftovers(), [])
    }

    func testAFailedProducerLeavesTheOldFileAndNoTemporaryFile() throws {
        let file = AtomicFile(temporaryDirectory: temporary, root: root)
        let path = root + "/kept.txt"
        try file.write(Data("old".utf8), to: path)
        XCTAssertThrowsError(try file.write(to: path) { (emit: (UnsafeRawBufferPointer) throws(ItemError) -> Void) throws(ItemError) in
            try emitText("half of the new", emit)
            throw ItemError.decode("the producer gave up")
        }) { error in
            XCTAssertEqual(error as? ItemError, .decode("the producer gave up"))
        }
        XCTAssertEqual(contents(path), "old")
        XCTAssertEqual(leftovers(), [])
    }

    func testALinkAtTheFinalNameIsReplacedNotWrittenThrough() throws {
        let victim = root + "/victim.txt"
        try Data("precious".utf8).write(to: URL(fileURLWithPath: victim))
        let out = root + "/out"
        try fm.createDirectory(atPath: out, withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: out + "/link.txt", withDestinationPath: victim)
        try AtomicFile(temporaryDirectory: temporary, root: out).write(Data("new".utf8), to: out + "/link.txt")
        XCTAssertEqual(contents(victim), "precious")
        XCTAssertEqual(contents(out + "/link.txt"), "new")
        XCTAssertNil(try? fm.destinationOfSymbolicLink(atPath: out + "/link.txt"), "the link itself was replaced")
    }

    func testAFolderLinkedOutsideRootFailsTheWrite() throws {
        let out = root + "/out", outside = root + "/outside"
        try fm.createDirectory(atPath: out, withIntermediateDirectories: true)
        try fm.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: out + "/256", withDestinationPath: outside)
        XCTAssertThrowsError(try AtomicFile(temporaryDirectory: temporary, root: out).write(Data("x".utf8), to: out + "/256/a.jpg")) { error in
            XCTAssertEqual((error as? ItemError)?.code, .io)
            XCTAssertTrue((error as? ItemError)?.message.contains(out + "/256/a.jpg") == true, "\(error)")
        }
        XCTAssertEqual(try fm.contentsOfDirectory(atPath: outside), [], "nothing written through the link")
        XCTAssertEqual(leftovers(), [])
    }

    func testAMissingTemporaryFolderIsAnIOError() {
        let file = AtomicFile(temporaryDirectory: root + "/no-such-folder")
        XCTAssertThrowsError(try file.write(Data("x".utf8), to: root + "/x")) { error in
            XCTAssertEqual((error as? ItemError)?.code, .io)
            XCTAssertTrue((error as? ItemError)?.message.hasPrefix("cannot write \(root)/x: ") == true, "\(error)")
        }
        XCTAssertFalse(fm.fileExists(atPath: root + "/x"))
    }

    /// File flushed, renamed, then its folder flushed (SQLite's and
    /// PostgreSQL's order): until the folder is flushed a power cut can undo
    /// the rename, and whatever relies on the new name must come after. A
    /// folder created inside OUT for it has its parent flushed before the
    /// rename (issue 39), or a power cut can lose the folder and the file.
    func testTheFolderIsFlushedAfterTheRename() throws {
        let out = root + "/out"
        try fm.createDirectory(atPath: out, withIntermediateDirectories: true)
        let steps = DurableStepLog(under: root)
        defer { steps.stop() }
        try AtomicFile(temporaryDirectory: temporary, root: out).write(Data("a".utf8), to: out + "/256/a.jpg")
        try AtomicFile(temporaryDirectory: temporary).write(Data("b".utf8), to: root + "/plain/b.txt")
        let recorded = steps.steps
        XCTAssertEqual(recorded.count, 7, "\(recorded)")
        guard recorded.count == 7 else { return }
        let writes = [(out + "/256/a.jpg", out + "/256", Array(recorded[0..<4])), (root + "/plain/b.txt", root + "/plain", Array(recorded[4..<7]))]
        for (final, folder, write) in writes {
            guard case .synchronise(let temp) = write[0] else { return XCTFail("the file is flushed first: \(write)") }
            XCTAssertTrue(temp.hasPrefix(temporary + "/"), temp)
            XCTAssertEqual(write[write.count - 2], .rename(temp, final))
            XCTAssertEqual(write[write.count - 1], .synchronise(folder), "the folder is flushed after the rename")
        }
        XCTAssertEqual(recorded[1], .synchronise(out), "out/256 was made: out is flushed before the rename into it")
        XCTAssertEqual(contents(out + "/256/a.jpg"), "a")
    }
}

/// The durable steps (`DurableSteps`) taken under a folder while it
/// watches, in order.
final class DurableStepLog: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [DurableSteps.Step] = []
    private let prefix: String

    init(under folder: String) {
        prefix = URL(fileURLWithPath: folder).resolvingSymlinksInPath().path + "/"
        DurableSteps.watch { [self] step in
            let paths: [String]
            switch step {
            case .synchronise(let path), .remove(let path): paths = [path]
            case .rename(let from, let to): paths = [from, to]
            }
            guard paths.contains(where: { $0.hasPrefix(prefix) }) else { return }
            lock.withLock { list.append(step) }
        }
    }

    var steps: [DurableSteps.Step] { lock.withLock { list } }

    func stop() { DurableSteps.watch(nil) }
}
