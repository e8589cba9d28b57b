import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Identical sources that fail: one is decoded and fails; the others fail
/// with its code and say whose bytes they share (the follower path of
/// `ItemProcessor.decodeOnce`, reachable by any input).
final class IdenticalFailuresTests: XCTestCase {
    func testCopiesOfABrokenImageFailWithTheLeadersCode() async throws {
        let root = TestImages.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: root + "/in", withIntermediateDirectories: true)
        let broken = Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data("not really a jpeg".utf8)
        for name in ["a.jpg", "b.jpg", "c.jpg"] {
            try broken.write(to: URL(fileURLWithPath: root + "/in/" + name))
        }
        let outcome = try await runThumbs([root + "/in"], out: root + "/out") { $0.maxFailures = .percent(100) }
        let items = try XCTUnwrap(outcome.manifest?.items)
        XCTAssertEqual(items.map(\.status), [.failed, .failed, .failed])
        let leaders = items.filter { !($0.error?.message.hasPrefix("same bytes as ") ?? true) }
        XCTAssertEqual(leaders.count, 1, "\(items.map { $0.error?.message ?? "" })")
        let leader = try XCTUnwrap(leaders.first)
        let leaderError = try XCTUnwrap(leader.error)
        for item in items where item.id != leader.id {
            XCTAssertEqual(item.error?.code, leaderError.code)
            XCTAssertEqual(item.error?.message, MessageFolding.fold("same bytes as \(leader.id): \(leaderError.message)"))
        }
    }
}
