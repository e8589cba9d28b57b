import Foundation

/// `OUT/.thumbs/journal.ndjson`: every finished item, appended the moment it
/// finishes (after its outputs are safely in place).
///
/// If the run is killed, even with `kill -9`, the next run reads the journal
/// together with the last manifest and redoes only what was not finished. A
/// completed run writes its manifest and then removes the journal. The first
/// line holds the settings; a journal of other settings is discarded.
final class Journal: @unchecked Sendable {
    private let path: String
    private var descriptor: Int32 = -1
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()

    struct Header: Codable {
        var journal: String = "thumbs.journal/1"
        var settings: OutputSettings
    }

    init(path: String) {
        self.path = path
    }

    deinit {
        if descriptor >= 0 { try? FileDescriptor.close(descriptor) }
    }

    /// Reads the items of an earlier journal written with `settings`.
    static func read(path: String, settings: OutputSettings) -> [ManifestItem] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        let decoder = JSONDecoder()
        var lines = data.lines(omittingEmpty: true)
        guard let first = lines.first,
              let header = try? decoder.decode(Header.self, from: Data(first)),
              header.settings == settings
        else { return [] }
        lines.removeFirst()
        // A line cut short by a crash simply fails to decode and is skipped.
        return lines.compactMap { try? decoder.decode(ManifestItem.self, from: Data($0)) }
    }

    /// Opens the journal for appending, keeping earlier lines when they were
    /// written with the same settings.
    func open(settings: OutputSettings, keepExisting: Bool) throws(RunError) {
        var options: FileDescriptor.Options = [.create, .append, .noFollow]
        if !keepExisting { options.insert(.truncate) }
        do {
            descriptor = try FileDescriptor.open(path, .writeOnly, options, permissions: 0o644)
        } catch {
            descriptor = -1
            throw .fatal("cannot write the journal \(path): \(error.text)")
        }
        if !keepExisting || FileDescriptor.seekToEnd(descriptor) == 0 {
            appendLine(try? encoder.encode(Header(settings: settings)))
        }
    }

    func append(_ item: ManifestItem) {
        appendLine(try? encoder.encode(item))
    }

    private func appendLine(_ data: Data?) {
        guard descriptor >= 0, var data else { return }
        data.append(0x0A)
        data.withUnsafeBytes { raw in
            // One write per line with O_APPEND: lines never interleave.
            _ = FileDescriptor.writeOnce(descriptor, raw)
        }
    }

    /// Removes the journal once the manifest holds everything.
    func remove() {
        if descriptor >= 0 { try? FileDescriptor.close(descriptor); descriptor = -1 }
        try? PathChanges.remove(path)
    }
}
