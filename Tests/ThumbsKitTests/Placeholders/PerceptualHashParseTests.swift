import XCTest
@testable import ThumbsKit

/// The one rule for a manifest's `phash` (PRODUCT.md: "16 hex digits"),
/// shared by `thumbs verify` and look-alike grouping.
final class PerceptualHashParseTests: XCTestCase {
    func testSixteenHexDigitsEitherCase() {
        XCTAssertEqual(PerceptualHash.parse("0123456789abcdef"), 0x0123_4567_89AB_CDEF)
        XCTAssertEqual(PerceptualHash.parse("0123456789ABCDEF"), 0x0123_4567_89AB_CDEF)
        XCTAssertEqual(PerceptualHash.parse("FfFfFfFfFfFfFfFf"), UInt64.max)
        XCTAssertEqual(PerceptualHash.parse("0000000000000000"), 0)
        XCTAssertEqual(PerceptualHash.parse(PerceptualHash.hexString(0xDEAD_BEEF)), 0xDEAD_BEEF)
    }

    func testAnythingElseIsRefused() {
        for bad in [
            "", "f", "ff", "123456789abcdef",           // too short
            "0123456789abcdef0", "00000000000000000000",  // too long
            "+123456789abcdef", "-000000000000000",       // a sign: UInt64(_:radix:) takes it
            "0x0123456789abcd", " 123456789abcdef", "0123456789abcde ", "0123456789abcdeg",
            "0123456789abcd\u{0}f", "０123456789abcdef",  // NUL; a full-width digit
            "0123456789abcdé", "٠١٢٣٤٥٦٧٨٩abcdef",        // 16 characters, more bytes
        ] {
            XCTAssertNil(PerceptualHash.parse(bad), "\(bad.debugDescription) was taken as a pHash")
        }
    }

    /// verify reports a hash that grouping would not read, and grouping
    /// reads every hash verify accepts: the same rule on both sides.
    func testVerifyAndGroupingAgree() {
        func item(_ id: String, _ phash: String) -> ManifestItem {
            var item = ManifestItem(id: id, source: id, status: .ok)
            item.phash = phash
            return item
        }
        // `+` and a short hash were accepted by one side or the other before.
        var items = [item("a", "00000000000000ff"), item("b", "+0000000000000ff"), item("c", "ff"),
                     item("d", "00000000000000FE")]
        LookalikeReference.apply(to: &items, distance: 3)
        XCTAssertNil(items[1].similarTo, "a signed hash takes no part in grouping")
        XCTAssertNil(items[2].similarTo, "a short hash takes no part in grouping")
        XCTAssertEqual(items[3].similarTo?.id, "a", "upper case is a hash like any other")
        let flagged = items.filter { !PlaceholderCheck.findings($0).isEmpty }.map(\.id)
        XCTAssertEqual(flagged, ["b", "c"])
    }
}
