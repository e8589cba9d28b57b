import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// The piecewise reading of big JSON arrays gives the same entries as a
/// whole parse, whatever the batch and chunk boundaries, and refuses what
/// JSON refuses; entry fields survive their packing.
final class ListArrayStreamTests: XCTestCase {
    private let text = """
        [ {"id":"a","download_url":"http://h/a.jpg","title":"brackets ] } [ { and \\"quotes\\" \\\\","n":-12,"x":1.5,"ok":true},
          "http://h/b.jpg" ,{"id":7,"url":"http://h/c.png","nested":{"a":[1,2,{"b":"]"}]}},
          {"id":"\\u00e9t\\u00e9","download_url":"http://h/d.jpg","big":12345678901234,"no":false} ]\u{20}
        """

    /// Feeds the text in pieces of every size from 1 to 40 bytes, with
    /// batches of 1, 2 and 1000 elements.
    func testEveryChunkAndBatchBoundaryGivesTheWholeParse() throws {
        let whole = try JSONDecoder().decode([JSONValue].self, from: Data(text.utf8))
            .map { ListParser.entry(of: $0, urlField: nil, base: nil) }
        XCTAssertEqual(whole.count, 4)
        let bytes = Data(text.utf8)
        for batchSize in [1, 2, 1000] {
            for piece in 1...40 {
                var stream = ListArrayStream(urlField: nil, base: nil)
                stream.batchSize = batchSize
                var start = bytes.startIndex
                while start < bytes.endIndex {
                    let end = min(bytes.endIndex, start + piece)
                    try stream.feed(bytes[start..<end])
                    start = end
                }
                XCTAssertEqual(try stream.finish(), whole, "batch \(batchSize), piece \(piece)")
            }
        }
        XCTAssertEqual(whole[0].meta["title"], .string("brackets ] } [ { and \"quotes\" \\"))
        XCTAssertEqual(whole[0].meta["n"], .number(-12))
        XCTAssertEqual(whole[0].meta["x"], .number(1.5))
        XCTAssertEqual(whole[0].meta["ok"], .bool(true))
        XCTAssertEqual(whole[0].meta["download_url"], .string("http://h/a.jpg"), "stored as a reference to the URL")
        XCTAssertEqual(whole[3].id, "été")
        XCTAssertEqual(whole[3].meta["big"], .number(12345678901234))
        XCTAssertEqual(whole[3].meta["no"], .bool(false))
        XCTAssertNil(whole[2].meta["nested"])
    }

    func testBareLiteralsAndEmptyArrays() throws {
        XCTAssertEqual(try ListArrayStream.parse(Data("[]".utf8)[...], urlField: nil, base: nil), [])
        XCTAssertEqual(try ListArrayStream.parse(Data(" [ 1 , true,null ]".utf8)[...], urlField: nil, base: nil).count, 3)
    }

    func testWhatJSONRefusesIsRefusedAndTheWholeParseExplainsIt() {
        for bad in ["[1 2]", "[1,]", "[,1]", "[1]]", "[{\"a\":1}", "[}]", "[\"a\"] x", "[{]}"] {
            XCTAssertThrowsError(try ListArrayStream.parse(Data(bad.utf8)[...], urlField: nil, base: nil), bad)
            // Foundation's JSONDecoder lets a trailing comma pass: the whole
            // parse then decides, as it did before.
            if bad == "[1,]" { continue }
            XCTAssertThrowsError(try ListParser.parse(Data(bad.utf8), urlField: nil, base: nil), bad) { error in
                XCTAssertTrue((error as? ListParseError)?.message.contains("not valid JSON") ?? false, "\(bad): \(error)")
            }
        }
    }

    func testAListFileIsReadInPiecesWithTheSameResult() throws {
        let path = TestImages.temporaryDirectory() + "/list.json"
        let entries = (0..<5000).map { "{\"id\":\"\($0)\",\"author\":\"A\($0 % 7)\",\"width\":\($0),\"download_url\":\"http://h/\($0).jpg\"}" }
        let text = "\u{FEFF}[" + entries.joined(separator: ",\n") + "]\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let streamed = try ListArrayStream.parse(file: path, urlField: nil, base: nil)
        // The reference is Foundation's JSONSerialization, which shares no
        // code with the stream (`ListParser.parse` goes through the stream).
        let reference = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        XCTAssertEqual(reference.count, 5000)
        XCTAssertEqual(streamed.count, reference.count)
        for (entry, object) in zip(streamed, reference) {
            let id = try XCTUnwrap(object["id"] as? String)
            XCTAssertEqual(entry.id, id)
            XCTAssertEqual(entry.url, object["download_url"] as? String, id)
            XCTAssertEqual(entry.meta.fields, [
                "id": .string(id), "author": .string(try XCTUnwrap(object["author"] as? String)),
                "width": .number(Double(try XCTUnwrap(object["width"] as? Int))),
                "download_url": .string(try XCTUnwrap(object["download_url"] as? String)),
            ], id)
        }
        // And literally, for one entry.
        XCTAssertEqual(streamed[4321].meta.fields, [
            "id": .string("4321"), "author": .string("A2"), "width": .number(4321), "download_url": .string("http://h/4321.jpg"),
        ])
    }
}
