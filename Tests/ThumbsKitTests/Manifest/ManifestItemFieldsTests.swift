import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// `ManifestItemDecoder` read for some fields only (`Fields`): each caller
/// gets the fields it asks for exactly as a whole read gives them, and the
/// others empty; and the id of an item line, read without the rest.
final class ManifestItemFieldsTests: XCTestCase {
    /// Every field alone, and the sets the callers ask for: the merge's
    /// check pass, the report's tiles, the run's group members, the journal's ids.
    private static let sets: [(String, ManifestItemDecoder.Fields)] = [
        ("sha256", .sha256), ("bytes", .bytes), ("format", .format), ("size", .size), ("outputs", .outputs),
        ("duplicateOf", .duplicateOf), ("placeholder", .placeholder), ("color", .color), ("phash", .phash),
        ("similarTo", .similarTo), ("video", .video), ("download", .download), ("meta", .meta), ("warnings", .warnings),
        ("error", .error), ("ms", .ms), ("modified", .modified), ("none", []),
        ("merge check", [.sha256, .outputs, .phash, .download]), ("report tiles", ReportItems.tileFields), ("all", .all),
    ]

    func testEachFieldReadsAsTheWholeItemHasIt() throws {
        var random = RandomItems(seed: 34)
        for n in 0..<500 {
            let item = RandomItems.asWritten(random.item())
            let line = ManifestItemDecoderTests.line(item)
            for (name, fields) in Self.sets {
                let read = try XCTUnwrap(ManifestItemDecoder.decode(line, fields: fields), "item \(n), \(name)")
                XCTAssertEqual(read, Self.only(fields, of: item), "item \(n), \(name): \(String(decoding: line, as: UTF8.self))")
            }
        }
    }

    /// The id of a manifest.json line, and where its object lies, without
    /// the indent and the comma; escapes undone; nil when the object does
    /// not start with its id.
    func testTheIdOfAnItemLine() throws {
        var random = RandomItems(seed: 35)
        for n in 0..<300 {
            let item = RandomItems.asWritten(random.item())
            let object = ManifestItemDecoderTests.line(item)
            for (indent, comma) in [("    ", ","), ("    ", ""), ("", "")] {
                let line = Array(indent.utf8) + object + Array(comma.utf8)
                let found = try XCTUnwrap(line.withUnsafeBytes { ManifestItemDecoder.itemObject(in: $0) }, "item \(n)")
                XCTAssertEqual(found.id, item.id, "item \(n)")
                XCTAssertEqual(Array(line[found.start..<(found.start + found.length)]), object, "item \(n)")
            }
        }
        let escaped = Array(#"    {"id": "a\"b\u00e9\/c", "source": "s"},"#.utf8)
        XCTAssertEqual(escaped.withUnsafeBytes { ManifestItemDecoder.itemObject(in: $0) }?.id, "a\"bé/c")
        for other in [#"{"source": "s", "id": "a"}"#, #"["id", "a"]"#, #"{"id": 5}"#, #"{"id": "a"#, ""] {
            XCTAssertNil(Array(other.utf8).withUnsafeBytes { ManifestItemDecoder.itemObject(in: $0) }, other)
        }
    }

    /// `item` with only `fields` besides its id, source and status, the
    /// others as a partial read leaves them.
    static func only(_ fields: ManifestItemDecoder.Fields, of item: ManifestItem) -> ManifestItem {
        var part = ManifestItem(id: item.id, source: item.source, status: item.status, ms: fields.contains(.ms) ? item.ms : 0)
        if fields.contains(.sha256) { part.sha256 = item.sha256 }
        if fields.contains(.bytes) { part.bytes = item.bytes }
        if fields.contains(.format) { part.format = item.format }
        if fields.contains(.size) { (part.width, part.height, part.orientation) = (item.width, item.height, item.orientation) }
        if fields.contains(.outputs) { part.outputs = item.outputs }
        if fields.contains(.duplicateOf) { part.duplicateOf = item.duplicateOf }
        if fields.contains(.placeholder) { part.placeholder = item.placeholder }
        if fields.contains(.color) { part.color = item.color }
        if fields.contains(.phash) { part.phash = item.phash }
        if fields.contains(.similarTo) { part.similarTo = item.similarTo }
        if fields.contains(.video) { part.video = item.video }
        if fields.contains(.download) { part.download = item.download }
        if fields.contains(.meta) { part.meta = item.meta }
        if fields.contains(.warnings) { part.warnings = item.warnings }
        if fields.contains(.error) { part.error = item.error }
        if fields.contains(.modified) { part.modified = item.modified }
        return part
    }
}
