/// The run-level numbers stats.json needs that items cannot give.
public struct RunCounters: Sendable, Codable, Equatable {
    public var ignored: Int = 0
    public var wallSeconds: Double = 0
    public var downloads: DownloadCounters = DownloadCounters()
    /// Items decoded per path (`DecodePath` raw values); absent in
    /// manifests of older versions.
    public var decoders: SortedMap<Int>?
    /// `--similar` of the run, so that `thumbs merge` groups with it too.
    public var similar: Int?
    /// In a shard's manifest: the shard of every item of the whole run, in
    /// order (`ShardOrder`), so that `thumbs merge` orders items as one run.
    public var shardOrder: String?
    /// Folders and files the walk could not read (stats.json
    /// `counts.unreadable`); absent in manifests of older versions.
    public var unreadable: Int?
    /// Sources gone since the last run (the ids are the manifest's `gone`,
    /// which a run writes without holding); absent when none.
    public var gone: Int?

    public init(
        ignored: Int = 0, wallSeconds: Double = 0, downloads: DownloadCounters = DownloadCounters(),
        decoders: SortedMap<Int>? = nil, similar: Int? = nil, unreadable: Int? = nil
    ) {
        self.ignored = ignored
        self.unreadable = unreadable
        self.wallSeconds = wallSeconds
        self.downloads = downloads
        self.decoders = decoders
        self.similar = similar
    }

    /// Adds `other`'s decoder counts to these.
    public mutating func addDecoders(_ other: SortedMap<Int>?) {
        guard let other else { return }
        var merged = decoders ?? [:]
        for (path, n) in other.values { merged[path] = (merged[path] ?? 0) + n }
        decoders = merged
    }
}
