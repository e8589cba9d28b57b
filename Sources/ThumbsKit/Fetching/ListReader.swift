import Foundation

/// Reads the entries of one list SOURCE: an http(s) URL (following its
/// pages), a local list file, or standard input (`-`), and hands them on as
/// they are read (a page, or a megabyte of a JSON array file, at a time):
/// it holds no more than that, so a list of a million entries is never in
/// memory whole (issue 23).
struct ListReader: Sendable {
    let session: HTTPSession
    let urlField: String?
    let maxPages: Int?
    let console: Console
    /// `--header`: sent with every page whose origin is the list URL's, and
    /// nowhere else (not to images, not across a redirect to another origin).
    var headers: [RequestHeader] = []
    /// Told of every page's new entries as soon as they are read (after
    /// `read`'s `take`).
    var onEntries: (@Sendable ([ListEntry]) async -> Void)? = nil

    static let accept = "application/json, application/x-ndjson;q=0.9, text/plain;q=0.8, */*;q=0.5"

    /// What a list SOURCE turned out to hold.
    enum Content: Sendable {
        /// `count` entries, all handed to `take`. `refused`: why the list
        /// ended at a `next` link thumbs does not follow; the entries read
        /// until then are kept, and the run exits 3 once the manifest is
        /// written.
        case entries(count: Int, refused: String? = nil)
        /// The URL answered with an image: it is one image item.
        case image(url: String)
    }

