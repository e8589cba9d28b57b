import Foundation
import XCTest

/// A test case whose every test gets a fresh temporary folder, `root`,
/// removed when the test ends; libvips is started first.
///
/// Subclasses put what they need below `root` in `setUp()` (which XCTest
/// calls after `setUpWithError()`, so `root` is ready there), or override
/// `setUpWithError()` and call `super` first.
open class TemporaryFolderTestCase: XCTestCase {
    /// This test's folder: NSTemporaryDirectory()/thumbs-tests-<test name>-<random>.
    public var root = ""

    open override func setUpWithError() throws {
        try super.setUpWithError()
        TestImages.start()
        root = TestImages.temporaryDirectory(name)
    }

    open override func tearDown() {
        // Empty when a subclass skipped (XCTSkip) before calling super.
        if !root.isEmpty { try? FileManager.default.removeItem(atPath: root) }
        super.tearDown()
    }
}
