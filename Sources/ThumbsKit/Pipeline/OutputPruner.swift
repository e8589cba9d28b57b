/// `--prune`: deletes the outputs of sources gone since the last run, never
/// through a link inside OUT nor outside it (`OutputDirectory.removeOutput`),
/// and not at all when more of the last run's items are gone than
/// `--max-prune` allows.
struct OutputPruner {
    let out: OutputDirectory
    let console: Console

    /// Why a prune deleted nothing.
    struct Refusal: Error {
        var message: String
    }

    /// Deletes the outputs of `gone`; an output a remaining item still
    /// records (a name taken over: `isKept`) is kept.
    ///
    /// Throws, having deleted nothing, when `gone` is more of the last run's
    /// items than `limit` allows: a source folder that is suddenly empty is
    /// rather an unmounted disk or a renamed mount than photos deleted, as
    /// rsync's `--max-delete` guards against.
    func prune(_ gone: [String], previous: PreviousRun, keeping isKept: (String) -> Bool, limit: FailureBudget) throws(Refusal) {
        let total = previous.count
        if limit.isExceeded(failed: gone.count, total: total) {
            let share = total > 0 ? Int((Double(gone.count) * 100 / Double(total)).rounded()) : 0
            let message = "--prune deleted nothing: \(gone.count) of the last run's \(total) items (\(share)%) are gone,"
                + " more than --max-prune \(limit) allows; check that the sources are mounted and readable,"
                + " or run again with --max-prune \(gone.count) to delete their thumbnails"
            console.event("prune-refused", level: .error, message,
                          fields: ["gone": .number(Double(gone.count)), "lastRun": .number(Double(total)),
                                   "maxPrune": .string(limit.description)])
            throw Refusal(message: message)
        }
        var refused: [String] = []
        for id in gone {
            for output in previous.record(for: id)?.outputs ?? [] where !isKept(output.path) {
                if let problem = out.removeOutput(output.path) { refused.append(problem) }
            }
        }
        if let first = refused.first {
            console.event("prune-refused", level: .warning,
                          "\(refused.count) output\(refused.count == 1 ? "" : "s") of gone sources not deleted: \(first)",
                          fields: ["count": .number(Double(refused.count)), "first": .string(first)])
        }
    }

    /// The last run's records of items this run did not see but must not
    /// forget: those below a folder that could not be read, and, when
    /// `--max-prune` refused, those gone. Kept in the manifest, the next run
    /// finds them unchanged when the folder or the disk is back, and refuses
    /// again while it is not, instead of forgetting their thumbnails. They
    /// were not redone: `ok` becomes `unchanged`.
    static func unseenRecords(_ ids: [String], previous: PreviousRun) -> [ManifestItem] {
        ids.compactMap { id in
            guard var record = previous.record(for: id) else { return nil }
            if record.status == .ok { record.status = .unchanged }
            return record
        }
    }
}