    /// Reads SOURCE, handing its entries to `take` in list order, a batch
    /// at a time. When it throws, the entries already handed on are not
    /// the list's (the run stops).
    func read(
        _ source: String, standardInput: @Sendable () async -> Data, take: ([ListEntry]) -> Void
    ) async throws(RunError) -> Content {
        if source == "-" {
            let data = await standardInput()
            return handOn(try parse(data, base: nil, what: "the list on standard input"), to: take)
        }
        let lower = source.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            return try await readRemote(source, take: take)
        }
        // Only a regular file: a folder, a device or a FIFO named `*.json`
        // is said to be one, never read (forever, or waiting for a writer).
        if let kind = FileInfo.of(source)?.kind, kind != .regular {
            throw .fatal("the photo list \(source) is \(kind.inWords), not a list file (JSON, NDJSON or one URL per line)")
        }
        return .entries(count: try await readFile(source, base: nil, what: "the photo list \(source)") { take($0) })
    }

    /// The entries of the list in the file at `path` (a list file, or a
    /// page downloaded), handed to `take`: a JSON array a megabyte of the
    /// file at a time, as they are decoded, so that neither the file nor
    /// its entries are ever held whole; any other list whole (`ListParser`).
    /// `what` names the list in messages. Returns how many there were.
    private func readFile(
        _ path: String, base: URL?, what: String, take: ([ListEntry]) async -> Void
    ) async throws(RunError) -> Int {
        var streamed = 0
        if var chunks = ListFileChunks(path: path) {
            defer { chunks.close() }
            var stream = ListArrayStream(urlField: urlField, base: base)
            do {
                while let bytes = chunks.next() {
                    try stream.feed(bytes)
                    let entries = stream.takeEntries()
                    if !entries.isEmpty {
                        streamed += entries.count
                        await take(entries)
                    }
                }
                let last = try stream.finish()
                if !last.isEmpty {
                    streamed += last.count
                    await take(last)
                }
                return streamed
            } catch {}
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .fatal("cannot read \(what): \((error as NSError).localizedDescription)")
        }
        let entries = try parse(data, base: base, what: what)
        // The stream takes exactly the JSON arrays that parse: one that
        // failed part way parses no better whole (and the message comes
        // from `parse`). Were it ever otherwise, entries were handed on
        // twice: the list is refused rather than read wrong.
        guard streamed == 0 else {
            throw .fatal("\(what) does not parse: its JSON array could not be read entry by entry")
        }
        if !entries.isEmpty { await take(entries) }
        return entries.count
    }

    /// A list read whole (standard input).
    private func handOn(_ entries: [ListEntry], to take: ([ListEntry]) -> Void) -> Content {
        if !entries.isEmpty { take(entries) }
        return .entries(count: entries.count)
    }

    private func parse(_ data: Data, base: URL?, what: String) throws(RunError) -> [ListEntry] {
        do {
            return try ListParser.parse(data, urlField: urlField, base: base)
        } catch {
            throw .fatal("\(what) does not parse: \(error.message)")
        }
    }

    /// Follows `Link: <…>; rel="next"` from page to page. The list ends at an
    /// empty page, a page without `next`, a page that repeats the page before
    /// it entry for entry (a server that clamps the page number), a `next`
    /// already visited, or `--max-pages`; and at a page shorter than the one
    /// before it once the server has shown its page size: the two pages
    /// before it were as long as each other. So a list whose pages shrink
    /// (100, 80, 80, 10) is read to its end, where comparing with the first
    /// page, or with the one before alone, ended it after the 80; a short
    /// last page after pages of one size still saves asking for the empty
    /// page after it. Picsum advertises `next` after its last page, so where
    /// that rule does not apply the page after the last is read, found
    /// empty, and ends the list without an error. A 404 or 410 after the
    /// first page ends it too.
    ///
    /// An entry that repeats one of an earlier page is kept, as a repeat on
    /// one page is: `SourceFinaliser` gives it a unique id (PRODUCT.md). So
    /// nothing of the pages before is remembered but the one before's
    /// fingerprint (`PageFingerprint`): memory does not grow with the list.
    ///
    /// Past the first page, a page that cannot be read (an unreachable
    /// origin, an error status, a page that does not parse) and a `next`
    /// link that thumbs does not follow (`RemoteURL.problem`) end the list
    /// by one rule: the pages read so far are kept, and `ended` (naming the
    /// page) says why; the run processes those pages and exits 3 after
    /// writing the manifest (PRODUCT.md). An unreadable first page is fatal.
    /// Ctrl-C or SIGTERM while a page is read ends the read with exit 130.
    ///
    /// Each page goes to a file in the session's download folder and is
    /// read from there as a list file is (`readFile`): a page of a million
    /// entries is never in memory whole. A page after the first is read
    /// for its fingerprint before any of its entries is handed on; a page
    /// of up to `heldPageBytes` keeps its entries from that read (as much
    /// as a list file hands on at once), a larger one is read again.
    private func readRemote(_ url: String, take: ([ListEntry]) -> Void) async throws(RunError) -> Content {
        // Messages and logs show API keys in the URL as `client_id=…`.
        let shown = RemoteURL.redacted(url)
        var total = 0
        var next: String? = url
        var visited = Set<String>()
        var pages = 0
        var previous: PageFingerprint?
        // The length of the page before `previous`.
        var earlierCount: Int?
        // Why the list ended before its end, once pages were read.
        func endedEarly(_ why: String) -> Content {
            let read = total == 1 ? "1 entry" : "\(total) entries"
            return .entries(count: total, refused: "\(why); the list ends there, after \(read) on \(pages) " + (pages == 1 ? "page" : "pages"))
        }
        while let pageURL = next {
            if let maxPages, pages >= maxPages { break }
            visited.insert(pageURL)
            let session = self.session
            let secret = ListHeaders.http(headers), origin = RemoteURL.origin(of: url)
            let (result, _) = await session.withRetries(pageURL) {
                await session.get(pageURL, originHeaders: secret, origin: origin, accept: Self.accept,
                                  into: .file(session.temporaryFile()), wantsImage: false)
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
                    return .entries(count: total)
                }
                if pages == 0 { throw .fatal("cannot read the photo list: \(failure.message)") }
                return endedEarly("cannot read page \(pages + 1) of the photo list \(shown): \(failure.message)")
            }
            let file = response.file
            defer { if let file { try? PathChanges.remove(file) } }
            if pages == 0 && isImage(response) {
                return .image(url: url)
            }
            // Taken before parsing, so that the page's bytes can go as soon
            // as its entries are read. The header's values as sent: its
            // `canonicalForm` would split a link at the comma of a cursor
            // (`?cursor=a,b`); `LinkHeader` splits between links itself.
            let linkNext = LinkHeader.target(rel: "next", in: response.headers["link"], base: URL(string: response.url))
            let what = pages == 0 ? "the photo list \(shown)" : "page \(pages + 1) of the photo list \(shown) (\(RemoteURL.redacted(pageURL)))"
            // No file: an image declared past the first page, not read (an
            // empty page).
            var page = 0
            var fingerprint = PageFingerprint()
            if let file {
                // The entries of a small page, kept from the fingerprint's read.
                var held: [ListEntry]?
                if let previous {
                    let small = (FileInfo.of(file)?.size ?? .max) <= Self.heldPageBytes
                    var kept: [ListEntry] = []
                    do {
                        _ = try await readFile(file, base: URL(string: response.url), what: what) { entries in
                            fingerprint.add(entries)
                            if small { kept += entries }
                        }
                    } catch {
                        return endedEarly(error.message)
                    }
                    if fingerprint == previous {
                        console.event("list-page", level: .debug,
                                      "\(RemoteURL.redacted(pageURL)) repeats the page before it; the list ends there")
                        break
                    }
                    if small { held = kept }
                }
                let first = pages == 0
                if let held {
                    page = held.count
                    if !held.isEmpty {
                        take(held)
                        await onEntries?(held)
                    }
                } else {
                    do {
                        page = try await readFile(file, base: URL(string: response.url), what: what) { entries in
                            if first { fingerprint.add(entries) }
                            take(entries)
                            await onEntries?(entries)
                        }
                    } catch {
                        // The fingerprint's read read this page whole: only
                        // the first page gets here, and fails the run.
                        guard pages > 0 else { throw error }
                        return endedEarly(error.message)
                    }
                }
            }
            pages += 1
            await session.tally.page()
            console.event("list-page", level: .debug, "\(RemoteURL.redacted(pageURL)): \(page) entries",
                          fields: ["url": .string(RemoteURL.redacted(pageURL)), "entries": .number(Double(page)), "page": .number(Double(pages))])
            if page == 0 { break }
            total += page
            if let previous, page < previous.count, earlierCount == previous.count { break }
            earlierCount = previous?.count
            previous = fingerprint
            next = linkNext
            if let candidate = next, visited.contains(candidate) { break }
            if let candidate = next, let problem = RemoteURL.problem(candidate) {
                // The message names the page that gave the link, not a page
                // that never was.
                return endedEarly("page \(pages) of the photo list \(shown) (\(RemoteURL.redacted(pageURL))) has a Link rel=\"next\" "
                                  + "that thumbs does not follow: \(RemoteURL.redacted(problem))")
            }
        }
        return .entries(count: total)
    }

    /// The largest page whose entries are kept from the read for its
    /// fingerprint instead of being read again: a megabyte, what a list
    /// file hands on at a time (`ListFileChunks`).
    static let heldPageBytes: Int64 = 1 << 20

    /// A list URL that answers with an image (declared, or by its bytes).
    private func isImage(_ response: TransferResponse) -> Bool {
        if response.declaredImage { return true }
        guard let file = response.file, let handle = FileHandle(forReadingAtPath: file) else { return false }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: ImageSniffer.prefixLength), !head.isEmpty else { return false }
        return ImageSniffer.format(of: head) != nil
    }
}

/// A page of a list known by its length and 128 bits of hash over its
/// entries in order (two of Swift's seeded hashes, salted apart): a page
/// that repeats the page before it is known without holding either.
struct PageFingerprint: Equatable {
    private(set) var count = 0
    private var low = Hasher(), high = Hasher()
    private var lowValue = 0, highValue = 0

    init() {
        low.combine(0x5EED_0001)
        high.combine(0x5EED_0002)
    }

    mutating func add(_ entries: [ListEntry]) {
        for entry in entries {
            low.combine(entry)
            high.combine(entry)
        }
        count += entries.count
        // `finalize` consumes a copy: the running hashers go on.
        lowValue = low.finalize()
        highValue = high.finalize()
    }

    static func == (a: PageFingerprint, b: PageFingerprint) -> Bool {
        a.count == b.count && a.lowValue == b.lowValue && a.highValue == b.highValue
    }
}
