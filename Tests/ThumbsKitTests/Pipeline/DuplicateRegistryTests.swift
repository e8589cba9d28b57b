import Foundation
import ThumbsTestSupport
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

    /// The digest of `text`'s bytes: only a whole hash makes a key.
    static func digest(_ text: String) -> SHA256Hex.Digest {
        Array(text.utf8).withUnsafeBytes { SHA256Hex.digest($0) }
    }

    func testTheFirstClaimLeadsAndLaterClaimsFollowItsOutcome() async {
        let registry = DuplicateRegistry()
        guard case .leader = await registry.claim(Self.digest("a")) else { return XCTFail("the first claim must lead") }
        await registry.finish(Self.digest("a"), Self.outcome("a.jpg"))
        guard case .follower(let outcome) = await registry.claim(Self.digest("a")) else { return XCTFail("a later claim must follow") }
        XCTAssertEqual(outcome.leaderID, "a.jpg")
        XCTAssertEqual(outcome.outputs.map(\.path), ["256/a.jpg"])
        XCTAssertEqual(outcome.decoder, .libvips)
    }

    /// The continuation path: five claims that arrive while the leader runs
    /// are all waiting (the registry counts them) before the leader
    /// finishes, and each gets its outcome. Nothing here depends on timing:
    /// `finish` is called only once the five are seen waiting, and a
    /// follower that never gets its outcome fails the test in seconds
    /// instead of hanging it.
    func testClaimsWhileTheLeaderRunsWaitForItsOutcome() async throws {
        let registry = DuplicateRegistry()
        let key = Self.digest("b")
        guard case .leader = await registry.claim(key) else { return XCTFail("the first claim must lead") }
        let followers = (0..<5).map { _ in
            Task { () -> String? in
                guard case .follower(let outcome) = await registry.claim(key) else { return nil }
                return outcome.leaderID
            }
        }
        let deadline = ContinuousClock.now + .seconds(10)
        var waiting = 0
        while waiting < 5 {
            guard ContinuousClock.now < deadline else {
                return XCTFail("only \(waiting) of 5 followers ever waited for the leader")
            }
            try await Task.sleep(for: .milliseconds(1))
            waiting = await registry.waiting(for: key)
        }
        XCTAssertEqual(waiting, 5)
        await registry.finish(key, Self.outcome("first.jpg"))
        let left = await registry.waiting(for: key)
        XCTAssertEqual(left, 0)
        let leaders = await Self.values(of: followers, within: .seconds(10))
        XCTAssertEqual(leaders, Array(repeating: "first.jpg", count: 5))
    }

    func testAFailedLeaderIsPassedOnAndOtherHashesAreIndependent() async {
        let registry = DuplicateRegistry()
        guard case .leader = await registry.claim(Self.digest("c")) else { return XCTFail("first claim of c") }
        guard case .leader = await registry.claim(Self.digest("d")) else { return XCTFail("another hash leads on its own") }
        await registry.finish(Self.digest("c"), Self.outcome("broken.jpg", error: .decode("truncated")))
        guard case .follower(let outcome) = await registry.claim(Self.digest("c")) else { return XCTFail("c is done") }
        XCTAssertEqual(outcome.error, .decode("truncated"))
        XCTAssertEqual(outcome.outputs, [])
    }

    /// The followers' results, or nil for each one when they are not all
    /// done within `limit` (a follower whose continuation is never resumed
    /// cannot be cancelled: it is left waiting, and the test fails).
    private static func values(of tasks: [Task<String?, Never>], within limit: Duration) async -> [String?] {
        let first = FirstResult()
        let values = await withCheckedContinuation { (continuation: CheckedContinuation<[String?]?, Never>) in
            first.set(continuation)
            Task {
                var values: [String?] = []
                for task in tasks { values.append(await task.value) }
                first.resume(values)
            }
            Task {
                try? await Task.sleep(for: limit)
                first.resume(nil)
            }
        }
        return values ?? Array(repeating: nil, count: tasks.count)
    }
}

/// Resumes a continuation once, with whichever result comes first.
private final class FirstResult: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<[String?]?, Never>?

    func set(_ continuation: CheckedContinuation<[String?]?, Never>) {
        lock.withLock { self.continuation = continuation }
    }

    func resume(_ value: [String?]?) {
        let continuation = lock.withLock {
            defer { self.continuation = nil }
            return self.continuation
        }
        continuation?.resume(returning: value)
    }
}
