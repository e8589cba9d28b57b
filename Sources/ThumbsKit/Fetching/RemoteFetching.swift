/// What fetching one remote item gave.
public enum FetchResult: Sendable {
    /// The body is in a temporary file the caller removes after use.
    case downloaded(file: String, download: DownloadRecord)
    /// A conditional request was answered 304.
    case notModified(DownloadRecord)
    case failed(ItemError, DownloadRecord?)
}

/// Downloads the image of a list entry. `previous` is the entry's record from
/// the last run, whose validators make the request conditional.
protocol RemoteFetching: Sendable {
    func fetch(_ item: SourceItem, previous: ManifestItem?) async -> FetchResult
}
