import Foundation

/// The header of the manifest a run ends with: everything but its items,
/// which `RunResults` writes after it.
enum RunManifest {
    static func header(
        options: RunOptions, started: Date, ignored: Int, wallSeconds: Double,
        downloads: DownloadCounters?, interrupted: Bool, gone: [String], unreadable: Int = 0, decoders: SortedMap<Int>
    ) -> Manifest {
        var counters = RunCounters(ignored: ignored, wallSeconds: (wallSeconds * 1000).rounded() / 1000)
        counters.unreadable = unreadable
        counters.decoders = decoders
        counters.similar = options.similar
        if let downloads { counters.downloads = downloads }
        return Manifest(
            tool: .init(libvips: VipsRuntime.version),
            startedAt: Timestamp.string(started), finishedAt: Timestamp.now(),
            settings: options.output, shard: options.shard,
            interrupted: interrupted ? true : nil,
            gone: gone.isEmpty ? nil : gone,
            run: counters, items: []
        )
    }
}
