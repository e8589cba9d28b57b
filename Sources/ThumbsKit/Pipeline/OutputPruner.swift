/// The outputs the last runs left that no item of this run produces, and
/// `--prune`, which deletes them: those of sources gone since (every output
/// of theirs that no remaining item records: `isKept`), and those of a size
/// or format no longer asked for (the `256/` JPEGs beside new `256/` WebPs,
/// `512/` beside a new `1024/`). The last run's records are known across a
/// settings change and `--force` (`PreviousRun`), so neither makes them
/// forgotten.
///
/// Never through a link inside OUT nor outside it
/// (`OutputDirectory.removeOutput`), and not at all when the outputs of more
/// of the last run's items would go than `--max-prune` allows.
///
/// What is not deleted stays on record: the manifest's `kept` (`RunResults.keep`)
/// holds the records of sources this run did not see, and, for an item it
/// saw, a record of the outputs it no longer produces; the next run finds
/// them (a remounted disk is unchanged, a later `--prune` deletes them).
struct OutputPruner {
    let out: OutputDirectory
    let console: Console
    let settings: OutputSettings

    /// Why a prune deleted nothing.
    struct Refusal: Error {
        var message: String
    }

    /// What the last runs left that this run does not produce.
    struct Leftovers {
        /// Sources gone (the `gone` ids), and items seen whose outputs
        /// include some of a size or format no longer asked for.
        var goneItems = 0, staleItems = 0
        /// Their outputs no item of this run records.
        var outputs = 0
        /// Items the prune would delete outputs of (`--max-prune`'s count):
        /// every gone source, and every item with a stale output.
        var items: Int { goneItems + staleItems }
    }

    /// Whether an output of an earlier record is of a size and format this
    /// run still asks for (`--format auto` makes JPEG and PNG).
    func isAskedFor(_ output: ManifestOutput) -> Bool {
        guard settings.sizes.contains(where: { $0.label == output.size }) else { return false }
        if settings.format == .auto { return output.format == "jpeg" || output.format == "png" }
        return output.format == settings.format.rawValue
    }

    /// The outputs of `record` that no item of this run produces: all of a
    /// gone source's that no item records (`isKept`); a seen item's of a
    /// size or format no longer asked for. nil: a record this run says
    /// nothing about (a source not seen that is not gone: below an
    /// unreadable folder, past a list cut short).
    func leftovers(of record: ManifestItem, seen: Bool, isGone: Bool, isKept: (String) -> Bool) -> [ManifestOutput]? {
        if seen { return record.outputs.filter { !isAskedFor($0) && !isKept($0.path) } }
        guard isGone else { return nil }
        return record.outputs.filter { !isKept($0.path) }
    }

    /// Counts what the last runs left (one pass over their records).
    func survey(_ previous: PreviousRun, isGone: (String) -> Bool, isKept: (String) -> Bool) -> Leftovers {
        var found = Leftovers()
        previous.forEachRecord { record, seen in
            let gone = !seen && isGone(record.id)
            guard let outputs = leftovers(of: record, seen: seen, isGone: gone, isKept: isKept) else { return }
            if gone {
                found.goneItems += 1
            } else if !outputs.isEmpty {
                found.staleItems += 1
            }
            found.outputs += outputs.count
        }
        return found
    }

    /// Throws, having deleted nothing, when the outputs of more of the last
    /// run's items would be deleted than `limit` allows: a source folder
    /// that is suddenly empty is rather an unmounted disk or a renamed mount
    /// than photos deleted, as rsync's `--max-delete` guards against.
    func check(_ found: Leftovers, total: Int, limit: FailureBudget) throws(Refusal) {
        guard limit.isExceeded(failed: found.items, total: total) else { return }
        let share = total > 0 ? Int((Double(found.items) * 100 / Double(total)).rounded()) : 0
        let message = found.staleItems == 0
            ? "--prune deleted nothing: \(found.goneItems) of the last run's \(total) items (\(share)%) are gone,"
                + " more than --max-prune \(limit) allows; check that the sources are mounted and readable,"
                + " or run again with --max-prune \(found.items) to delete their thumbnails"
            : "--prune deleted nothing: it would delete the outputs of \(found.items) of the last run's \(total) items (\(share)%):"
                + " \(found.goneItems) gone, \(found.staleItems) of a size or format no longer asked for;"
                + " more than --max-prune \(limit) allows; check that the sources are mounted and readable,"
                + " or run again with --max-prune \(found.items) to delete them"
        console.event("prune-refused", level: .error, message,
                      fields: ["gone": .number(Double(found.goneItems)), "stale": .number(Double(found.staleItems)),
                               "lastRun": .number(Double(total)), "maxPrune": .string(limit.description)])
        throw Refusal(message: message)
    }

    /// One pass over the last runs' records: deletes what this run no
    /// longer produces when `delete`, and hands `keep` what stays on
    /// record (whole records of sources not seen, or a seen item's record
    /// with only its outputs that stay). `keepUnseen`: whether records of
    /// sources not seen are kept at all (not in a shard, which sees part of
    /// the sources). `gone` is given each gone source's id, in the last
    /// run's order. Returns what it found, as `survey` does.
    func settle(_ previous: PreviousRun, isGone: (String) -> Bool, isKept: (String) -> Bool, delete: Bool, keepUnseen: Bool,
                keep: (ManifestItem) -> Void, gone goneSink: (String) -> Void) -> Leftovers {
        var refused: [String] = []
        var found = Leftovers()
        previous.forEachRecord { record, seen in
            let gone = !seen && isGone(record.id)
            let outputs = leftovers(of: record, seen: seen, isGone: gone, isKept: isKept)
            if gone {
                goneSink(record.id)
                found.goneItems += 1
            } else if let outputs, !outputs.isEmpty {
                found.staleItems += 1
            }
            found.outputs += outputs?.count ?? 0
            if delete, let outputs {
                for output in outputs {
                    if let problem = out.removeOutput(output.path) { refused.append(problem) }
                }
                // A gone source's record goes with its outputs; a seen item
                // keeps none for outputs now deleted.
                if gone || seen { return }
            }
            if seen {
                guard let outputs, !outputs.isEmpty else { return }
                var leftover = record
                leftover.outputs = outputs
                keep(leftover)
            } else if keepUnseen {
                keep(record)
            }
        }
        if let first = refused.first {
            console.event("prune-refused", level: .warning,
                          "\(refused.count) output\(refused.count == 1 ? "" : "s") no item of this run produces not deleted: \(first)",
                          fields: ["count": .number(Double(refused.count)), "first": .string(first)])
        }
        return found
    }
}
