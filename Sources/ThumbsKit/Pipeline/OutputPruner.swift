/// `--prune`: deletes the outputs of sources gone since the last run, never
/// through a link inside OUT nor outside it (`OutputDirectory.removeOutput`).
struct OutputPruner {
    let out: OutputDirectory
    let console: Console

    /// Deletes the outputs of `gone`; an output a remaining item still
    /// records (a name taken over) is kept.
    func prune(_ gone: [String], previous: PreviousRun, keeping items: [ManifestItem]) {
        let kept = Set(items.flatMap { $0.outputs.map(\.path) })
        var refused: [String] = []
        for id in gone {
            for output in previous.items[id]?.outputs ?? [] where !kept.contains(output.path) {
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
    /// forget: those below a folder that could not be read. Kept in the
    /// manifest, the next run finds them unchanged when the folder is back,
    /// instead of forgetting their thumbnails. They were not redone: `ok`
    /// becomes `unchanged`.
    static func unseenRecords(_ ids: [String], previous: PreviousRun) -> [ManifestItem] {
        ids.compactMap { id in
            guard var record = previous.items[id] else { return nil }
            if record.status == .ok { record.status = .unchanged }
            return record
        }
    }
}
