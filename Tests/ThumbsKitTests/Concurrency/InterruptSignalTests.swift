import Foundation
import XCTest
@testable import ThumbsKit

/// The interrupt flag: its first-signal handler runs exactly once however
/// `install` and a signal race, and a sealed flag ignores later signals.
final class InterruptSignalTests: XCTestCase {
    /// `install` and a signal on two threads at once, many times: the
    /// handler runs exactly once every time, whichever comes first. (The
    /// handler and sources were written outside the lock: a signal racing
    /// `install` could read no handler, and the first-signal line was lost.)
    func testTheHandlerRunsOnceWhateverTheOrderOfInstallAndSignal() {
        for round in 0..<200 {
            let signal = InterruptSignal()
            let calls = Counter()
            let start = DispatchSemaphore(value: 0)
            let done = DispatchGroup()
            DispatchQueue.global().async(group: done) {
                start.wait()
                signal.install { calls.add() }
            }
            DispatchQueue.global().async(group: done) {
                start.wait()
                if round % 2 == 0 { usleep(UInt32(round % 7)) }
                signal.raise()
            }
            start.signal()
            start.signal()
            XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "round \(round) hung")
            signal.uninstall()
            XCTAssertEqual(calls.value, 1, "round \(round): the handler ran \(calls.value) times")
            XCTAssertTrue(signal.isRaised)
            if calls.value != 1 { break }
        }
    }

    /// `seal` reports a signal that came before it; after it, a signal
    /// changes nothing: not the flag, not the handler, and a second signal
    /// no longer ends the process. (Real signals are sent to the binary in
    /// `LateSignalTests`: in a test process that installed before,
    /// `uninstall` has given SIGTERM back its default effect.)
    func testASealedFlagIgnoresLaterSignals() {
        let signal = InterruptSignal()
        let calls = Counter()
        signal.install { calls.add() }
        defer { signal.uninstall() }
        signal.raise()
        XCTAssertTrue(signal.seal(), "seal reports the signal that came before")
        signal.raise()  // unsealed, a second signal exits 130 at once
        XCTAssertEqual(calls.value, 1)

        let quiet = InterruptSignal()
        XCTAssertFalse(quiet.seal())
        quiet.raise()
        XCTAssertFalse(quiet.isRaised, "a signal after the seal is too late to count")
    }
}

private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add() { lock.withLock { count += 1 } }
}
