/// The bounds of `--similar`: the bits in which two look-alikes'
/// perceptual hashes may differ. Look-alikes are grouped over the whole manifest (unchanged items
/// included, and across shards in `thumbs merge`), so that the groups never
/// depend on what a run happened to decode: by `LookalikeGroups.assign` in
/// memory, or `LookalikeSpill` through files (`RunResults.group`,
/// `ThumbsMerge`).
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

}
