import Foundation
import XCTest

/// Runs `work` on a thread of its own and fails the test when it has not
/// returned within `seconds`: a decode that loops forever is reported (the
/// thread is left spinning; the test goes on), rather than hanging the run.
func assertFinishes(within seconds: Double, _ label: @autoclosure () -> String,
                    file: StaticString = #filePath, line: UInt = #line, _ work: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        work()
        done.signal()
    }
    thread.stackSize = 8 << 20
    thread.start()
    if done.wait(timeout: .now() + seconds) == .timedOut {
        XCTFail("did not finish within \(seconds) s: \(label())", file: file, line: line)
    }
}
