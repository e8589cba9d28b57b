/// A download that Ctrl-C or SIGTERM cancelled, or kept from starting.
///
/// Such an item did not fail: it was not reached. ItemProcessor still hands
/// back a failed record for it (with this exact message); the run recognises
/// it with `isAbandoned` and leaves it out of the journal and the manifest,
/// as it does for items it never started, so that the next run fetches it.
enum RemoteInterruption {
    static let message = "interrupted (Ctrl-C or SIGTERM) before the download finished"

    static func isAbandoned(_ record: ManifestItem) -> Bool {
        record.status == .failed && record.error?.code == ItemError.Code.download.rawValue && record.error?.message == message
    }
}
