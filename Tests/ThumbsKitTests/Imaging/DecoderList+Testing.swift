import Foundation
@testable import ThumbsKit

/// The tests' shorthand for what the standard decoder list makes of a file.
extension DecoderList {
    /// The file at `path` decoded by the standard list for `settings`, on a
    /// one-thread pool, its memory released: the libvips image of its
    /// pixels (nil when the decode gave no pixels) and the decoder that
    /// made them.
    static func decodedPixels(_ path: String, _ settings: OutputSettings) async throws -> (image: VipsImageRef?, decoder: DecodePath) {
        let file = try SourceFile(path: path)
        let format = try SourceHeader.read(file)?.format
        let memory = MemoryBudget(capacity: 1 << 30)
        let (image, reserved) = try await DecoderList.standard.decode(
            file, format: format, settings: settings, limits: DecodeLimits(), memory: memory, pool: BlockingPool(threads: 1)
        )
        await memory.release(reserved)
        guard case .pixels(let pixels) = image.stage else { return (nil, image.decoder) }
        return (pixels.image(), image.decoder)
    }
}
