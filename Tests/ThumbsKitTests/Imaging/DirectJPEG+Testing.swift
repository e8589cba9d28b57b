@testable import ThumbsKit

/// The tests' shorthand for the direct JPEG decode (the product always
/// passes its budget and target: `Thumbnailer`).
extension DirectJPEG {
    /// Decodes at 1/`shrink` within the default budget, or nil when libvips
    /// should decode it instead.
    static func decode(_ bytes: UnsafeRawBufferPointer, shrink: Int) -> DecodedPixels? {
        decode(bytes, shrink: shrink, memoryBudget: memoryBudget)
    }
}
