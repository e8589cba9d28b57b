import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// `--shard I/N` then `thumbs merge` against one run over the same folder.
final class ShardMergeTests: XCTestCase {
    private func configure(_ options: inout RunOptions) {
        options.output.sizes = [ThumbSize(width: 32, height: 32), ThumbSize(parsing: "48x24")!]
        options.maxFailures = .count(100)
    }

    func testFourShardsMergedEqualOneRun() async throws {
        let root = TestImages.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let photos = root + "/photos"
        let copyID = try ShardFixture.makeFolder(photos)

        let single = try await runThumbs([photos], out: root + "/single", configure: configure)
        let shardOuts = try await ShardFixture.runShards([photos], count: 4, into: root, configure: configure)
        let shardManifests = try shardOuts.map(readManifest)

        // The partition: every item of the single run in exactly one shard,
        // and in the shard its id hashes to.
        let singleManifest = try XCTUnwrap(single.manifest)
        XCTAssertEqual(singleManifest.items.count, 20)
        for item in singleManifest.items {
            let holders = shardManifests.indices.filter { shardManifests[$0].items.contains { $0.id == item.id } }
            XCTAssertEqual(holders, [ShardPartition.shard(of: item.id, count: 4)], item.id)
        }
        XCTAssertEqual(shardManifests.map(\.shard), (0..<4).map { Shard(index: $0, count: 4) })
        XCTAssertEqual(shardManifests.map { $0.items.count }.reduce(0, +), 20)

        let merged = try ThumbsMerge(manifests: shardOuts.map { $0 + "/manifest.json" }, outputDirectory: root + "/merged").run()
        let written = try readManifest(root + "/merged")
        var header = written
        header.items = []
        XCTAssertEqual(header, merged.header)
        XCTAssertNil(written.shard)

        // Same items in the same order, same statuses, same outputs.
        XCTAssertEqual(written.items.map(\.id), singleManifest.items.map(\.id))
        XCTAssertEqual(written.items.map(\.status), singleManifest.items.map(\.status))
        XCTAssertEqual(written.items.map(\.duplicateOf), singleManifest.items.map(\.duplicateOf))
        XCTAssertEqual(written.items.map(\.sha256), singleManifest.items.map(\.sha256))
        XCTAssertEqual(written.items.map { $0.error?.code }, singleManifest.items.map { $0.error?.code })
        XCTAssertEqual(written.item(copyID)?.status, .duplicate)
        XCTAssertEqual(written.item(copyID)?.duplicateOf, "a.jpg")
        XCTAssertNotEqual(ShardPartition.shard(of: copyID, count: 4), ShardPartition.shard(of: "a.jpg", count: 4))
        for (mergedItem, singleItem) in zip(written.items, singleManifest.items) {
            XCTAssertEqual(mergedItem.outputs.count, singleItem.outputs.count, mergedItem.id)
            for (m, s) in zip(mergedItem.outputs, singleItem.outputs) {
                XCTAssertEqual([m.size, m.format, m.sha256], [s.size, s.format, s.sha256], mergedItem.id)
                XCTAssertEqual([m.width, m.height], [s.width, s.height], mergedItem.id)
                XCTAssertEqual(m.bytes, s.bytes, mergedItem.id)
                // Referenced where it lies: relative to the merged folder.
                XCTAssertTrue(m.path.hasPrefix("../shard-"), m.path)
                XCTAssertTrue(m.path.hasSuffix("/" + s.path), m.path)
                XCTAssertEqual(ShardFixture.sha256(ofFile: root + "/merged/" + m.path), s.sha256, m.path)
            }
        }

        // Same statistics, timings aside.
        let stats = try JSONDecoder().decode(Statistics.self, from: Data(contentsOf: URL(fileURLWithPath: root + "/merged/stats.json")))
        let singleStats = try XCTUnwrap(single.statistics)
        XCTAssertEqual(stats, merged.statistics)
        XCTAssertEqual(stats.counts, singleStats.counts)
        XCTAssertEqual(stats.counts.ignored, 1)
        XCTAssertEqual(stats.counts.duplicate, 1)
        XCTAssertEqual(stats.counts.failed, 1)
        XCTAssertEqual(stats.dimensions, singleStats.dimensions)
        XCTAssertEqual(stats.formats, singleStats.formats)
        XCTAssertEqual(stats.bytes, singleStats.bytes)
        XCTAssertEqual(stats.downloads, singleStats.downloads)
        XCTAssertEqual(stats.time.wallSeconds, shardManifests.compactMap { $0.run?.wallSeconds }.max())
        XCTAssertEqual(written.startedAt, shardManifests.map(\.startedAt).min())
        XCTAssertEqual(written.finishedAt, shardManifests.map(\.finishedAt).max())

        try assertReportLinksResolve(root + "/merged")
    }

