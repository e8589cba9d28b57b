import Foundation

/// Starts downloading the first images of a list while its later pages are
/// still being read, so that decoding does not wait for the whole list.
///
/// Only for a fresh run (no earlier manifest or journal in OUT, no dry run,
/// no shard): re-runs make conditional requests from the last run's records,
/// and a shard would fetch images that belong to other shards. At most
/// `limit` images are fetched ahead; `ImageDownloader.fetch` takes each
/// result once, by URL, and fetches normally for everything else.
actor Prefetcher {
    private var started: [String: Task<FetchResult, Never>] = [:]
    private var count = 0
    private let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// Starts fetching the images of freshly read entries, up to the limit.
    func offer(_ entries: [ListEntry], downloader: ImageDownloader) {
        for entry in entries where count < limit {
            guard let url = entry.url, RemoteURL.problem(url) == nil, started[url] == nil else { continue }
            count += 1
            let item = SourceItem(id: url, source: url, origin: .remote(url: url, meta: .empty))
            started[url] = Task { await downloader.fetchNow(item, previous: nil) }
        }
    }

    /// The prefetched result for `url`, handed out once.
    func take(_ url: String) -> Task<FetchResult, Never>? {
        started.removeValue(forKey: url)
    }

    /// Waits for downloads nobody took and deletes their files.
    func discardRest() async {
        let rest = started
        started = [:]
        for task in rest.values {
            if case .downloaded(let file, _) = await task.value {
                try? FileManager.default.removeItem(atPath: file)
            }
        }
    }
}
