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
            try out.writeFinal(try ManifestCoding.encode(statistics), to: out.statsPath)
            if writeReport {
                // Straight from the string's UTF-8: a 100,000-item report is
                // not copied into a Data first.
                try out.writeFinal(text: ReportWriter(manifest: manifest, statistics: statistics).render(), to: out.reportPath)
            }
        } catch let error as RunError {
            throw error
        } catch {
            throw .fatal("cannot write the \(what) in \(out.root): \(error)")
        }
    }
}
