/// Counts the HTTP traffic of a run for stats.json `downloads`.
///
/// `requests`, `byStatus`, `retries` and `bytes` cover every request: list
/// pages, images, redirect hops and retries. `ok`, `failed` and
/// `notModified` count images (one per item fetch, after its retries);
/// `pages` counts list pages read.
actor DownloadTally {
    private(set) var counters = DownloadCounters()

    func request() { counters.requests += 1 }
    func response(status: Int) {
        let key = String(status)
        counters.byStatus[key] = (counters.byStatus[key] ?? 0) + 1
    }
    func retry() { counters.retries += 1 }
    func received(_ bytes: Int64) { counters.bytes += bytes }
    func page() { counters.pages += 1 }
    func imageOK() { counters.ok += 1 }
    func imageFailed() { counters.failed += 1 }
    func notModified() { counters.notModified += 1 }
    /// An image downloaded in part: `saved` bytes of it were never fetched.
    func partial(saved: Int64) {
        counters.partial += 1
        counters.bytesSaved += saved
    }
}

