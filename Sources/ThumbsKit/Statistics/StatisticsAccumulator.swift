/// `Statistics` gathered item by item: counters, and a `QuantileSketch` per
/// `SUMMARY`, so that its memory does not grow with the number of items
/// (`thumbs merge` of ten million items feeds it one item at a time).
/// `Statistics(manifest:)` goes through it too, so a run and a merge of the
/// same items give the same stats.json.
public struct StatisticsAccumulator: Sendable {
    private var counts = Statistics.Counts()
    private var inW = QuantileSketch(), inH = QuantileSketch(), mp = QuantileSketch()
    private var outW = QuantileSketch(), outH = QuantileSketch()
    private var shape = Statistics.Dimensions.Shape()
    private var inFormats: [String: Int] = [:], outFormats: [String: Int] = [:]
    private var inBytes: Int64 = 0, outBytes: Int64 = 0
    private var read = Statistics.ReadCounters()
    private var ms = QuantileSketch()
    private var numericFields: [String: QuantileSketch] = [:]
    /// Look-alike group sizes by first id, when the caller does not give
    /// the summary itself (a merge counts groups in its index instead).
    private var groupSizes: [String: Int]?

    /// `countLookalikes` false: the caller passes the look-alike summary to
    /// `finish` (the map of group sizes would grow with the groups).
    public init(countLookalikes: Bool = true) {
        groupSizes = countLookalikes ? [:] : nil
    }

    public mutating func add(_ item: ManifestItem) {
        counts.discovered += 1
        switch item.status {
        case .ok: counts.ok += 1
        case .unchanged: counts.unchanged += 1
        case .duplicate: counts.duplicate += 1
        case .failed: counts.failed += 1
        }
        if item.status == .ok { ms.add(item.ms) }
        if item.warnings?.isEmpty == false { counts.warnings += 1 }
        if let meta = item.meta {
            for (key, value) in meta {
                if let n = value.numberValue { numericFields[key, default: QuantileSketch()].add(n) }
            }
        }
        if let first = item.similarTo?.id, groupSizes != nil { groupSizes![first, default: 1] += 1 }
        guard item.status != .failed else { return }
        if let w = item.width, let h = item.height {
            inW.add(Double(w))
            inH.add(Double(h))
            mp.add(Double(w) * Double(h) / 1_000_000)
            if w > h { shape.landscape += 1 } else if h > w { shape.portrait += 1 } else { shape.square += 1 }
        }
        if let format = item.format { inFormats[format, default: 0] += 1 }
        inBytes += item.bytes ?? 0
        if item.download == nil, let size = item.bytes {
            // A file source: read whole, or in part (`read`).
            if let part = item.read, part.partial == true {
                read.bytes += part.bytes
                read.partial += 1
                read.bytesSaved += max(0, size - part.bytes)
            } else {
                read.bytes += size
            }
        }
        for output in item.outputs {
            outW.add(Double(output.width))
            outH.add(Double(output.height))
            outFormats[output.format, default: 0] += 1
            outBytes += output.bytes
        }
    }

    /// The statistics of the items added, with the run's counters; `similar`
    /// replaces the groups counted from `similarTo` (see `init`).
    public func finish(run: RunCounters?, similar: LookalikeGroups.Summary? = nil) -> Statistics {
        let run = run ?? RunCounters()
        var counts = counts
        counts.ignored = run.ignored
        counts.unreadable = run.unreadable ?? 0
        let processed = counts.ok + counts.duplicate + counts.failed
        var decoders = SortedMap<Int>()
        for path in DecodePath.allCases { decoders[path.rawValue] = run.decoders?[path.rawValue] ?? 0 }
        let groups = similar ?? groupSizes.map {
            LookalikeGroups.Summary(groups: $0.count, images: $0.values.reduce(0, +))
        } ?? LookalikeGroups.Summary()
        return Statistics(
            counts: counts,
            read: read,
            downloads: run.downloads,
            dimensions: .init(
                input: .init(width: Summary(inW), height: Summary(inH), megapixels: Summary(mp)),
                output: .init(width: Summary(outW), height: Summary(outH)),
                shape: shape),
            formats: .init(input: SortedMap(inFormats), output: SortedMap(outFormats)),
            bytes: .init(input: inBytes, output: outBytes),
            time: .init(wallSeconds: run.wallSeconds,
                        imagesPerSecond: run.wallSeconds > 0 ? Double(processed) / run.wallSeconds : 0,
                        perImageMs: Summary(ms)),
            decoders: decoders,
            similar: groups,
            source: SortedMap(numericFields.mapValues { Summary($0, includeTotal: true) }))
    }

    /// The sketches the report's histograms are drawn from.
    public var megapixels: QuantileSketch { mp }
    public var perImageMs: QuantileSketch { ms }
}
