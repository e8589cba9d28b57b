/// Marks look-alikes in a manifest: items whose perceptual hashes differ in
/// at most `distance` bits. Computed over the whole manifest (unchanged
/// items included, and across shards in `thumbs merge`), so that the groups
/// never depend on what a run happened to decode.
public enum LookalikeGrouping {
    /// `--similar`'s default, chosen by measurement (bench/lookalikes_real.py,
    /// bench/lookalikes-results.md): the smallest D that finds ≥ 95 % of the
    /// re-encoded, resized, 10 % brighter and WebP copies of 73 real, distinct
    /// photos and of the synthetic 600x400 set (brighter copies are up to 4
    /// and 6 bits away), with no false pair among either set's distinct
    /// photos (nearest: 14 and 12 bits). A pHash has 32 bits set, so
    /// distances are even.
    public static let defaultDistance = 6
    /// The largest `--similar` accepted: at 12 bits, 1,000 distinct photos
    /// already give thousands of false pairs.
    public static let maxDistance = 12

    /// Sets every item's `similarTo` (clearing stale ones) by the rule of
    /// `LookalikeGroups.assign`: an item joins the group of the earliest
    /// item within `distance` bits of it and names that group's first item.
    /// Items without a hash (failed ones) take no part; `distance` 0 turns
    /// grouping off.
    @discardableResult
    public static func apply(to items: inout [ManifestItem], distance: Int) -> LookalikeGroups.Summary {
        for index in items.indices { items[index].similarTo = nil }
        guard distance > 0 else { return LookalikeGroups.Summary() }
        let hashes: [UInt64?] = items.map { item in
            item.status == .failed ? nil : item.phash.flatMap(PerceptualHash.parse)
        }
        let matches = LookalikeGroups.assign(hashes, maxDistance: distance)
        for (index, match) in matches.enumerated() {
            guard let match else { continue }
            items[index].similarTo = SimilarReference(id: items[match.representative].id, distance: match.distance)
        }
        return LookalikeGroups.summary(matches)
    }
}
