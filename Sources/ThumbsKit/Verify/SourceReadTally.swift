/// What a manifest's items read of their sources against what the sources
/// hold (issue 35): for file sources, the bytes read (`read.bytes` of those
/// read in part, else the whole `bytes`) against their sizes; for
/// downloads, the bytes received against the whole files' sizes.
/// `thumbs verify` prints both on its count line, and `--json` has them as
/// `read` and `download`.
public struct SourceReadTally: Sendable, Codable, Equatable {
    /// Bytes read (or received).
    public var bytes: Int64 = 0
    /// The sources' whole sizes.
    public var of: Int64 = 0
    /// Sources read (or downloaded) only in part.
    public var partial = 0
    /// Items counted.
    public var items = 0

    public init() {}

    /// Counts `item` into `files` or `downloads` (an item without a size, a
    /// failure before the read, counts in neither).
    static func add(_ item: ManifestItem, files: inout SourceReadTally, downloads: inout SourceReadTally) {
        if let d = item.download {
            guard item.status != .failed || d.bytes > 0 else { return }
            downloads.items += 1
            downloads.bytes += d.bytes
            downloads.of += d.size ?? item.bytes ?? d.bytes
            if d.partial == true { downloads.partial += 1 }
        } else if let size = item.bytes {
            files.items += 1
            files.of += size
            if let read = item.read, read.partial == true {
                files.bytes += read.bytes
                files.partial += 1
            } else {
                files.bytes += size
            }
        }
    }

    /// `read 1.20 MB of 9.50 MB (3 in part)`, with `verb` for "read".
    func text(_ verb: String) -> String {
        "\(verb) \(ReportFormat.bytes(bytes)) of \(ReportFormat.bytes(of))" + (partial > 0 ? " (\(partial) in part)" : "")
    }
}
