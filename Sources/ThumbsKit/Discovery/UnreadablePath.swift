/// A folder or file the walk could not read: permissions, a path longer
/// than the system allows, an I/O error, a folder that vanished while it was
/// walked. Whatever was below it is unknown this run, so `--prune` keeps its
/// outputs (`UnreadableSources`).
public struct UnreadablePath: Sendable, Hashable {
    /// Path below the walked directory, with `/` separators; empty for the
    /// walked directory itself.
    public var relativePath: String
    /// The path as the system was asked for it.
    public var path: String
    /// Why, in the system's words.
    public var reason: String
}
