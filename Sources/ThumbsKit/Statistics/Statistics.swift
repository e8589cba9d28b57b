/// `OUT/stats.json` (schema `thumbs.stats/1`), computed from a manifest alone
/// so that `thumbs stats` and `thumbs merge` recompute exactly what a run wrote.
public struct Statistics: Sendable, Codable, Equatable {
    public static let schemaName = "thumbs.stats/1"

    public var schema: String = Statistics.schemaName
    public var counts: Counts
    /// File sources' bytes read (issue 35); nil in a stats.json written
    /// before it existed.
    public var read: ReadCounters?
    public var downloads: DownloadCounters
    public var dimensions: Dimensions
    public var formats: Formats
    public var bytes: Bytes
    public var time: Time
    /// Items decoded per path in the run (`DecodePath` raw values).
    public var decoders: SortedMap<Int>
    /// Look-alike groups (`similarTo`) and the images in them.
    public var similar: LookalikeGroups.Summary
    public var source: SortedMap<Summary>

    public struct Counts: Sendable, Codable, Equatable {
        public var discovered = 0, ok = 0, unchanged = 0, duplicate = 0, failed = 0, ignored = 0
        /// Folders and files that could not be read (`RunCounters.unreadable`).
        public var unreadable = 0
        /// Items that carry warnings (`ManifestItem.warnings`): made, but
        /// not quite as they should be (a colour profile taken as sRGB).
        public var warnings = 0
    }

    /// What was read of file sources that were not failed (downloads are
    /// `downloads`): `bytes` read in all (a source read whole counts its
    /// size), `partial` sources read only in part (an embedded preview, a
    /// motion photo's JPEG: manifest `read`), and `bytesSaved`, the bytes of
    /// theirs never read. Unchanged items count as recorded, so a re-run
    /// shows the figures of what its records hold.
    public struct ReadCounters: Sendable, Codable, Equatable {
        public var bytes: Int64 = 0
        public var partial = 0
        public var bytesSaved: Int64 = 0
    }

    public struct Dimensions: Sendable, Codable, Equatable {
        public var input: Input
        public var output: Output
        public var shape: Shape

        public struct Input: Sendable, Codable, Equatable {
            public var width: Summary, height: Summary, megapixels: Summary
        }

        public struct Output: Sendable, Codable, Equatable {
            public var width: Summary, height: Summary
        }

        public struct Shape: Sendable, Codable, Equatable {
            public var landscape = 0, portrait = 0, square = 0
        }
    }

    public struct Formats: Sendable, Codable, Equatable {
        public var input: SortedMap<Int>
        public var output: SortedMap<Int>
    }

    public struct Bytes: Sendable, Codable, Equatable {
        public var input: Int64
        public var output: Int64
    }

    public struct Time: Sendable, Codable, Equatable {
        public var wallSeconds: Double
        public var imagesPerSecond: Double
        public var perImageMs: Summary
    }

    /// Computed item by item (`StatisticsAccumulator`): the same figures
    /// for a run, `thumbs stats` and a merge of the same items.
    public init(manifest: Manifest) {
        var accumulator = StatisticsAccumulator()
        for item in manifest.items { accumulator.add(item) }
        self = accumulator.finish(run: manifest.run)
    }

    init(counts: Counts, read: ReadCounters, downloads: DownloadCounters, dimensions: Dimensions, formats: Formats, bytes: Bytes,
         time: Time, decoders: SortedMap<Int>, similar: LookalikeGroups.Summary, source: SortedMap<Summary>) {
        self.counts = counts
        self.read = read
        self.downloads = downloads
        self.dimensions = dimensions
        self.formats = formats
        self.bytes = bytes
        self.time = time
        self.decoders = decoders
        self.similar = similar
        self.source = source
    }
}
