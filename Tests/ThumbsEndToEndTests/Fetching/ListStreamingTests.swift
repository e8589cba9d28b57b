import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Issue 23: a photo list's entries become items as they are read (a page,
/// or a megabyte of a JSON array file, at a time) and go to a spool file,
/// never all held; the items are the same as when lists were read whole:
/// same order (sources in command-line order), ids, sources and fields.
final class ListStreamingTests: TemporaryFolderTestCase {
    private static let pageSize = 40, fullPages = 5, lastPage = 13
    private static let pagedTotal = fullPages * pageSize + lastPage

    /// Entry k (from 1) of a list: an id and a URL; every 7th has no id
    /// (named by its URL's last segment); every 11th has neither id nor URL
    /// (named `entry-k`, its source `LIST#k`). `tag` tells lists apart.
    private static func entryJSON(_ k: Int, tag: String, base: String) -> String {
        let url = "\(base)/img/\(tag)-\(k).jpg"
        if k % 11 == 0 { return "{\"author\": \"A\(k)\"}" }
        if k % 7 == 0 { return "{\"author\": \"A\(k)\", \"download_url\": \"\(url)\"}" }
        return "{\"id\": \"\(tag)\(k)\", \"author\": \"A\(k)\", \"download_url\": \"\(url)\"}"
    }

    /// What entry k of the list at `list` becomes: id, source, URL, author.
    private static func expected(_ k: Int, tag: String, list: String, base: String) -> [String] {
        let url = "\(base)/img/\(tag)-\(k).jpg"
        if k % 11 == 0 { return ["entry-\(k)", "\(list)#\(k)", "", "A\(k)"] }
        if k % 7 == 0 { return ["\(tag)-\(k).jpg", url, url, "A\(k)"] }
        return ["\(tag)\(k)", url, url, "A\(k)"]
    }

    private static func described(_ item: SourceItem) -> [String] {
        guard case .remote(let url, let meta) = item.origin else { return [item.id, item.source, "not remote"] }
        return [item.id, item.source, url, meta.fields["author"]?.stringValue ?? "-"]
    }

    /// `/paged?page=N`: pages of `pageSize` entries, each with a `next`
    /// link, the last one short. `seen(page)` is called as a page is asked for.
    private func startPagedServer(seen: @escaping @Sendable (Int) -> Void = { _ in }) async throws -> TestHTTPServer {
        let base = BaseBox()
        let server = try await TestHTTPServer.start { request in
            guard request.path == "/paged", let page = Int(request.query["page"] ?? "") else { return .notFound }
            seen(page)
            let first = (page - 1) * Self.pageSize + 1
            let last = min(page * Self.pageSize, Self.pagedTotal)
            let entries = first <= last ? (first...last).map { Self.entryJSON($0, tag: "p", base: base.value) } : []
            return .json("[" + entries.joined(separator: ",") + "]",
                         headers: [("Link", "<\(base.value)/paged?page=\(page + 1)>; rel=\"next\"")])
        }
        base.value = server.base
        addTeardownBlock { await server.stop() }
        return server
    }

    private func dryRunOptions(_ sources: [String]) -> RunOptions {
        var options = RunOptions(sources: sources, outputDirectory: root + "/out")
        options.timeout = 5
        options.dryRun = true  // no prefetching: the server answers lists only
        return options
    }

    /// While page N is asked for, the items of pages 1…N-1 are already in
    /// the spool: the list is not gathered before it is written.
    func testAPagedListIsWrittenToTheSpoolPageByPage() async throws {
        let items = try SourceItems(scratchFolder: root)
        let heldAtPage = Locked<[Int: Int]>([:])
        let server = try await startPagedServer { page in heldAtPage.withLock { $0[page] = items.count } }
        let list = "\(server.base)/paged?page=1"
        let resolved = try await ListSources.resolve(
            [list], options: dryRunOptions([list]), console: .silent, standardInput: { Data() },
            into: items, scratchFolder: root)
        _ = await resolved.counters()
        try items.finishWriting()

        let pages = Self.fullPages + 1
        XCTAssertEqual(heldAtPage.withLock { $0 }, Dictionary(uniqueKeysWithValues: (1...pages).map { ($0, ($0 - 1) * Self.pageSize) }),
                       "items in the spool when each page was asked for")
        XCTAssertEqual(resolved.counts, [Self.pagedTotal])
        XCTAssertTrue(resolved.separate.isEmpty)
        XCTAssertEqual(items.map(Self.described), (1...Self.pagedTotal).map { Self.expected($0, tag: "p", list: list, base: server.base) })
    }

