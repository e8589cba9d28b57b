/// The items a report is drawn from, handed out in order as many times as
/// the page needs them (`ReportWriter` reads them part by part): a run's
/// items in memory, or a manifest read back from its file (`thumbs merge`
/// of millions), which holds a batch of them at a time.
struct ReportItems {
    /// Calls `body` with each item in order until it returns false.
    let each: ((ManifestItem) -> Bool) -> Void

    init(_ items: [ManifestItem]) {
        each = { body in
            for item in items where !body(item) { return }
        }
    }

    init(each: @escaping ((ManifestItem) -> Bool) -> Void) {
        self.each = each
    }

    /// The items of the manifest `source`, read anew on every call; the
    /// first read error is kept in `failure` and ends that pass.
    static func reading(_ source: ManifestSource, failure: ReadFailure) -> ReportItems {
        ReportItems { body in
            let cursor = source.items(as: ReportTileItem.self)
            do throws(RunError) {
                while let item = try cursor.next() {
                    if !body(item.manifestItem) { return }
                }
            } catch {
                if failure.error == nil { failure.error = error }
            }
        }
    }

    /// Where a report read from a file keeps the error that cut it short.
    final class ReadFailure {
        var error: RunError?
    }
}

/// The fields of an item a report reads back for its tiles (`ReportWriter`:
/// `tile`, the grid and the groups' first images), and only those: the
/// rest of an item (placeholders, hashes, meta, download record) was most
/// of the time of reading a manifest back.
struct ReportTileItem: StreamedItem {
    var id: String
    var source: String
    var status: ItemStatus
    var width: Int?
    var height: Int?
    var outputs: [ManifestOutput]
    var color: String?
    var video: VideoFacts?

    init(_ item: ManifestItem) {
        id = item.id
        source = item.source
        status = item.status
        width = item.width
        height = item.height
        outputs = item.outputs
        color = item.color
        video = item.video
    }

    var manifestItem: ManifestItem {
        var item = ManifestItem(id: id, source: source, status: status)
        item.width = width
        item.height = height
        item.outputs = outputs
        item.color = color
        item.video = video
        return item
    }

    var mergeKey: MergeOrder.Key { MergeOrder.Key(id: id, source: source, downloaded: false) }
}