    /// The contract, on what a sorted folder cannot show: two folders given
    /// out of sorted order, a photo list between them whose entries are in
    /// neither sorted nor natural order (loopback server), and one image
    /// file. The merge of 3 shards has the items of one run over the same
    /// sources, in the same order, with the same outputs: compared with the
    /// single run, whatever order a run gives its sources.
    func testSourcesOutOfOrderWithAListMergedEqualOneRun() async throws {
        let root = TestImages.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        for (index, name) in ["1.jpg", "b.png", "sub/3.jpg", "z.jpg"].enumerated() {
            TestImages.write(root + "/zeta/" + name, width: 40 + index * 7, height: 30)
            TestImages.write(root + "/alpha/" + name, width: 30, height: 44 + index * 5)
        }
        TestImages.write(root + "/single.jpg", width: 50, height: 50)
        let listIDs = ["Xk2", "b7", "10", "9", "a", "Q", "2", "m_1"]
        let images = ImageStore()
        let base = BaseBox()
        let server = try await TestHTTPServer.start { request in
            if request.path == "/list.json" {
                let entries = listIDs.enumerated().map { "{\"id\": \"\($1)\", \"download_url\": \"\(base.value)/img/\($0).jpg\"}" }
                return .json("[" + entries.joined(separator: ",") + "]")
            }
            if request.path.hasPrefix("/img/"), let index = Int(request.path.dropFirst(5).dropLast(4)) {
                return .image(images.jpeg(width: 36 + index * 4, height: 28 + index))
            }
            return .notFound
        }
        base.value = server.base
        addTeardownBlock { await server.stop() }

        let sources = [root + "/zeta", server.base + "/list.json", root + "/single.jpg", root + "/alpha"]
        let single = try await runThumbs(sources, out: root + "/single-run", configure: configure)
        let singleItems = try XCTUnwrap(single.manifest).items
        XCTAssertEqual(singleItems.count, 17)
        XCTAssertEqual(Set(singleItems.map(\.status)), [.ok])
        let shardOuts = try await ShardFixture.runShards(sources, count: 3, into: root, configure: configure)
        let merged = try ThumbsMerge(manifests: shardOuts, outputDirectory: root + "/merged").run()
        let written = try readManifest(root + "/merged")
        var header = written
        header.items = []
        XCTAssertEqual(header, merged.header)

        XCTAssertEqual(written.items.map(\.id), singleItems.map(\.id))
        XCTAssertEqual(written.items.map(\.source), singleItems.map(\.source))
        XCTAssertEqual(written.items.map(\.status), singleItems.map(\.status))
        XCTAssertEqual(written.items.map(\.sha256), singleItems.map(\.sha256))
        XCTAssertEqual(written.items.map { $0.outputs.map(\.sha256) }, singleItems.map { $0.outputs.map(\.sha256) })
        XCTAssertEqual(written.items.map { $0.outputs.map { ($0.path as NSString).lastPathComponent } },
                       singleItems.map { $0.outputs.map { ($0.path as NSString).lastPathComponent } })
        // The list kept its own order within the run.
        let listed = written.items.filter { $0.download != nil }.map(\.id)
        XCTAssertEqual(listed, listIDs)
    }

    func testCopyPutsRealFilesUnderOut() async throws {
        let root = TestImages.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let photos = root + "/photos"
        ShardFixture.makeSmallFolder(photos)
        let single = try await runThumbs([photos], out: root + "/single", configure: configure)
        let shardOuts = try await ShardFixture.runShards([photos], count: 3, into: root, configure: configure)

        // Folders stand for their manifest.json.
        let outcome = try ThumbsMerge(manifests: shardOuts, outputDirectory: root + "/merged", copy: true).run()
        XCTAssertEqual(outcome.copiedFiles, 12)
        let merged = try readManifest(root + "/merged")
        let singleItems = try XCTUnwrap(single.manifest).items
        XCTAssertEqual(merged.items.map(\.id), singleItems.map(\.id))
        XCTAssertEqual(merged.items.flatMap { $0.outputs.map(\.path) }, singleItems.flatMap { $0.outputs.map(\.path) })
        for output in merged.items.flatMap(\.outputs) {
            let path = root + "/merged/" + output.path
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            XCTAssertEqual(attributes[.type] as? FileAttributeType, .typeRegular, path)
            XCTAssertEqual(ShardFixture.sha256(ofFile: path), output.sha256, path)
            // On one volume a hard link to the checked file: no extra space.
            XCTAssertGreaterThanOrEqual(attributes[.referenceCount] as? Int ?? 0, 2, path)
        }
        // The shards can go; the merged folder stands alone.
        for out in shardOuts { try FileManager.default.removeItem(atPath: out) }
        for output in merged.items.flatMap(\.outputs) {
            XCTAssertEqual(ShardFixture.sha256(ofFile: root + "/merged/" + output.path), output.sha256)
        }
        try assertReportLinksResolve(root + "/merged")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: root + "/merged/.thumbs/tmp")
        XCTAssertEqual(leftovers, [])
    }

    /// Every `src` and `href` of the report that is not an anchor or a data
    /// URL names a file that exists relative to the report's folder.
    private func assertReportLinksResolve(_ out: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let html = try String(contentsOfFile: out + "/report.html", encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"(?:src|href)="([^"]*)""#)
        let matches = pattern.matches(in: html, range: NSRange(html.startIndex..., in: html))
        var images = 0
        for match in matches {
            guard let range = Range(match.range(at: 1), in: html) else { continue }
            let link = String(html[range]).replacingOccurrences(of: "&amp;", with: "&")
            if link.isEmpty || link.hasPrefix("#") || link.hasPrefix("data:") { continue }
            let path = out + "/" + (link.removingPercentEncoding ?? link)
            XCTAssertTrue(FileManager.default.fileExists(atPath: path), "report link \(link) does not resolve", file: file, line: line)
            if let whole = Range(match.range, in: html), html[whole].hasPrefix("src") { images += 1 }
        }
        XCTAssertGreaterThan(images, 0, "the report shows no thumbnail", file: file, line: line)
    }
}
