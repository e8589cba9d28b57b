import CVipsShim
import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Issue 23: naming over the spool equals the in-memory algorithm it
/// replaced (`NamingReference`), on many clash-prone runs; and it holds a
/// few bytes per item, not a few hundred.
final class SpooledNamingScaleTests: XCTestCase {
    /// Segments that clash in every way the namer knows: case, extension,
    /// a file against a folder of its output name, a renamed folder's name,
    /// canonically equal spellings, suffix-like ids, odd bytes.
    static let segments = [
        "a", "A", "a.jpg", "a.png", "A.JPG", "a.webp", "a.jpg_dir", "a_png", "b", "caf\u{E9}", "cafe\u{301}.jpg",
        "\u{212A}", "k.png", "x#2", "x", " sp ", ".hidden", "..", "c:d", "\u{1}ctl", "日本.jpg",
    ]

    func randomRun(_ generator: inout some RandomNumberGenerator) -> [SourceItem] {
        (0..<Int.random(in: 1...30, using: &generator)).map { _ in
            let depth = Int.random(in: 1...3, using: &generator)
            let id = (0..<depth).map { _ in Self.segments.randomElement(using: &generator)! }.joined(separator: "/")
            if Bool.random(using: &generator) {
                return SourceItem(id: id, source: "/in/" + id, origin: .file(path: "/in/" + id, size: 1, modified: 0))
            }
            return SourceItem(id: id, source: "https://x.test/" + id, origin: .remote(url: "https://x.test/" + id, meta: .empty))
        }
    }

    func testSpooledNamingEqualsTheInMemoryAlgorithm() throws {
        var generator = SplitMix64(state: 2023)
        let folder = TestImages.temporaryDirectory()
        for trial in 0..<300 {
            let items = randomRun(&generator)
            let want = NamingReference.finalise(items)
            let spool = try SourceItems(scratchFolder: folder)
            spool.append(contentsOf: items)
            try spool.finishWriting()
            let got = Array(try SourceFinaliser.finalise(spool).items)
            XCTAssertEqual(got.map { Array($0.id.utf8) }, want.map { Array($0.id.utf8) }, "trial \(trial): \(items.map(\.id))")
            XCTAssertEqual(got.map { Array($0.outputName.utf8) }, want.map { Array($0.outputName.utf8) },
                           "trial \(trial): \(items.map(\.id))")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), [])
    }

    func testFileExtensionIsTheFormerOne() {
        let paths = ["", "/", "//", "a", "a/", "a//", "a.JPG", "a//b.JPG/", ".jpg", "a/.jpg", "x.tar.GZ", "/a.b/c", "a.",
                     "caf\u{E9}.J\u{301}PG", "/\u{301}x.png", "dir.jpg/", "https://x.test/p.webp?x=1", "a/b/c.d/e.f/"]
        for path in paths {
            XCTAssertEqual(Array(OutputNamer.fileExtension(of: path).utf8), Array(NamingReference.fileExtension(of: path).utf8), path)
        }
    }

    /// The peak resident memory of this process, in KB (`VmHWM`).
    static func peakKB() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// Sets the peak back to the current resident memory (Linux 4.0+).
    static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data("5".utf8))) != nil
    }

    /// How much the peak grew while `count` items went through the spool
    /// and naming, and were read back once, in KB.
    func peakGrowthKB(items count: Int) throws -> Int {
        // A run keeps up to 4 MB free at the top of each heap
        // (`MemoryTrim.mapLargeBlocks`, set by any earlier test's run): slack
        // as large as what this measures. glibc's default while it measures.
        shim_malloc_keep_top(128 << 10)
        defer { shim_malloc_keep_top(MemoryTrim.mappedBlock) }
        MemoryTrim.releaseFreePages()
        XCTAssertTrue(Self.resetPeak())
        let before = Self.peakKB()
        var checksum = 0
        do {
            let spool = try SourceItems(scratchFolder: TestImages.temporaryDirectory("peak\(count)"))
            for index in 0..<count {
                // A photo archive's shape: 200 folders, names repeated
                // across them, and a tenth of the ids given twice.
                let id = "archive/\(2000 + index % 200)/IMG_\(index / 200 % (count / 220)).jpg"
                spool.append(SourceItem(id: id, source: "/srv/photos/" + id,
                                        origin: .file(path: "/srv/photos/" + id, size: Int64(index % 1000), modified: 1.7e9)))
            }
            try spool.finishWriting()
            // SQLite's page cache is capped (4 MiB in a run); at 1 MiB it is
            // full at either size here, so what grows is what grows per item.
            let named = try SourceFinaliser.finalise(spool, cacheMiB: 1)
            for item in named.items { checksum &+= item.outputName.utf8.count }
            XCTAssertEqual(named.items.count, count)
            XCTAssertEqual(named.sharedSizes.count, 1000)
        }
        XCTAssertGreaterThan(checksum, 0)
        return Self.peakKB() - before
    }

    func testThePeakDoesNotGrowWithTheItems() throws {
        guard Self.resetPeak() else { throw XCTSkip("/proc/self/clear_refs cannot be written here") }
        // Each size measured twice, the lower kept: what else the process
        // does only adds to a peak (17, 19 and 25 bytes an item in three
        // runs of the whole suite, measured once each).
        let small = min(try peakGrowthKB(items: 20_000), try peakGrowthKB(items: 20_000))
        let large = min(try peakGrowthKB(items: 80_000), try peakGrowthKB(items: 80_000))
        let perItem = (large - small) * 1024 / 60_000
        print("SpooledNamingScaleTests: peak +\(small) KB at 20,000 items, +\(large) KB at 80,000: \(perItem) bytes an item")
        // Items in an array, and the ids and names in Swift sets, took about
        // 300 bytes an item. The spool's index, the sets' Bloom filters and
        // the sizes' sort take about 12; the bound leaves room for the
        // allocator's noise and still fails at a tenth of the old cost.
        XCTAssertLessThan(perItem, 32, "+\(small) KB at 20,000 items, +\(large) KB at 80,000")
    }
}
