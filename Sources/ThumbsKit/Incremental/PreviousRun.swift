import Foundation

/// What earlier runs left in OUT: the last manifest, plus the journal of a run
/// that was interrupted or killed. Decides which sources a re-run may skip.
struct PreviousRun: Sendable {
    /// Records by item id; journal records win over the manifest's.
    var items: [String: ManifestItem] = [:]
    /// Ids in the order of the last manifest (to report sources gone since).
    var order: [String] = []
    /// Whether the earlier outputs were made with the current settings.
    var settingsMatch = false
    /// Whether the journal of an unfinished run was found.
    var resumed = false
    /// Why OUT's manifest.json could not be used, when one is there but is
    /// unreadable or not a thumbs manifest: the run redoes everything and
    /// replaces it, and says so once (`warnIfUnreadable`).
    var unreadableManifest: String?

    static let empty = PreviousRun()

    static func load(manifestPath: String, journalPath: String, settings: OutputSettings) -> PreviousRun {
        var previous = PreviousRun()
        var manifest: Manifest?
        if FileInfo.of(pathBytes: Array(manifestPath.utf8), followLinks: false)?.kind == .symbolicLink {
            // OUT's files are never read or written through a link: the new
            // manifest replaces the link itself.
            previous.unreadableManifest = "\(manifestPath) is a symbolic link, which thumbs does not follow"
        } else if FileManager.default.fileExists(atPath: manifestPath) {
            do {
                manifest = try JSONCoding.readManifest(at: manifestPath)
            } catch {
                previous.unreadableManifest = error.message
            }
        }
        if let manifest {
            previous.settingsMatch = manifest.settings == settings
            if previous.settingsMatch {
                for item in manifest.items {
                    previous.items[item.id] = item
                    previous.order.append(item.id)
                }
            }
        } else {
            previous.settingsMatch = true
        }
        let journal = Journal.read(path: journalPath, settings: settings)
        if !journal.isEmpty {
            previous.resumed = true
            for item in journal {
                if previous.items[item.id] == nil { previous.order.append(item.id) }
                previous.items[item.id] = item
            }
        }
        return previous
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
    /// Reads the outputs to check their size and hash: call it on the pool.
    func unchangedRecord(for item: SourceItem, expectedPaths: [String], out: OutputDirectory) -> ManifestItem? {
        guard let record = unchangedSource(item), record.outputs.map(\.path) == expectedPaths else { return nil }
        for output in record.outputs {
            guard RecordedOutput.matches(output, at: out.absolute(output.path)) else { return nil }
        }
        return record
    }
}

extension PreviousRun {
    /// The earlier record of a file source that still has the same size and
    /// modification time, made with the current settings and not failed.
    /// Says nothing about its outputs (see `unchangedRecord`).
    func unchangedSource(_ item: SourceItem) -> ManifestItem? {
        guard settingsMatch, let record = items[item.id], record.status != .failed,
              case .file(_, let size, let modified) = item.origin,
              record.bytes == size, let recorded = record.modified, abs(recorded - modified) < 1e-6
        else { return nil }
        return record
    }
}

/// Whether an output file on disk is the one a manifest recorded.
enum RecordedOutput {
    static func matches(_ output: ManifestOutput, at path: String) -> Bool {
        guard let status = fileStatus(path), status.size == output.bytes,
              let bytes = try? SourceBytes(path: path)
        else { return false }
        return bytes.sha256() == output.sha256
    }
}
