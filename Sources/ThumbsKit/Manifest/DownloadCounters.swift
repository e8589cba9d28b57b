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
