import Foundation
import XCTest
@testable import ThumbsKit

/// Identical bytes decode once: the first claim of a hash leads, every other
/// claim, before or after the leader finishes, gets the leader's outcome.
final class DuplicateRegistryTests: XCTestCase {
    static func outcome(_ leader: String, error: ItemError? = nil) -> DuplicateRegistry.Outcome {
        let output = ManifestOutput(size: "256", path: "256/\(leader)", width: 4, height: 3, bytes: 9, format: "jpeg", sha256: "cd")
        return DuplicateRegistry.Outcome(leaderID: leader, info: nil, decoder: .libvips, signature: nil,
                                         outputs: error == nil ? [output] : [], error: error)
    }

    func testTheFirstClaimLeadsAndLaterClaimsFollowItsOutcome() async {
        let registry = DuplicateRegistry()
        guard case .leader = await registry.claim("aaaa") else { return XCTFail("the first claim must lead") }
        await registry.finish("aaaa", Self.outcome("a.jpg"))
        guard case .follower(let outcome) = await registry.claim("aaaa") else { return XCTFail("a later claim must follow") }
        XCTAssertEqual(outcome.leaderID, "a.jpg")
        XCTAssertEqual(outcome.outputs.map(\.path), ["256/a.jpg"])
        XCTAssertEqual(outcome.decoder, .libvips)
    }

    func testClaimsWhileTheLeaderRunsWaitForItsOutcome() async {
        let registry = DuplicateRegistry()
        guard case .leader = await registry.claim("bbbb") else { return XCTFail("the first claim must lead") }
        // Followers that arrive while the leader runs: whether they are
        // already waiting or arrive after `finish`, each gets the outcome.
        let followers = (0..<5).map { _ in
            Task { () -> String? in
                guard case .follower(let outcome) = await registry.claim("bbbb") else { return nil }
                return outcome.leaderID
            }
        }
        await Task.yield()
        await registry.finish("bbbb", Self.outcome("first.jpg"))
        var leaders: [String?] = []
        for follower in followers { leaders.append(await follower.value) }
        XCTAssertEqual(leaders, Array(repeating: "first.jpg", count: 5))
    }

    func testAFailedLeaderIsPassedOnAndOtherHashesAreIndependent() async {
        let registry = DuplicateRegistry()
        guard case .leader = await registry.claim("cccc") else { return XCTFail("first claim of cccc") }
        guard case .leader = await registry.claim("dddd") else { return XCTFail("another hash leads on its own") }
        await registry.finish("cccc", Self.outcome("broken.jpg", error: .decode("truncated")))
        guard case .follower(let outcome) = await registry.claim("cccc") else { return XCTFail("cccc is done") }
        XCTAssertEqual(outcome.error, .decode("truncated"))
        XCTAssertEqual(outcome.outputs, [])
    }
}
