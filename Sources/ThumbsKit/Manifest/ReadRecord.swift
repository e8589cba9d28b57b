/// How much of a file source was read (manifest `read`): written only for
/// a source read in part, whose thumbnail came from part of it (a camera's
/// embedded preview, a motion photo's JPEG without its video). Such an item
/// has no `sha256`: `bytes` were read and hashed, of the item's `bytes`.
public struct ReadRecord: Sendable, Codable, Equatable {
    /// The bytes read: the first bytes every source has read, the header's
    /// and the planning's reads, and the ranges the decode reads.
    public var bytes: Int64
    /// Always true where written (a whole read is not recorded).
    public var partial: Bool?

    public init(bytes: Int64, partial: Bool? = true) {
        self.bytes = bytes
        self.partial = partial
    }
}
