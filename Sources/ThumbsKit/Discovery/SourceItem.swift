import Foundation

/// One source image to process, found by walking a directory or reading a list.
public struct SourceItem: Sendable, Hashable {
    /// Stable identity across runs: the relative path (directory sources) or
    /// the list entry's id. Unique within a run.
    public var id: String
    /// The path or URL as given.
    public var source: String
    /// Output name below each size folder, without extension. Sanitised and
    /// unique within the run (see `OutputNamer`).
    public var outputName: String
    public var origin: Origin

    public enum Origin: Sendable, Hashable {
        /// A file on disk. `size` and `modified` (seconds since 1970) come
        /// from the walk and decide whether a re-run may skip it.
        case file(path: String, size: Int64, modified: Double)
        /// A file on disk that could not be examined (unreadable, a link loop).
        case unreadable(path: String, reason: String)
        /// An image behind a URL, from a photo list; `meta` holds the list
        /// entry's own fields, packed (`EntryMeta`), as the run's spool
        /// stores them (`SourceItemCoding`).
        case remote(url: String, meta: EntryMeta)
    }

    public init(id: String, source: String, outputName: String = "", origin: Origin) {
        self.id = id
        self.source = source
        self.outputName = outputName
        self.origin = origin
    }
}
