/// The items a report is drawn from, handed out in order as many times as
/// the page needs them (`ReportWriter` reads them part by part): a
/// manifest read back from its file, a batch of items at a time (a run's
/// and `thumbs merge`'s of millions alike).
struct ReportItems {
    /// Calls `body` with each item in order until it returns false.
    let each: ((ManifestItem) -> Bool) -> Void

    init(each: @escaping ((ManifestItem) -> Bool) -> Void) {
        self.each = each
    }

    /// The items of the manifest `source`, read anew on every call; the
    /// first read error is kept in `failure` and ends that pass.
    static func reading(_ source: ManifestSource, failure: ReadFailure) -> ReportItems {
        ReportItems { body in
            let cursor = source.items(fields: Self.tileFields)
            do throws(RunError) {
                while let item = try cursor.next() {
                    if !body(item) { return }
                }
            } catch {
                if failure.error == nil { failure.error = error }
            }
        }
    }

    /// The fields of an item a report reads back for its tiles (`ReportWriter`:
    /// `tile`, the grid and the groups' first images), and only those: the
    /// rest of an item (placeholders, hashes, meta, download record) was most
    /// of the time of reading a manifest back.
    static let tileFields: ManifestItemDecoder.Fields = [.size, .outputs, .color, .video]

    /// Where a report read from a file keeps the error that cut it short.
    final class ReadFailure {
        var error: RunError?
    }
}
