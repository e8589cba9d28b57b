public struct DownloadRecord: Sendable, Codable, Equatable {
    public var url: String
    public var status: Int?
    public var bytes: Int64
    /// The whole file's size, for a partial download (`bytes` is what was
    /// received: its first bytes).
    public var size: Int64?
    /// Only the first bytes were downloaded (a progressive JPEG's DC scans).
    public var partial: Bool?
    /// For a partial download, which has no `sha256`: the hex digest of the
    /// bytes received and the whole size, as `read.digest` is of a file
    /// read in part. Two partial downloads with equal digests are identical
    /// by PRODUCT.md's rule (equal whole sizes, every byte received equal):
    /// what `thumbs merge` finds them duplicates by across shards.
    public var digest: String?
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

    /// The key a merge finds identical partial downloads by, in the form of
    /// `ReadRecord.duplicateKey` (and of the run's own key for them).
    public var duplicateKey: String? { digest.map { "read:" + $0 } }
}
