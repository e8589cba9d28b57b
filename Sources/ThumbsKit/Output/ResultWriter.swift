import Foundation

/// Writes what a run or a merge ends with: OUT/manifest.json,
/// OUT/stats.json and (unless `--no-report`) OUT/report.html, each
/// atomically. `thumbs run` and `thumbs merge` both end here.
struct ResultWriter {
    let out: OutputDirectory
    let writeReport: Bool

    /// `what` names the manifest in the error message ("manifest", "merged
    /// manifest"); any failure ends the command with exit 3.
    func write(_ manifest: Manifest, _ statistics: Statistics, what: String = "manifest") throws(RunError) {
        do {
            try out.writeManifest(manifest)
            try out.writeFinal(try JSONCoding.encode(statistics), to: out.statsPath)
            if writeReport {
                // In pieces as it is rendered: a 100,000-item report is never
                // held whole.
                try out.writeReport(ReportWriter(manifest: manifest, statistics: statistics))
            }
        } catch let error as RunError {
            throw error
        } catch {
            throw .fatal("cannot write the \(what) in \(out.root): \(error)")
        }
    }
}
