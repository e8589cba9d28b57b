import Foundation
import ThumbsTestSupport
@testable import ThumbsKit

/// A report made as a run makes it, from items a test gives: the manifest
/// written to OUT/manifest.json, its items gathered one by one as they are
/// written (`ReportGatherer`, as `RunResults` gathers them), and the page
/// drawn from that and the manifest read back (`ResultWriter`).
enum WrittenReport {
    /// The page `ResultWriter` writes to OUT/report.html for `manifest`,
    /// in a folder of its own that is removed after.
    static func html(_ manifest: Manifest, statistics: Statistics? = nil) throws -> String {
        let root = TestImages.temporaryDirectory("written-report")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let out = try OutputDirectory(path: root, synchronise: false)
        try ManifestWriter.encode(manifest).write(to: URL(fileURLWithPath: out.manifestPath))
        try ResultWriter(out: out, writeReport: true)
            .write(header(manifest), statistics ?? Statistics(manifest: manifest), report: gathered(manifest.items))
        return try String(contentsOfFile: out.reportPath, encoding: .utf8)
    }

    /// The `ReportWriter` `ResultWriter` makes for `manifest`, written to
    /// `out` (for tests of its pieces): its tiles read back from the file.
    static func writer(_ manifest: Manifest, out: OutputDirectory) throws -> ReportWriter {
        try ManifestWriter.encode(manifest).write(to: URL(fileURLWithPath: out.manifestPath))
        let source = try ManifestSource.open(out.manifestPath)
        return ReportWriter(header: header(manifest), items: .reading(source, failure: ReportItems.ReadFailure()),
                            statistics: Statistics(manifest: manifest), gathered: gathered(manifest.items))
    }

    private static func header(_ manifest: Manifest) -> Manifest {
        var header = manifest
        header.items = []
        return header
    }

    private static func gathered(_ items: [ManifestItem]) -> ReportGatherer {
        let gatherer = ReportGatherer()
        for item in items { gatherer.add(item) }
        gatherer.finish()
        return gatherer
    }
}
