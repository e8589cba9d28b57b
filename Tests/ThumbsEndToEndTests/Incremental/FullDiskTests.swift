import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Issue 39, point 6: a full disk. The journal fails first, then the run's
/// item spool and the manifest cannot be written either. The run used to
/// promise "the manifest is still written" and then write none; now its
/// last line says no manifest was written and that the next run resumes
/// from the journal, which it does. The disk is full from a chosen moment
/// on through `WriteFaults` (no small file system can be mounted here):
/// every write below OUT/.thumbs fails with ENOSPC.
final class FullDiskTests: TemporaryFolderTestCase {
    var out: String { root + "/out" }

    func testAFullDiskSaysNoManifestWasWrittenAndTheNextRunResumes() async throws {
        for i in 0..<12 { TestImages.write(root + "/in/p\(i).jpg", width: 160 + i, height: 120) }
        let real = URL(fileURLWithPath: root).resolvingSymlinksInPath().path
        let full = FullDisk(below: real + "/out/.thumbs/")
        WriteFaults.inject { path in full.isFull && path.hasPrefix(full.below) ? ENOSPC : nil }
        defer { WriteFaults.inject(nil) }

        var options = RunOptions(sources: [root + "/in"], outputDirectory: out)
        options.jobs = 1
        options.progress = .never
        options.verbosity = .quiet
        options.output.sizes = [ThumbSize(width: 32, height: 32)]
        var run = ThumbsRun(options: options)
        run.onItem = { _ in full.finished() }
        do {
            _ = try await run.run()
            XCTFail("a run whose manifest could not be written succeeded")
        } catch {
            XCTAssertEqual(error.exitCode, .fatal)
            XCTAssertTrue(error.message.contains(String(cString: strerror(ENOSPC))), error.message)
            XCTAssertTrue(error.message.contains("no manifest was written: the journal keeps the images finished before this,"
                                                 + " and the next run resumes from it"), error.message)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/manifest.json"))
        WriteFaults.inject(nil)

        let again = try await runThumbs([root + "/in"], out: out) { $0.size([32]) }
        XCTAssertEqual(again.status, .success)
        let statuses = again.manifest?.items.map(\.status) ?? []
        XCTAssertEqual(statuses.count, 12)
        XCTAssertEqual(statuses.filter { $0 == .unchanged }.count, 3, "the images journaled before the disk filled are not made again")
    }
}

/// The disk fills once three items have finished.
private final class FullDisk: @unchecked Sendable {
    let below: String
    private let lock = NSLock()
    private var count = 0

    init(below: String) { self.below = below }

    var isFull: Bool { lock.withLock { count >= 3 } }

    func finished() { lock.withLock { count += 1 } }
}
