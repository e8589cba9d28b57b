import Foundation

/// Reads the entries of one list SOURCE: an http(s) URL (following its
/// pages), a local list file, or standard input (`-`).
struct ListReader: Sendable {
    let session: HTTPSession
    let urlField: String?
    let maxPages: Int?
    let console: Console
    /// `--header`: sent with every page whose origin is the list URL's, and
    /// nowhere else (not to images, not across a redirect to another origin).
    var headers: [RequestHeader] = []
    /// Told of every page's new entries as soon as they are read.
    var onEntries: (@Sendable ([ListEntry]) async -> Void)? = nil

    static let accept = "application/json, application/x-ndjson;q=0.9, text/plain;q=0.8, */*;q=0.5"

    /// What a list SOURCE turned out to hold.
    enum Content: Sendable {
        /// `refused`: why the list ended at a `next` link thumbs does not
        /// follow; the entries read until then are kept, and the run exits 3
        /// once the manifest is written.
        case entries([ListEntry], refused: String? = nil)
        /// The URL answered with an image: it is one image item.
        case image(url: String)
    }

    func read(_ source: String, standardInput: @Sendable () async -> Data) async throws(RunError) -> Content {
        if source == "-" {
            let data = await standardInput()
            return .entries(try parse(data, base: nil, what: "the list on standard input"))
        }
        let lower = source.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            return try await readRemote(source)
        }
        // Only a regular file: a folder, a device or a FIFO named `*.json`
        // is said to be one, never read (forever, or waiting for a writer).
        if let kind = FileInfo.of(source)?.kind, kind != .regular {
            throw .fatal("the photo list \(source) is \(kind.inWords), not a list file (JSON, NDJSON or one URL per line)")
        }
        // A JSON array is read from the file a megabyte at a time, never whole.
        if let entries = try? ListArrayStream.parse(file: source, urlField: urlField, base: nil) {
            return .entries(entries)
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: source))
        } catch {
            throw .fatal("cannot read the photo list \(source): \((error as NSError).localizedDescription)")
        }
        return .entries(try parse(data, base: nil, what: "the photo list \(source)"))
    }

    private func parse(_ data: Data, base: URL?, what: String) throws(RunError) -> [ListEntry] {
        do {
            return try ListParser.parse(data, urlField: urlField, base: base)
        } catch {
            throw .fatal("\(what) does not parse: \(error.message)")
        }
    }

    /// Follows `Link: <…>; rel="next"` from page to page. The list ends at an
    /// empty page, a page shorter than the first, a page without `next`, a
    /// page that only repeats entries already read (a server that clamps the
    /// page number), a `next` already visited, or `--max-pages`. Picsum
    /// advertises `next` after its last page, so that page is read, found
    /// empty, and ends the list without an error. A 404 or 410 after the
    /// first page ends it too; anything else unreadable is fatal. A `next`
    /// link that thumbs does not follow (`RemoteURL.problem`) ends the list
    /// too, keeping the pages read so far, with the refusal (naming the page
    /// that gave the link) in `refused`: the run processes those pages and
    /// exits 3 after writing the manifest (PRODUCT.md).
    /// Ctrl-C or SIGTERM while a page is read ends the read with exit 130.
    private func readRemote(_ url: String) async throws(RunError) -> Content {
        // Messages and logs show API keys in the URL as `client_id=…`.
        let shown = RemoteURL.redacted(url)
        var entries: [ListEntry] = []
        var seen = Set<ListEntry>()
        var next: String? = url
        var visited = Set<String>()
        var pages = 0
        var firstCount: Int?
        while let pageURL = next {
            if let maxPages, pages >= maxPages { break }
            visited.insert(pageURL)
            let session = self.session
            let secret = ListHeaders.http(headers), origin = RemoteURL.origin(of: url)
            let (result, _) = await session.withRetries(pageURL) {
                await session.get(pageURL, originHeaders: secret, origin: origin, accept: Self.accept, into: .memory, wantsImage: false)
            }
            let response: TransferResponse
            switch result {
            case .success(let ok):
                response = ok
            case .failure(let failure):
                if failure.interrupted {
                    let which = pages == 0 ? "the photo list \(shown)" : "page \(pages + 1) of the photo list \(shown)"
                    throw RunError(.interrupted, "interrupted while reading \(which); nothing was processed or written")
                }
                if pages > 0, let status = failure.status, status == 404 || status == 410 {
                    console.event("list-end", level: .warning,
                                  "\(RemoteURL.redacted(pageURL)) answered HTTP \(status); the list \(shown) ends after \(pages) pages")
                    return .entries(entries)
                }
                let which = pages == 0 ? "the photo list" : "page \(pages + 1) of the photo list \(shown)"
                throw .fatal("cannot read \(which): \(failure.message)")
            }
            if pages == 0 && isImage(response) {
                return .image(url: url)
            }
            pages += 1
            await session.tally.page()
            // Taken before parsing, so that the page's bytes can go as soon
            // as its entries are read.
            let linkNext = LinkHeader.target(rel: "next", in: response.headers[canonicalForm: "link"].map(String.init),
                                             base: URL(string: response.url))
            let page = try parse(response.body ?? Data(), base: URL(string: response.url),
                                 what: pages == 1 ? "the photo list \(shown)" : "page \(pages) of the photo list \(shown) (\(RemoteURL.redacted(pageURL)))")
            console.event("list-page", level: .debug, "\(RemoteURL.redacted(pageURL)): \(page.count) entries",
                          fields: ["url": .string(RemoteURL.redacted(pageURL)), "entries": .number(Double(page.count)), "page": .number(Double(pages))])
            if page.isEmpty { break }
            // `seen` exists from the second page on: a list of one big page
            // (a million entries) is held once, not also in a set and a copy.
            let fresh = pages == 1 ? page : page.filter { !seen.contains($0) }
            if fresh.isEmpty { break }
            if entries.isEmpty { entries = fresh } else { entries += fresh }
            await onEntries?(fresh)
            if let firstCount, page.count < firstCount { break }
            if firstCount == nil { firstCount = page.count }
            next = linkNext
            if let candidate = next, visited.contains(candidate) { break }
            if let candidate = next, let problem = RemoteURL.problem(candidate) {
                // The message names the page that gave the link, not a page
                // that never was.
                let read = entries.count == 1 ? "1 entry" : "\(entries.count) entries"
                return .entries(entries, refused: "page \(pages) of the photo list \(shown) (\(RemoteURL.redacted(pageURL))) has a Link rel=\"next\" "
                                + "that thumbs does not follow: \(RemoteURL.redacted(problem)); the list ends there, after \(read) on \(pages) "
                                + (pages == 1 ? "page" : "pages"))
            }
            if next != nil { seen.formUnion(fresh) }
        }
        return .entries(entries)
    }

    /// A list URL that answers with an image (declared, or by its bytes).
    private func isImage(_ response: TransferResponse) -> Bool {
        if response.declaredImage { return true }
        guard let body = response.body, !body.isEmpty else { return false }
        return ImageSniffer.format(of: body.prefix(ImageSniffer.prefixLength)) != nil
    }
}
