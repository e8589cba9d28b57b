/// Turns one list's entries into items as `ListReader` hands them on, and
/// appends them to a `SourceItems` (a spool file for a run): the list's
/// entries are never all in memory, as entries nor as items (issue 23).
///
/// It keeps what the checks after the read need: how many entries there
/// were, and whether any of them names an image thumbs can fetch.
struct ListItemWriter {
    /// The list SOURCE as given (`-` for standard input).
    let source: String
    let destination: SourceItems
    private(set) var count = 0
    /// Whether an entry has an http(s) URL (`RemoteURL.problem`).
    private(set) var hasFetchable = false

    init(source: String, into destination: SourceItems) {
        self.source = source
        self.destination = destination
    }

    /// Entry n of the list (from 1) is named `entry.itemID(position: n)`;
    /// one without a URL has `LIST#n` (`stdin#n`) for its source. The
    /// source shows no credentials (`RemoteURL.withoutCredentials`); the
    /// origin keeps the URL that is requested.
    mutating func take(_ entries: [ListEntry]) {
        for entry in entries {
            count += 1
            let url = entry.url ?? ""
            if !hasFetchable, !url.isEmpty, RemoteURL.problem(url) == nil { hasFetchable = true }
            destination.append(SourceItem(
                id: entry.itemID(position: count),
                source: RemoteURL.withoutCredentials(url.isEmpty ? "\(source == "-" ? "stdin" : source)#\(count)" : url),
                origin: .remote(url: url, meta: entry.meta)))
        }
    }
}
