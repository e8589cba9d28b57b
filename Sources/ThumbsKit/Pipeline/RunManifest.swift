import Foundation

/// The header of the manifest a run ends with: everything but its items,
/// which `RunResults` writes after it.
enum RunManifest {
    static func header(
        options: RunOptions, started: Date, ignored: Int, wallSeconds: Double,
        downloads: DownloadCounters?, interrupted: Bool, gone: Int, unreadable: Int = 0, decoders: SortedMap<Int>
    ) -> Manifest {
        var counters = RunCounters(ignored: ignored, wallSeconds: (wallSeconds * 1000).rounded() / 1000)
        counters.unreadable = unreadable
        counters.decoders = decoders
        counters.similar = options.similar
        counters.gone = gone > 0 ? gone : nil
        if let downloads { counters.downloads = downloads }
        return Manifest(
            tool: .init(libvips: VipsRuntime.version),
            startedAt: Timestamp.string(started), finishedAt: Timestamp.now(),
            settings: options.output, shard: options.shard,
            interrupted: interrupted ? true : nil,
            // The ids are copied in as the manifest is written (`RunResults.gone`).
            gone: gone > 0 ? [] : nil,
            run: counters, items: []
        )
    }
}
