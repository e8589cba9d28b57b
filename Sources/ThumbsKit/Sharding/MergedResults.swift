import Foundation

extension ResultWriter {
    /// What a merge writes after `MergedManifestWriter` has written
    /// OUT/manifest.json: stats.json, and the report from what was gathered
    /// on the way (`ReportGatherer`) and the tiles, read back from that
    /// manifest up to the last one shown (`ReportItems.reading`).
    func writeMerged(_ header: Manifest, _ statistics: Statistics, report gathered: ReportGatherer) throws(RunError) {
        do {
            try out.writeFinal(try JSONCoding.encode(statistics), to: out.statsPath)
        } catch let error as RunError {
            throw error
        } catch {
            throw .fatal("cannot write the merged statistics in \(out.root): \(error)")
        }
        guard writeReport else { return }
        let source = try ManifestSource.open(out.manifestPath)
        let failure = ReportItems.ReadFailure()
        try out.writeReport(ReportWriter(header: header, items: .reading(source, failure: failure), statistics: statistics,
                                         gathered: gathered))
        if let problem = gathered.failureRows.failure {
            throw .fatal("cannot write the merged report's failures: \(problem)")
        }
        if let error = failure.error {
            throw .fatal("cannot read the merged manifest back for the report: \(error.message)")
        }
    }
}
