import Foundation
import NIOHTTP1

/// Downloads the image of each list entry to a temporary file for
/// ItemProcessor: at most `--download-jobs` at once, retried per `--retries`,
/// conditional when the last run recorded validators.
struct ImageDownloader: RemoteFetching {
    let session: HTTPSession
    /// Downloads started while the list was read (fresh runs only).
    var prefetcher: Prefetcher?

    static let accept = "image/*,*/*;q=0.8"

    func fetch(_ item: SourceItem, previous: ManifestItem?) async -> FetchResult {
        if previous == nil, let prefetcher, case .remote(let url, _) = item.origin,
           let early = await prefetcher.take(url) {
            return await early.value
        }
        return await fetchNow(item, previous: previous)
    }

    func fetchNow(_ item: SourceItem, previous: ManifestItem?) async -> FetchResult {
        guard case .remote(let url, _) = item.origin else {
            return .failed(.download("\(item.source) is not a remote source"), nil)
        }
        if let problem = RemoteURL.problem(url) {
            let message = url.isEmpty
                ? "this list entry has no image URL (looked for \(ListParser.urlFieldGuesses.joined(separator: ", "))); --url-field PATH names the field that holds it"
                : problem
            return .failed(.unsupported(RemoteURL.redacted(message)), nil)
        }

        // Validators of the last run, only when its outputs are worth keeping.
        var conditional = HTTPHeaders()
        let earlier = previous.flatMap { $0.status != .failed && !$0.outputs.isEmpty ? $0.download : nil }
        if let earlier, earlier.etag == nil, earlier.lastModified == nil,
           earlier.url == RemoteURL.withoutCredentials(url) {
            // The server gave no validators last time, so a request could not
            // tell "unchanged" from "changed" without downloading it all: the
            // same list entry with the same URL is taken as unchanged
            // (PRODUCT.md), and ItemProcessor still checks its outputs.
            // `attempts: 0` records that nothing was requested.
            return .notModified(DownloadRecord(url: RemoteURL.withoutCredentials(url), status: earlier.status, bytes: 0, attempts: 0, ms: 0))
        }
        if let etag = earlier?.etag { conditional.add(name: "If-None-Match", value: etag) }
        if let lastModified = earlier?.lastModified { conditional.add(name: "If-Modified-Since", value: lastModified) }

        let session = self.session, headers = conditional
        let clock = ContinuousClock.now
        if let acceptsHeader = session.partialDownloads {
            return await fetchPrefix(url, conditional: headers, earlier: earlier, acceptsHeader: acceptsHeader, clock: clock)
        }
        let (result, attempts) = await session.withRetries(url) {
            await session.slots.withPermit {
                await session.get(url, headers: headers, accept: Self.accept,
                                  into: .file(session.temporaryFile()), wantsImage: true)
            }
        }
        let ms = Elapsed.milliseconds(since: clock)
        switch result {
        case .success(let response) where response.status == 304:
            await session.tally.notModified()
            return .notModified(DownloadRecord(
                url: RemoteURL.withoutCredentials(url), status: 304, bytes: 0, attempts: attempts, ms: ms,
                etag: response.etag ?? earlier?.etag, lastModified: response.lastModified ?? earlier?.lastModified))
        case .success(let response):
            await session.tally.imageOK()
            guard let file = response.file else {
                return .failed(.download("\(RemoteURL.redacted(url)): no body was kept"), nil)
            }
            return .downloaded(file: file, download: DownloadRecord(
                url: RemoteURL.withoutCredentials(url), status: response.status, bytes: response.bytes, attempts: attempts, ms: ms,
                etag: response.etag, lastModified: response.lastModified))
        case .failure(let failure) where failure.interrupted:
            // Abandoned, not failed: see `RemoteInterruption`.
            return .failed(ItemError(failure.code, failure.message), nil)
        case .failure(let failure):
            await session.tally.imageFailed()
            return .failed(ItemError(failure.code, failure.message), DownloadRecord(
                url: RemoteURL.withoutCredentials(url), status: failure.status, bytes: failure.bytes, attempts: attempts, ms: ms))
        }
    }

    /// `fetchNow` with partial downloads (`HTTPSession.fetchPrefix`).
    private func fetchPrefix(
        _ url: String, conditional: HTTPHeaders, earlier: DownloadRecord?, acceptsHeader: @escaping @Sendable ([UInt8]) -> Bool,
        clock: ContinuousClock.Instant
    ) async -> FetchResult {
        let session = self.session
        let (result, attempts) = await session.withRetries(url) {
            await session.slots.withPermit {
                await session.fetchPrefix(url, conditional: conditional, accept: Self.accept, acceptsHeader: acceptsHeader)
            }
        }
        let ms = Elapsed.milliseconds(since: clock)
        switch result {
        case .success(.notModified(let etag, let lastModified)):
            await session.tally.notModified()
            return .notModified(DownloadRecord(
                url: RemoteURL.withoutCredentials(url), status: 304, bytes: 0, attempts: attempts, ms: ms,
                etag: etag ?? earlier?.etag, lastModified: lastModified ?? earlier?.lastModified))
        case .success(.file(let path, let status, let received, let size, let partial, let etag, let lastModified)):
            await session.tally.imageOK()
            if partial, let size { await session.tally.partial(saved: max(0, size - received)) }
            var record = DownloadRecord(url: RemoteURL.withoutCredentials(url), status: status, bytes: received, attempts: attempts, ms: ms,
                                        etag: etag, lastModified: lastModified)
            if partial {
                record.size = size
                record.partial = true
            }
            return .downloaded(file: path, download: record)
        case .failure(let failure) where failure.interrupted:
            return .failed(ItemError(failure.code, failure.message), nil)
        case .failure(let failure):
            await session.tally.imageFailed()
            return .failed(ItemError(failure.code, failure.message), DownloadRecord(
                url: RemoteURL.withoutCredentials(url), status: failure.status, bytes: failure.bytes, attempts: attempts, ms: ms))
        }
    }
}
