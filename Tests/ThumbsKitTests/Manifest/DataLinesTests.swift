import Foundation
import XCTest
@testable import ThumbsKit

/// `Data.lines` is `split(separator: 0x0A)` done with memchr: the same lines
/// for every layout, on whole data and on slices that do not start at 0.
final class DataLinesTests: XCTestCase {
    func testSameLinesAsSplit() {
        let texts = ["", "\n", "\n\n", "a", "a\n", "\na", "a\nb", "a\n\nb\n", "{\n  \"items\": [\n  ]\n}\n", "x\r\ny"]
        for text in texts {
            let data = Data(text.utf8)
            for omitting in [false, true] {
                XCTAssertEqual(data.lines(omittingEmpty: omitting).map { Array($0) },
                               data.split(separator: 0x0A, omittingEmptySubsequences: omitting).map { Array($0) },
                               "\(text.debugDescription) omitting \(omitting)")
            }
            // A slice whose indices start past 0.
            let padded = Data(("zz\n" + text).utf8)
            let slice = padded[padded.startIndex + 3..<padded.endIndex]
            XCTAssertEqual(slice.lines().map { Array($0) }, data.split(separator: 0x0A, omittingEmptySubsequences: false).map { Array($0) })
        }
    }
}
