/// `OUT/stats.json` (schema `thumbs.stats/1`), computed from a manifest alone
/// so that `thumbs stats` and `thumbs merge` recompute exactly what a run wrote.
public struct Statistics: Sendable, Codable, Equatable {
    public static let schemaName = "thumbs.stats/1"

    public var schema: String = Statistics.schemaName
    public var counts: Counts
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

    public init(manifest: Manifest) {
        let items = manifest.items
        let run = manifest.run ?? RunCounters()
        var counts = Counts()
        counts.discovered = items.count
        counts.ignored = run.ignored
        counts.unreadable = run.unreadable ?? 0
        var inW: [Int] = [], inH: [Int] = [], mp: [Double] = []
        var outW: [Int] = [], outH: [Int] = []
        var shape = Dimensions.Shape()
        var inFormats: [String: Int] = [:], outFormats: [String: Int] = [:]
        var inBytes: Int64 = 0, outBytes: Int64 = 0
        var ms: [Double] = []
        var numericFields: [String: [Double]] = [:]

        for item in items {
            switch item.status {
            case .ok: counts.ok += 1
            case .unchanged: counts.unchanged += 1
            case .duplicate: counts.duplicate += 1
            case .failed: counts.failed += 1
            }
            if item.status == .ok { ms.append(item.ms) }
            if let meta = item.meta {
                for (key, value) in meta {
                    if let n = value.numberValue { numericFields[key, default: []].append(n) }
                }
            }
            guard item.status != .failed else { continue }
            if let w = item.width, let h = item.height {
                inW.append(w)
                inH.append(h)
                mp.append(Double(w) * Double(h) / 1_000_000)
                if w > h { shape.landscape += 1 } else if h > w { shape.portrait += 1 } else { shape.square += 1 }
            }
            if let format = item.format { inFormats[format, default: 0] += 1 }
            inBytes += item.bytes ?? 0
            for output in item.outputs {
                outW.append(output.width)
                outH.append(output.height)
                outFormats[output.format, default: 0] += 1
                outBytes += output.bytes
            }
        }

        self.counts = counts
        self.downloads = run.downloads
        self.dimensions = Dimensions(
            input: .init(width: Summary(inW), height: Summary(inH), megapixels: Summary(mp)),
            output: .init(width: Summary(outW), height: Summary(outH)),
            shape: shape
        )
        self.formats = Formats(input: SortedMap(inFormats), output: SortedMap(outFormats))
        self.bytes = Bytes(input: inBytes, output: outBytes)
        let processed = counts.ok + counts.duplicate + counts.failed
        self.time = Time(
            wallSeconds: run.wallSeconds,
            imagesPerSecond: run.wallSeconds > 0 ? Double(processed) / run.wallSeconds : 0,
            perImageMs: Summary(ms)
        )
        var decoders = SortedMap<Int>()
        for path in DecodePath.allCases { decoders[path.rawValue] = run.decoders?[path.rawValue] ?? 0 }
        self.decoders = decoders
        var groupSizes: [String: Int] = [:]
        for item in items { if let first = item.similarTo?.id { groupSizes[first, default: 1] += 1 } }
        self.similar = LookalikeGroups.Summary(groups: groupSizes.count, images: groupSizes.values.reduce(0, +))
        self.source = SortedMap(numericFields.mapValues { Summary($0, includeTotal: true) })
    }
}
