import Foundation

/// Writes what a run or a merge ends with, once OUT/manifest.json is
/// written item by item (`RunResults`, `MergedManifestWriter`):
/// OUT/stats.json, and (unless `--no-report`) OUT/report.html from what was
/// gathered on the way (`ReportGatherer`) and the tiles, read back from that
/// manifest up to the last one shown (`ReportItems.reading`). Both go
/// through `AtomicFile`; any failure ends the command with exit 3.
struct ResultWriter {
    let out: OutputDirectory
    let writeReport: Bool

    /// `what` names the results in the error messages ("merged " for a merge).
    func write(_ header: Manifest, _ statistics: Statistics, report gathered: ReportGatherer, what: String = "") throws(RunError) {
        do {
            try out.writeFinal(try JSONCoding.encode(statistics), to: out.statsPath)
        } catch let error as RunError {
            throw error
        } catch {
            throw .fatal("cannot write the \(what)statistics in \(out.root): \(error)")
        }
        guard writeReport else { return }
        let source = try ManifestSource.open(out.manifestPath)
        let failure = ReportItems.ReadFailure()
        try out.writeReport(ReportWriter(header: header, items: .reading(source, failure: failure), statistics: statistics,
                                         gathered: gathered))
        if let problem = gathered.failureRows.failure {
            throw .fatal("cannot write the \(what)report's failures: \(problem)")
        }
        if let error = failure.error {
            throw .fatal("cannot read the \(what)manifest back for the report: \(error.message)")
        }
    }
}
