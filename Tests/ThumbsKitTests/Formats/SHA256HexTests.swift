import Foundation
import XCTest

@testable import ThumbsKit

/// SHA-256 through libcrypto against FIPS 180-2's published digests (not
/// against another run of the code under test), whole and fed in pieces.
final class SHA256HexTests: XCTestCase {
    func testPublishedVectors() {
        XCTAssertEqual(SHA256Hex.of(Data()), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256Hex.of(Data("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(
            SHA256Hex.of(Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        )
    }

    /// A million "a" in uneven pieces, as a file is read chunk by chunk.
    func testStreamInPieces() {
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        var stream = SHA256Hex.Stream()
        million.withUnsafeBytes { raw in
            var offset = 0, piece = 1
            while offset < raw.count {
                let end = min(offset + piece, raw.count)
                stream.update(UnsafeRawBufferPointer(rebasing: raw[offset..<end]))
                offset = end
                piece = piece * 3 + 1
            }
            stream.update(UnsafeRawBufferPointer(rebasing: raw[0..<0]))
        }
        XCTAssertEqual(stream.finish().hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        XCTAssertEqual(
            million.withUnsafeBytes { SHA256Hex.digest($0).hex },
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        )
    }
}
