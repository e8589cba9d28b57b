import Foundation

/// `OUT/.thumbs/journal.ndjson`: every finished item, appended the moment it
/// finishes (after its outputs are safely in place).
///
/// If the run is killed, even with `kill -9`, the next run reads the journal
/// together with the last manifest and redoes only what was not finished. A
/// completed run writes its manifest and then removes the journal. The first
/// line holds the settings; a journal of other settings is discarded.
///
/// The folders of the thumbnails a line records are flushed before the
/// line is (`WrittenFolders`).
///
/// What a power cut can lose. Each line is written at once (one `write`,
/// so `kill -9` loses nothing written), but flushed to the disk in batches:
/// `needsSync` asks for an `fsync` once a second or every `syncLines` lines,
/// and the run flushes once more before its manifest replaces the journal.
/// An `fsync` per line would wait on the disk once per image. So a power cut
/// loses at most the last second's lines (or `syncLines`); the next run finds
/// those items' sources without a record and makes them again, the others it
/// skips. A record never vouches for outputs a power cut lost: before a
/// re-run trusts a record, it checks every recorded output's size, and reads
/// and hashes the output unless the file is unchanged since the manifest
/// that records it was written (`RecordedOutput.matches`).
///
/// A write or flush that fails (a full disk, an I/O error, a file size
/// limit) is kept in `failure`: from then on the run cannot promise a
/// resume, so it starts no new image and ends with exit 3 (`ThumbsRun`).
final class Journal: @unchecked Sendable {
    private let path: String
    private var descriptor: Int32 = -1
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()
    /// Lines written since the last `fsync`, and when that was.
    private var unsynced = 0
    private var lastSync = ContinuousClock.now
    /// The first write or flush that failed, in words; nil while all is well.
    private(set) var failure: String?

    /// Flush after this many lines, or `syncInterval` after the last flush.
    static let syncLines = 256
    static let syncInterval: Duration = .seconds(1)

    struct Header: Codable {
        var journal: String = "thumbs.journal/1"
        var settings: OutputSettings
    }

    /// Folders of thumbnails written since the last flush, flushed before
    /// the lines that record those thumbnails are (`WrittenFolders`).
    private let thumbnailFolders: WrittenFolders?

    init(path: String, thumbnailFolders: WrittenFolders? = nil) {
        self.path = path
        self.thumbnailFolders = thumbnailFolders
    }

    deinit {
        if descriptor >= 0 { try? FileDescriptor.close(descriptor) }
    }

    /// Opens the journal for appending, keeping earlier lines when they were
    /// written with the same settings. The header and the journal's name in
    /// its folder are flushed at once: a journal a power cut could erase
    /// would protect nothing.
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
            appendLine(encoded(Header(settings: settings), what: "its header"))
        }
        synchronise()
        do {
            try FileDescriptor.synchroniseFolder((path as NSString).deletingLastPathComponent)
        } catch {
            record(error)
        }
        if let failure { throw .fatal(failure) }
    }

    /// Whether the journal is open (until `remove`): what a run wrote to it
    /// stays for the next run to resume from.
    var isOpen: Bool { descriptor >= 0 }

    func append(_ item: ManifestItem) {
        appendLine(encoded(item, what: "the record of \(item.id)"))
    }

    /// `value` as JSON; nil, with a failure kept in `failure`, when it cannot
    /// be encoded (a number JSON cannot hold, such as NaN): a record left out
    /// in silence would be an item the next run cannot resume.
    private func encoded<T: Encodable>(_ value: T, what: String) -> Data? {
        do {
            return try encoder.encode(value)
        } catch {
            if failure == nil { failure = "cannot write the journal \(path): \(what) cannot be written as JSON (\(Self.describe(error)))" }
            return nil
        }
    }

    private static func describe(_ error: Error) -> String {
        if case EncodingError.invalidValue(let value, let context) = error {
            let at = context.codingPath.map(\.stringValue).joined(separator: ".")
            return "\(value) at \(at.isEmpty ? "its top" : at)"
        }
        return "\(error)"
    }

    /// Whether the lines written since the last flush are due for one.
    var needsSync: Bool {
        unsynced > 0 && failure == nil
            && (unsynced >= Self.syncLines || ContinuousClock.now - lastSync >= Self.syncInterval)
    }

    /// Flushes the folders of the thumbnails written so far, then the lines
    /// written so far, to the disk (`fsync`, which waits on it: call it on
    /// an I/O thread). A failure is kept in `failure`.
    func synchronise() {
        guard descriptor >= 0, failure == nil else { return }
        do throws(WrittenFolders.Failure) {
            try thumbnailFolders?.flush()
        } catch {
            failure = error.message
            return
        }
        guard unsynced > 0 else { return }
        do {
            try FileDescriptor.synchronise(descriptor)
        } catch {
            record(error)
        }
        unsynced = 0
        lastSync = .now
    }

    private func appendLine(_ data: Data?) {
        guard descriptor >= 0, failure == nil, var data else { return }
        data.append(0x0A)
        // O_APPEND and one writer (OUT is locked): each line lands whole
        // after the last; a short write goes on until the file system says
        // why it stopped. A line cut by a failure is skipped when read back.
        let code = data.withUnsafeBytes { writeAll(descriptor, $0) }
        guard code == 0 else { return record(SystemError(code: code)) }
        unsynced += 1
    }

    private func record(_ error: SystemError) {
        if failure == nil { failure = "cannot write the journal \(path): \(error.text)" }
    }

    /// Removes the journal once the manifest holds everything (the manifest
    /// is flushed under its name before: `AtomicFile`).
    func remove() {
        if descriptor >= 0 { try? FileDescriptor.close(descriptor); descriptor = -1 }
        try? PathChanges.remove(path)
    }
}
