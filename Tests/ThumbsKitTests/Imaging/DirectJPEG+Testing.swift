@testable import ThumbsKit

/// The tests' shorthand for the direct JPEG decode (the product plans one
/// path at a time: `JPEGPlanning`).
extension DirectJPEG {
    /// Decodes at 1/`shrink` within the default budget, or nil when libvips
    /// should decode it instead.
    static func decode(_ bytes: UnsafeRawBufferPointer, shrink: Int) -> DecodedPixels? {
        decode(bytes, shrink: shrink, memoryBudget: memoryBudget)
    }

    /// Every JPEG path that can take the scale, in the pipeline's order (DC
    /// at 1/8, and for baseline files at 1/4; the compact progressive decode
    /// at 1/1 to 1/4, then libjpeg), whatever `JPEGPathRule` would choose:
    /// the first that decodes.
    static func decode(_ bytes: UnsafeRawBufferPointer, shrink: Int, target: PixelSize? = nil, memoryBudget: Int) -> DecodedPixels? {
        let paths: [DecodePath] = switch shrink {
        case 8: [.jpegDC, .libjpeg]
        case 4: [.jpegDC, .jpegProgressive, .libjpeg]
        default: [.jpegProgressive, .libjpeg]
        }
        return paths.lazy.compactMap { decode(bytes, path: $0, shrink: shrink, target: target, memoryBudget: memoryBudget) }.first
    }
}
