/// `OUT/report.html`: a self-contained page of the run.
public struct ReportWriter: Sendable {
    public var manifest: Manifest
    public var statistics: Statistics

    public init(manifest: Manifest, statistics: Statistics) {
        self.manifest = manifest
        self.statistics = statistics
    }

    public func render() -> String {
        "<!doctype html><meta charset=utf-8><title>thumbs report</title><p>\(statistics.counts.ok) ok, \(statistics.counts.failed) failed</p>\n"
    }
}
