@testable import ThumbsKit

/// The run's look-alike rule over items in memory, as a run applies it to
/// its records' hashes (`RunResults.group`: `LookalikeGroups.assign` over
/// the items that have a hash, in order): each item's `similarTo` is set
/// (stale ones cleared), and the groups' summary returned. Failed items and
/// hashes `PerceptualHash.parse` refuses take no part; `distance` 0 turns
/// grouping off.
enum LookalikeReference {
    @discardableResult
    static func apply(to items: inout [ManifestItem], distance: Int) -> LookalikeGroups.Summary {
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
