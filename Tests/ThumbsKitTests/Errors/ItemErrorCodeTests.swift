import Foundation
import XCTest
@testable import ThumbsKit

/// The error codes are a closed set: PRODUCT.md's list, no more.
final class ItemErrorCodeTests: XCTestCase {
    func testTheCodesAreProductsList() {
        XCTAssertEqual(ItemError.Code.all.map(\.rawValue), ["decode", "encode", "too-large", "unsupported", "download", "io"])
    }

    func testEncodeHasItsOwnCodeAndConstructor() {
        let error = ItemError.encode("jpegsave: out of memory")
        XCTAssertEqual(error.code, .encode)
        XCTAssertEqual(error.description, "encode: jpegsave: out of memory")
        XCTAssertEqual(ErrorRecord(error), ErrorRecord(code: "encode", message: "jpegsave: out of memory"))
    }

    func testDecodingReadsKnownCodesAndRefusesOthers() throws {
        let decoded = try JSONDecoder().decode([ItemError.Code].self, from: Data(#"["encode", "too-large", "io"]"#.utf8))
        XCTAssertEqual(decoded, [.encode, .tooLarge, .io])
        XCTAssertThrowsError(try JSONDecoder().decode([ItemError.Code].self, from: Data(#"["from-the-future"]"#.utf8)))
        let encoded = try JSONEncoder().encode([ItemError.Code.tooLarge])
        XCTAssertEqual(String(decoding: encoded, as: UTF8.self), #"["too-large"]"#)
    }

    /// A manifest's `error.code` is read as text (`ErrorRecord`), as
    /// before: a code this version does not know, written by another
    /// version, still reads, and is carried through unchanged.
    func testAManifestWithAnUnknownCodeStillReads() throws {
        let record = try JSONDecoder().decode(ErrorRecord.self, from: Data(#"{"code": "from-the-future", "message": "m"}"#.utf8))
        XCTAssertEqual(record, ErrorRecord(code: "from-the-future", message: "m"))
    }
}
