import Foundation
import XCTest
import ThumbsTestSupport
@testable import ThumbsKit

/// The hand-written stamp against Foundation's `ISO8601DateFormatter`, which
/// wrote the manifest's times before (an independent reference: none of
/// `Timestamp`'s code runs in it).
final class TimestampTests: XCTestCase {
    private let reference: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()

    func testPinnedStamps() {
        XCTAssertEqual(Timestamp.string(Date(timeIntervalSince1970: 0)), "1970-01-01T00:00:00.000Z")
        XCTAssertEqual(Timestamp.string(Date(timeIntervalSince1970: 951_782_400)), "2000-02-29T00:00:00.000Z")
        XCTAssertEqual(Timestamp.string(Date(timeIntervalSince1970: 1_795_825_672.7194)), "2026-11-28T00:27:52.719Z")
        XCTAssertEqual(Timestamp.string(Date(timeIntervalSince1970: -0.5)), "1969-12-31T23:59:59.500Z")
    }

    /// Random instants from 1900 to 2400 (leap and century years, month
    /// ends), each 0.4 ms past a whole millisecond: truncation, and the
    /// formatter's own reading of the same double, agree there.
    func testAgreesWithFoundationOnRandomMilliseconds() {
        var random = SplitMix64(state: 0x7135)
        let first: Int64 = -2_208_988_800_000  // 1900-01-01
        let last: Int64 = 13_569_465_600_000  // 2400-01-01
        for _ in 0..<5000 {
            let milliseconds = first + Int64(random.next() % UInt64(last - first))
            let date = Date(timeIntervalSince1970: (Double(milliseconds) + 0.4) / 1000)
            XCTAssertEqual(Timestamp.string(date), reference.string(from: date), "\(milliseconds) ms")
        }
    }

    func testEveryDayOfFourHundredYearsHasItsCivilDate() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let start: Int64 = -25_567  // 1900-01-01
        for day in stride(from: start, to: start + 146_097, by: 1) {
            let date = Date(timeIntervalSince1970: Double(day) * 86_400)
            let parts = calendar.dateComponents([.year, .month, .day], from: date)
            let civil = Timestamp.civilDate(daysSince1970: day)
            guard civil.year == Int64(parts.year!), civil.month == Int64(parts.month!), civil.day == Int64(parts.day!)
            else { return XCTFail("day \(day): \(civil) against \(parts)") }
        }
    }
}
