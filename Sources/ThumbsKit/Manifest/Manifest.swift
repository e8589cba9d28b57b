import Foundation

/// `OUT/manifest.json`: one entry per source image, in source order
/// (schema `thumbs.manifest/1`, PRODUCT.md "Files written").
public struct Manifest: Sendable, Codable, Equatable {
    public static let schemaName = "thumbs.manifest/1"

    public var schema: String = Manifest.schemaName
    public var tool: Tool
    public var startedAt: String
    public var finishedAt: String
    public var settings: OutputSettings
    /// Set when this OUT holds one shard of a larger run.
    public var shard: Shard?
    /// True when the run was interrupted: `items` lists the finished ones only.
    public var interrupted: Bool?
    /// Sources of the previous manifest that were not found this run.
    public var gone: [String]?
    /// Counters that only the run knows (downloads, ignored files, wall time).
    public var run: RunCounters?
    public var items: [ManifestItem]
    /// The last runs' records of outputs this run left in place without
    /// producing them: sources it did not see (gone while `--max-prune`
    /// refused, or without `--prune`; below a folder it could not read; past
    /// a list cut short), and outputs of a size or format no longer asked
    /// for. Not items: never counted, reported or verified; kept so that the
    /// next run still knows them (a remounted disk is found unchanged, a
    /// later `--prune` removes what they left). Written after `items`.
    public var kept: [ManifestItem]?

    public struct Tool: Sendable, Codable, Equatable {
        public var name: String
        public var version: String
        public var libvips: String

        public init(name: String = "thumbs", version: String = ThumbsVersion.current, libvips: String) {
            self.name = name
            self.version = version
            self.libvips = libvips
        }
    }

    public init(
        tool: Tool, startedAt: String, finishedAt: String, settings: OutputSettings,
        shard: Shard? = nil, interrupted: Bool? = nil, gone: [String]? = nil,
        run: RunCounters? = nil, items: [ManifestItem], kept: [ManifestItem]? = nil
    ) {
        self.tool = tool
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.settings = settings
        self.shard = shard
        self.interrupted = interrupted
        self.gone = gone
        self.run = run
        self.items = items
        self.kept = kept
    }
}

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

/// Counters of HTTP traffic (stats.json `downloads`).
public struct DownloadCounters: Sendable, Codable, Equatable {
    public var requests = 0
    public var ok = 0
    public var failed = 0
    public var retries = 0
    public var notModified = 0
    public var bytes: Int64 = 0
    public var pages = 0
    public var byStatus: SortedMap<Int> = [:]
    /// Images downloaded in part (their first bytes only: partial
    /// downloads of progressive JPEGs), and the bytes of theirs never
    /// downloaded. Read as 0 from manifests written before they existed.
    public var partial = 0
    public var bytesSaved: Int64 = 0

    public init() {}

    private enum CodingKeys: String, CodingKey {
        case requests, ok, failed, retries, notModified, bytes, pages, byStatus, partial, bytesSaved
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        requests = try c.decode(Int.self, forKey: .requests)
        ok = try c.decode(Int.self, forKey: .ok)
        failed = try c.decode(Int.self, forKey: .failed)
        retries = try c.decode(Int.self, forKey: .retries)
        notModified = try c.decode(Int.self, forKey: .notModified)
        bytes = try c.decode(Int64.self, forKey: .bytes)
        pages = try c.decode(Int.self, forKey: .pages)
        byStatus = try c.decode(SortedMap<Int>.self, forKey: .byStatus)
        partial = try c.decodeIfPresent(Int.self, forKey: .partial) ?? 0
        bytesSaved = try c.decodeIfPresent(Int64.self, forKey: .bytesSaved) ?? 0
    }

    public mutating func add(_ other: DownloadCounters) {
        requests += other.requests
        ok += other.ok
        failed += other.failed
        retries += other.retries
        notModified += other.notModified
        bytes += other.bytes
        pages += other.pages
        for (status, n) in other.byStatus.values { byStatus[status] = (byStatus[status] ?? 0) + n }
        partial += other.partial
        bytesSaved += other.bytesSaved
    }
}

public enum ItemStatus: String, Sendable, Codable, CaseIterable {
    case ok, unchanged, duplicate, failed
}

