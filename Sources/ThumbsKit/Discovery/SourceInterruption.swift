/// A source read that Ctrl-C or SIGTERM stopped half way (`SourceBytes`).
///
/// Such an item did not fail: it was not reached, as a download the signal
/// cancelled was not (`RemoteInterruption`). ItemProcessor hands back a failed
/// record with this error; the run recognises it with `isAbandoned` and
/// leaves it out of the journal and the manifest, so the next run reads it.
enum SourceInterruption {
    static let message = "interrupted (Ctrl-C or SIGTERM) while the source was read"

    static let error = ItemError.io(message)

    static func isAbandoned(_ record: ManifestItem) -> Bool {
        record.status == .failed && record.error?.code == ItemError.Code.io.rawValue && record.error?.message == message
    }
}
