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
    /// Hex SHA-256 of what was read: a tag, the whole size, and each range's
    /// offset, length and bytes (`SourceBytes.init(hashing:ranges:interrupt:)`).
    /// Two items with equal digests are identical by PRODUCT.md's rule
    /// (equal whole sizes, every byte read equal): what `thumbs merge`
    /// finds duplicates across shards by, where there is no `sha256`.
    public var digest: String?

    public init(bytes: Int64, partial: Bool? = true, digest: String? = nil) {
        self.bytes = bytes
        self.partial = partial
        self.digest = digest
    }

    /// The key a merge finds identical partly read sources by: never equal
    /// to a whole file's `sha256` (`SourceDigest.key`'s form).
    public var duplicateKey: String? { digest.map { "read:" + $0 } }
}