/// One source image in the manifest.
public struct ManifestItem: Sendable, Codable, Equatable {
    public var id: String
    public var source: String
    public var status: ItemStatus
    public var sha256: String?
    public var bytes: Int64?
    public var format: String?
    public var width: Int?
    public var height: Int?
    public var orientation: Int?
    public var outputs: [ManifestOutput]
    public var duplicateOf: String?
    /// Tiny previews for a page to show before the thumbnail arrives.
    public var placeholder: Placeholder?
    /// The average colour, `#rrggbb` in sRGB (averaged in linear light).
    public var color: String?
    /// 64-bit DCT perceptual hash, 16 hex digits (imagehash's `phash`).
    public var phash: String?
    /// The earlier item this one looks like (`--similar`).
    public var similarTo: SimilarReference?
    /// A video's duration, codec, frame rate and poster frame time.
    public var video: VideoFacts?
    public var download: DownloadRecord?
    public var meta: [String: JSONValue]?
    /// What was done in place of the ideal, on an item that is still made
    /// (a colour profile that could not be used: pixels taken as sRGB).
    public var warnings: [String]?
    public var error: ErrorRecord?
    public var ms: Double
    /// Modification time of a file source (seconds since 1970): with `bytes`
    /// it tells a re-run whether the file changed.
    public var modified: Double?
    /// The path that decoded this item in this run (ok items only). Not
    /// written to the manifest: the run's counters carry the totals
    /// (`RunCounters.decoders`), and the `item` log event this one.
    public var decoder: DecodePath?
    /// For a duplicate made in this run: the source position of the item
    /// whose outcome it copied (its leader). Not written: the run relabels
    /// by it, in source order (`SourceOrderLeaders`).
    var leaderPosition: Int?

    private enum CodingKeys: String, CodingKey {
        case id, source, status, sha256, bytes, format, width, height, orientation, outputs, duplicateOf
        case placeholder, color, phash, similarTo, video
        case download, meta, warnings, error, ms, modified
    }

    public init(
        id: String, source: String, status: ItemStatus, sha256: String? = nil, bytes: Int64? = nil,
        format: String? = nil, width: Int? = nil, height: Int? = nil, orientation: Int? = nil,
        outputs: [ManifestOutput] = [], duplicateOf: String? = nil, download: DownloadRecord? = nil,
        meta: [String: JSONValue]? = nil, error: ErrorRecord? = nil, ms: Double = 0, modified: Double? = nil
    ) {
        self.id = id
        self.source = source
        self.status = status
        self.sha256 = sha256
        self.bytes = bytes
        self.format = format
        self.width = width
        self.height = height
        self.orientation = orientation
        self.outputs = outputs
        self.duplicateOf = duplicateOf
        self.download = download
        self.meta = meta
        self.error = error
        self.ms = ms
        self.modified = modified
    }
}

/// An item's placeholders: ThumbHash (base64) and BlurHash (4×3 components).
public struct Placeholder: Sendable, Codable, Equatable, Hashable {
    public var thumbhash: String
    public var blurhash: String

    public init(thumbhash: String, blurhash: String) {
        self.thumbhash = thumbhash
        self.blurhash = blurhash
    }
}

/// `similarTo`: the first item of this item's look-alike group, and how many
/// bits their perceptual hashes differ in.
public struct SimilarReference: Sendable, Codable, Equatable, Hashable {
    public var id: String
    public var distance: Int

    public init(id: String, distance: Int) {
        self.id = id
        self.distance = distance
    }
}

public struct ManifestOutput: Sendable, Codable, Equatable {
    /// The size as given (`256`, `320x240`).
    public var size: String
    /// Relative to OUT.
    public var path: String
    public var width: Int
    public var height: Int
    public var bytes: Int64
    public var format: String
    public var sha256: String

    public init(size: String, path: String, width: Int, height: Int, bytes: Int64, format: String, sha256: String) {
        self.size = size
        self.path = path
        self.width = width
        self.height = height
        self.bytes = bytes
        self.format = format
        self.sha256 = sha256
    }
}

public struct DownloadRecord: Sendable, Codable, Equatable {
    public var url: String
    public var status: Int?
    public var bytes: Int64
    /// The whole file's size, for a partial download (`bytes` is what was
    /// received: its first bytes).
    public var size: Int64?
    /// Only the first bytes were downloaded (a progressive JPEG's DC scans).
    public var partial: Bool?
    public var attempts: Int
    public var ms: Double
    /// Validators for the next run's conditional request.
    public var etag: String?
    public var lastModified: String?

    public init(url: String, status: Int?, bytes: Int64, attempts: Int, ms: Double, etag: String? = nil, lastModified: String? = nil) {
        self.url = url
        self.status = status
        self.bytes = bytes
        self.attempts = attempts
        self.ms = ms
        self.etag = etag
        self.lastModified = lastModified
    }
}

public struct ErrorRecord: Sendable, Codable, Equatable {
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public init(_ error: ItemError) {
        self.init(code: error.code.rawValue, message: error.message)
    }
}

public enum ThumbsVersion {
    public static let current = "0.1.0"
}
