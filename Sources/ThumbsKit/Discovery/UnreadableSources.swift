/// The item ids a run could not see because a folder or file above them
/// could not be read (`UnreadablePath`): `--prune` keeps their outputs, and
/// they are not reported gone.
public struct UnreadableSources: Sendable {
    /// Ids of the unreadable folders and files ("" for a whole source).
    private var ids: Set<String> = []
    /// What was reported, in walk order.
    public private(set) var paths: [UnreadablePath] = []

    public init() {}

    public var count: Int { paths.count }

    /// Records `path`, whose items' ids start with `id`.
    mutating func add(_ path: UnreadablePath, id: String) {
        paths.append(path)
        ids.insert(id)
    }

    mutating func add(_ other: UnreadableSources) {
        paths += other.paths
        ids.formUnion(other.ids)
    }

    /// Whether the item `id` is, or lies below, something that could not be
    /// read. Looks up each ancestor of `id` (`a`, `a/b`, `a/b/c.jpg`): a
    /// run with a million gone ids and many unreadable folders stays linear.
    public func covers(_ id: String) -> Bool {
        guard !ids.isEmpty else { return false }
        if ids.contains("") || ids.contains(id) { return true }
        var index = id.startIndex
        while let slash = id[index...].firstIndex(of: "/") {
            if ids.contains(String(id[..<slash])) { return true }
            index = id.index(after: slash)
        }
        return false
    }
}
