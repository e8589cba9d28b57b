import Foundation

/// What earlier runs left in OUT: the last manifest, plus the journal of a run
/// that was interrupted or killed. Decides which sources a re-run may skip.
///
/// Its records are not held: `PreviousIndex` knows where each lies, and
/// `record(for:)` reads one when an item asks (on an I/O thread).
final class PreviousRun: Sendable {
    /// Whether the earlier outputs were made with the current settings.
    let settingsMatch: Bool
    /// Whether the journal of an unfinished run was found.
    let resumed: Bool
    /// Why OUT's manifest.json could not be used, when one is there but is
    /// unreadable or not a thumbs manifest: the run redoes everything and
    /// replaces it, and says so once (`warnIfUnreadable`).
    let unreadableManifest: String?
    /// The status change time of the manifest read (nil: none was): every
    /// output it records was written before it, so an output whose own is
    /// earlier has not been touched since (`RecordedOutput.matches`).
    let outputsSettled: FileInfo.Instant?
    private let index: PreviousIndex?

    private init(settingsMatch: Bool, resumed: Bool, unreadableManifest: String?, index: PreviousIndex?,
                 outputsSettled: FileInfo.Instant? = nil) {
        self.settingsMatch = settingsMatch
        self.resumed = resumed
        self.unreadableManifest = unreadableManifest
        self.index = index
        self.outputsSettled = outputsSettled
    }

    /// No earlier run (tests).
    static var empty: PreviousRun { PreviousRun(settingsMatch: false, resumed: false, unreadableManifest: nil, index: nil) }

    /// The records of the last run: items (and `kept` records) of the
    /// manifest, then those of the journal (of the current settings only),
    /// which win. The index goes to `indexPath` (under OUT/.thumbs/; nil: in
    /// memory, for a dry run).
    ///
    /// After a settings change, or with `force`, the manifest's records are
    /// still indexed but never reused (`record(for:)` does not give them):
    /// they say what is gone and what is no longer produced (`OutputPruner`),
    /// which a run that forgot them would leave in OUT forever. `force`
    /// also leaves the journal aside: nothing of it is reused either.
    static func load(manifestPath: String, journalPath: String, settings: OutputSettings, indexPath: String? = nil,
                     force: Bool = false) -> PreviousRun {
        var unreadable: String?
        var source: ManifestSource?
        let manifestInfo = FileInfo.of(pathBytes: Array(manifestPath.utf8), followLinks: false)
        if manifestInfo?.kind == .symbolicLink {
            // OUT's files are never read or written through a link: the new
            // manifest replaces the link itself.
            unreadable = "\(manifestPath) is a symbolic link, which thumbs does not follow"
        } else if FileManager.default.fileExists(atPath: manifestPath) {
            do {
                source = try ManifestSource.open(manifestPath)
            } catch {
                unreadable = error.message
            }
        }
        let settingsMatch = source.map { $0.header.settings == settings } ?? true
        let journal = force ? nil : JournalRecords.open(path: journalPath, settings: settings)
        guard source != nil || journal != nil else {
            return PreviousRun(settingsMatch: settingsMatch, resumed: false, unreadableManifest: unreadable, index: nil)
        }
        let index: PreviousIndex
        do {
            index = try PreviousIndex(path: indexPath ?? SQLiteDatabase.inMemory)
        } catch {
            if let journal { try? FileDescriptor.close(journal.descriptor) }
            return PreviousRun(settingsMatch: settingsMatch, resumed: false,
                               unreadableManifest: unreadable ?? "cannot index it: \(error.message)", index: nil)
        }
        index.manifestReusable = settingsMatch && !force
        if let source {
            do {
                try index.addManifest(source)
            } catch {
                // Cut short or damaged: nothing of it is trusted, as when
                // the whole file did not decode.
                if let journal { try? FileDescriptor.close(journal.descriptor) }
                index.remove()
                return load(manifestPath: "", journalPath: journalPath, settings: settings, indexPath: indexPath, force: force)
                    .unreadable(because: error.message)
            }
        }
        var journalRecords = 0
        if let journal {
            journalRecords = (try? index.addJournal(descriptor: journal.descriptor, firstLineEnd: journal.firstLineEnd)) ?? 0
        }
        do {
            try index.finishBuilding()
        } catch {
            index.remove()
            return PreviousRun(settingsMatch: settingsMatch, resumed: false, unreadableManifest: error.message, index: nil)
        }
        return PreviousRun(settingsMatch: settingsMatch, resumed: journalRecords > 0, unreadableManifest: unreadable, index: index,
                           outputsSettled: source != nil ? manifestInfo?.changed : nil)
    }

    /// The same records, with the manifest said to be unusable.
    private func unreadable(because problem: String) -> PreviousRun {
        PreviousRun(settingsMatch: true, resumed: resumed, unreadableManifest: problem, index: index)
    }

    /// Records of the last run (manifest and journal): `--max-prune`'s whole.
    var count: Int { index?.count ?? 0 }

    /// No record at all (a first run, `--force`): nothing to look up.
    var isEmpty: Bool { count == 0 }

