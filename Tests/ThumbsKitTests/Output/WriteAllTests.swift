import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// `writeAll`: every byte lands, and a failing write says why.
final class WriteAllTests: XCTestCase {
    func testWritesEveryByteAndReportsTheErrno() throws {
        let path = TestImages.temporaryDirectory() + "/file"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0)
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        XCTAssertEqual(bytes.withUnsafeBytes { writeAll(fd, $0) }, 0)
        XCTAssertEqual([UInt8]().withUnsafeBytes { writeAll(fd, $0) }, 0)
        close(fd)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), Data(bytes))

        let readOnly = open(path, O_RDONLY)
        defer { close(readOnly) }
        XCTAssertEqual(bytes.withUnsafeBytes { writeAll(readOnly, $0) }, EBADF)
    }
}