    /// Lists (a JSON array file of several megabytes, a paged URL, a text
    /// file) and folders interleaved: the items come in command-line order,
    /// each list's entries in list order, with their ids, sources and
    /// fields, and a repeated id made unique as before.
    func testListsAndFoldersInterleavedKeepOrderIdsAndSources() async throws {
        let server = try await startPagedServer()
        TestImages.write(root + "/first/a.jpg", width: 64, height: 48)
        TestImages.write(root + "/first/b.jpg", width: 64, height: 48)
        TestImages.write(root + "/last/z.jpg", width: 64, height: 48)
        let big = root + "/big.json", fileEntries = 30_000
        let padding = String(repeating: "x", count: 60)  // ~3 MB: several reads of a megabyte
        let objects = (1...fileEntries).map { k in
            Self.entryJSON(k, tag: "f", base: server.base).dropLast() + ", \"note\": \"\(padding)\"}"
        }
        try Data(("[" + objects.joined(separator: ",\n") + "]").utf8).write(to: URL(fileURLWithPath: big))
        let text = root + "/urls.txt"
        try "\(server.base)/img/t/p1\n\(server.base)/img/t/dup\n".write(toFile: text, atomically: true, encoding: .utf8)
        let paged = "\(server.base)/paged?page=1"

        let sources = [root + "/first", big, paged, root + "/last", text]
        let scratch = root + "/scratch"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let discovery = RunDiscovery(options: dryRunOptions(sources), console: .silent, interrupt: InterruptSignal())
        let discovered = try await discovery.discover(scratchFolder: scratch)
        _ = await discovered.downloadCounters?()

        var expected = [["first/a.jpg"], ["first/b.jpg"]]
        expected += (1...fileEntries).map { Self.expected($0, tag: "f", list: big, base: server.base) }
        // `entry-11`… are ids the file list has already: the paged list's get `#2`.
        expected += (1...Self.pagedTotal).map { k in
            var item = Self.expected(k, tag: "p", list: paged, base: server.base)
            if k % 11 == 0 { item[0] += "#2" }
            return item
        }
        expected += [["last/z.jpg"]]
        // `p1` is an id the paged list has already: the second is `p1#2`.
        expected += [["p1#2", "\(server.base)/img/t/p1", "\(server.base)/img/t/p1", "-"],
                     ["dup", "\(server.base)/img/t/dup", "\(server.base)/img/t/dup", "-"]]
        let items = discovered.items
        XCTAssertEqual(items.count, expected.count)
        let got = items.map { item -> [String] in
            if case .file = item.origin { return [item.id] }
            return Self.described(item)
        }
        XCTAssertEqual(got.count, expected.count)
        for (index, (a, b)) in zip(got, expected).enumerated() where a != b {
            XCTFail("item \(index): \(a) is not \(b)")
            break
        }
        XCTAssertEqual(Set(items.map(\.outputName)).count, items.count, "output names are unique")
        if case .remote(_, let meta) = items[2].origin {
            XCTAssertEqual(meta.fields["note"], .string(padding), "every field of an entry is kept")
        } else {
            XCTFail("item 2 is not the list's first entry")
        }
    }

    /// A JSON array file reaches ListSources a megabyte at a time, in
    /// order; one whose end is broken fails with the parser's message, and
    /// the run stops (its first entries were handed on, not used).
    func testAListFileIsHandedOnAsItIsReadAndABrokenOneFails() async throws {
        let path = root + "/list.json", count = 40_000
        let objects = (1...count).map { "{\"id\": \"e\($0)\", \"download_url\": \"https://example.com/\($0).jpg\"}" }
        try Data(("[" + objects.joined(separator: ",") + "]").utf8).write(to: URL(fileURLWithPath: path))
        let options = dryRunOptions([path])
        let session = try HTTPSession(options: options, console: .silent, interrupt: InterruptSignal())
        let reader = ListReader(session: session, urlField: nil, maxPages: nil, console: .silent)
        var batches: [[String]] = []
        let content = try await reader.read(path, standardInput: { Data() }) { entries in batches.append(entries.compactMap(\.id)) }
        guard case .entries(let read, nil) = content else { return XCTFail("\(content)") }
        XCTAssertEqual(read, count)
        XCTAssertEqual(batches.flatMap { $0 }, (1...count).map { "e\($0)" })
        XCTAssertGreaterThanOrEqual(batches.count, 3, "a file of \(count) entries (2.4 MB) is handed on in pieces")
        XCTAssertLessThanOrEqual(batches.map(\.count).max() ?? 0, 20_000, "no piece holds most of the list")

        try Data(("[" + objects.joined(separator: ",") + ",{\"id\": }]").utf8).write(to: URL(fileURLWithPath: path))
        do {
            _ = try await reader.read(path, standardInput: { Data() }) { _ in }
            XCTFail("a broken list was read")
        } catch {
            XCTAssertEqual(error.exitCode, .fatal)
            XCTAssertTrue(error.message.hasPrefix("the photo list \(path) does not parse: it is not valid JSON"), error.message)
        }
        _ = await session.finish()
    }
}

/// A value behind a lock, for a test server's handler.
private final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&value) } }
}