    /// The earlier record of `id`, read from its file; marks the id seen
    /// (`unseen`). Blocking: call it on an I/O thread.
    func record(for id: String) -> ManifestItem? {
        index?.record(for: id)
    }

    /// `record(for:)`, with the time its outputs are judged by
    /// (`RecordedOutput.matches`): `outputsSettled` for a record of the
    /// manifest, nil for one of the journal. A journal line can reach the
    /// disk before the folder of the thumbnails it records is flushed
    /// (`WrittenFolders`); after a power cut, such a name may hold the
    /// older thumbnail, written before the manifest and of the same size.
    /// Only reading it tells.
    func recordAndSettled(for id: String) -> (record: ManifestItem, settled: FileInfo.Instant?)? {
        guard let (record, inManifest) = index?.recordAndOrigin(for: id) else { return nil }
        return (record, inManifest ? outputsSettled : nil)
    }

    /// Marks `id` as one of this run's items without reading its record.
    func markSeen(_ id: String) {
        index?.markSeen(id)
    }

    /// Every record of the last run, reusable or not, with whether this
    /// run saw its id (`PreviousIndex.forEachRecord`). Blocking.
    func forEachRecord(_ body: (ManifestItem, _ seen: Bool) throws -> Void) rethrows {
        try index?.forEachRecord(body)
    }

    /// Whether anything of the last run may be gone or no longer produced.
    var needsSettling: Bool { index?.needsSettling ?? false }

    /// Ids of the last run that this run did not see, in the last run's
    /// order: the sources gone since (once every item was looked up).
    func unseen() -> [String] {
        index?.unseen() ?? []
    }

    /// Deletes the index's file at the end of the run.
    func remove() {
        index?.remove()
    }

    /// Warns, once per run, that the manifest in OUT could not be read.
    func warnIfUnreadable(_ console: Console, manifestPath: String) {
        guard let problem = unreadableManifest else { return }
        console.event("previous-manifest-unreadable", level: .warning,
                      "the previous manifest could not be read (\(problem)); every image is processed again and the manifest replaced",
                      fields: ["manifest": .string(manifestPath), "problem": .string(problem)])
    }

    /// The earlier record of `item` if the source has not changed since and
    /// the outputs are still there, or nil when it must be processed.
    /// Reads the record and the outputs: call it on the pool.
    func unchangedRecord(for item: SourceItem, expectedPaths: (ManifestItem) -> [String]?, out: OutputDirectory) -> ManifestItem? {
        guard let (record, settled) = unchangedSourceAndSettled(item), record.status != .failed, let expected = expectedPaths(record),
              record.outputs.map(\.path) == expected
        else { return nil }
        for output in record.outputs {
            guard RecordedOutput.matches(output, at: out.absolute(output.path), settled: settled) else { return nil }
        }
        return record
    }
}

extension PreviousRun {
    /// The earlier record of a file source that still has the same size and
    /// modification time, made with the current settings and not failed
    /// (`record(for:)` gives only records of the current settings).
    /// Says nothing about its outputs (see `unchangedRecord`). Reads the
    /// record from its file.
    func unchangedSource(_ item: SourceItem) -> ManifestItem? {
        unchangedSourceAndSettled(item)?.record
    }

    /// `unchangedSource`, with the time its outputs are judged by
    /// (`recordAndSettled`).
    private func unchangedSourceAndSettled(_ item: SourceItem) -> (record: ManifestItem, settled: FileInfo.Instant?)? {
        // Looked up first: the lookup marks the id seen whatever follows.
        guard let (record, settled) = recordAndSettled(for: item.id), record.status != .failed,
              case .file(_, let size, let modified) = item.origin,
              record.bytes == size, let recorded = record.modified, abs(recorded - modified) < 1e-6
        else { return nil }
        return (record, settled)
    }
}

/// Whether an output file on disk is the one a manifest recorded.
enum RecordedOutput {
    /// `settled`: the status change time of the manifest that records
    /// `output` (`PreviousRun.outputsSettled`). A regular file of the
    /// recorded size whose own status change time is earlier has not been
    /// written, renamed or replaced since that manifest was: it is the one
    /// recorded, and is not read. The same time is not enough: the kernel
    /// stamps files from a clock that ticks every few milliseconds, so a
    /// rewrite right after the manifest can carry its very time; the few
    /// outputs a run writes in the manifest's own tick are read instead.
    /// Anything else (no `settled`, a later or the same change time, a
    /// link) is read and its SHA-256 compared, which costs a
    /// no-op re-run of a million images more than all the rest of its work
    /// per item. What no system call can do, a disk's silent corruption,
    /// `thumbs verify` finds: it hashes every output.
    static func matches(_ output: ManifestOutput, at path: String, settled: FileInfo.Instant? = nil) -> Bool {
        if let settled, let info = FileInfo.of(pathBytes: Array(path.utf8), followLinks: false), info.kind == .regular,
           info.size == output.bytes, info.changed < settled {
            return true
        }
        guard let status = fileStatus(path), status.size == output.bytes,
              let bytes = try? SourceBytes(path: path)
        else { return false }
        return bytes.sha256() == output.sha256
    }
}
