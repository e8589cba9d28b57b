import Foundation
import XCTest

@testable import ThumbsKit

final class SharedExclusiveLockTests: XCTestCase {
    /// `isExclusive` is what lets `VipsErrorBuffer.read` take libvips'
    /// buffer during a diagnosis. Another thread asking while a diagnosis
    /// runs must hear "no": it would otherwise take the diagnosing item's
    /// message as its own and leave that item a bare fallback.
    func testOnlyTheHoldingThreadIsExclusive() {
        let lock = SharedExclusiveLock()
        let holding = DispatchSemaphore(value: 0)
        let asked = DispatchSemaphore(value: 0)
        let seenByHolder = LockedFlag()
        let thread = Thread {
            lock.exclusive {
                seenByHolder.set(lock.isExclusive)
                holding.signal()
                asked.wait()
            }
        }
        thread.start()
        holding.wait()
        let seenByOther = lock.isExclusive
        asked.signal()
        XCTAssertTrue(seenByHolder.value, "the thread inside exclusive holds it")
        XCTAssertFalse(seenByOther, "another thread, while one holds it exclusively")
        lock.exclusive { XCTAssertTrue(lock.isExclusive) }
        XCTAssertFalse(lock.isExclusive, "after it was given back")
        lock.shared { XCTAssertFalse(lock.isExclusive, "shared is not exclusive") }
    }
}

private final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = false
    func set(_ value: Bool) { lock.withLock { stored = value } }
    var value: Bool { lock.withLock { stored } }
}
