/// An embedded preview's bytes (a RAW's, a camera JPEG's) decoded along the
/// JPEG paths `JPEGPathRule` allows it, in turn, until one gives pixels;
/// each path runs once at most.
///
/// A plain loop on purpose: `paths.lazy.compactMap { decode($0) }.first`
/// runs the closure twice for the element it returns (`first` finds the
/// start index through the filter, which maps it, then reads that index,
/// which maps it again), so every preview was decoded twice (issue 34: the
/// RAW regression after the split into two list entries, some 15 ms of CPU
/// for a 12 MP preview at 1/8).
enum PreviewPathAttempts {
    /// One path's decode of the bytes: `DirectJPEG.decode` in production.
    typealias Decode = (_ bytes: UnsafeRawBufferPointer, _ path: DecodePath, _ shrink: Int, _ memoryBudget: Int) -> DecodedPixels?

    /// The pixels of the first of `paths` (libjpeg when none) that decodes
    /// `bytes` at `shrink`; nil when none does.
    static func decode(
        _ bytes: UnsafeRawBufferPointer, paths: [DecodePath], shrink: Int, memoryBudget: Int,
        using decode: Decode = { bytes, path, shrink, budget in
            DirectJPEG.decode(bytes, path: path, shrink: shrink, memoryBudget: budget)
        }
    ) -> DecodedPixels? {
        for path in paths.isEmpty ? [.libjpeg] : paths {
            if let pixels = decode(bytes, path, shrink, memoryBudget) { return pixels }
        }
        return nil
    }
}
