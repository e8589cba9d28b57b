import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// A signal during a source read stops it between two chunks (issue 27,
/// point 1): here every chunk is slowed down, as on a slow network share,
/// so the whole read would take seconds; the interruption must end the run
/// within one.
final class InterruptedReadTests: TemporaryFolderTestCase {
    func testAnInterruptionStopsASlowReadBetweenChunks() async throws {
        let folder = root + "/in"
        let path = folder + "/slow.jpg"
        // 64 MiB: 256 chunks, each held back 10 ms below, so 2.5 s unstopped.
        try SparseFile.write(path, size: 64 << 20, header: SparseFile.jpegHeader(width: 4000, height: 3000))
        let interrupt = InterruptSignal()
        let chunks = Counter()
        let hook = SourceReadHook { read, stage in
            guard read == path, stage == .chunk else { return }
            if chunks.increment() == 4 { interrupt.raise() }
            usleep(10_000)
        }
        var options = RunOptions(sources: [folder], outputDirectory: root + "/out")
        options.jobs = 1
        options.progress = .never
        options.verbosity = .quiet
        let started = ContinuousClock.now
        let outcome = try await SourceReadHook.$current.withValue(hook) {
            try await ThumbsRun(options: options, interrupt: interrupt).run()
        }
        let elapsed = ContinuousClock.now - started
        XCTAssertLessThan(elapsed, .seconds(1), "the read went on after the signal: \(chunks.value) chunks")
        XCTAssertLessThan(chunks.value, 16, "chunks read after the signal")
        XCTAssertEqual(outcome.status, .interrupted)
        let manifest = try readManifest(root + "/out")
        XCTAssertEqual(manifest.interrupted, true)
        XCTAssertEqual(manifest.items.map(\.id), [], "an abandoned read is not a failure: the next run reads it")
    }
}

/// A count that pool threads share.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    var value: Int { lock.withLock { count } }

    func increment() -> Int {
        lock.withLock {
            count += 1
            return count
        }
    }
}
