/// One source image in the manifest.
public struct ManifestItem: Sendable, Codable, Equatable {
    public var id: String
    public var source: String
    public var status: ItemStatus
    /// Of all the source's bytes; nil for a source read or downloaded in part.
    public var sha256: String?
    /// A file source read only in part (issue 35): the bytes read.
    public var read: ReadRecord?
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
    /// What this run's duplicates are found by (`SourceDigest.key`): the
    /// sha256, or the digest of the bytes a partly read source read. Not
    /// written: `SourceOrderLeaders` relabels by it.
    var duplicateKey: String?

    private enum CodingKeys: String, CodingKey {
        case id, source, status, sha256, read, bytes, format, width, height, orientation, outputs, duplicateOf
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

    /// What identical sources share, for a merge's duplicates (PRODUCT.md:
    /// "in a run and in a merge alike"): the sha256 of a whole source, or
    /// the digest of what was read of a file read in part, or received of
    /// a partial download.
    public var identityKey: String? { sha256 ?? read?.duplicateKey ?? download?.duplicateKey }
}
