import CVips
import CVipsShim

/// Plain JPEGs decoded by libjpeg straight from memory.
///
/// Most of thumbs' time goes into Huffman decoding. Fed the whole file at
/// once (instead of libvips's 4 KB reads) libjpeg-turbo stays on its fast
/// path, and at 1/8 scale `jpeg_dc.c` skips the AC coefficients without
/// decoding them. Only 8-bit YCbCr, RGB and greyscale files go this way, and
/// only while the decoded pixels fit `memoryBudget`; everything else, and
/// every file libjpeg warns about, takes the libvips loader, so damaged files
/// fail (or pass) exactly as `--fail-on` says.
enum DirectJPEG {
    /// The largest decoded image held in memory at once (per job). Larger
    /// decodes stream through libvips in strips instead.
    static let memoryBudget = 32 << 20

    /// A JPEG header as stored (before orientation).
    struct Header {
        var width: Int
        var height: Int
        /// EXIF orientation, 1 when absent or invalid.
        var orientation: Int

        /// What the choice of a decode path needs to know.
        var facts: JPEGFacts {
            JPEGFacts(width: width, height: height, components: 3, progressive: false, directlyDecodable: true, coefficientBytes: 0)
        }
    }

    /// The header, or nil when the file is not a JPEG this path decodes.
    static func probe(_ bytes: UnsafeRawBufferPointer) -> Header? {
        var width: Int32 = 0, height: Int32 = 0, orientation: Int32 = 1
        guard shim_jpeg_direct_probe(bytes.baseAddress, bytes.count, &width, &height, &orientation) == 0 else {
            return nil
        }
        return Header(width: Int(width), height: Int(height), orientation: Int(orientation))
    }

    /// Decodes at 1/`shrink`, or nil when libvips should decode it instead.
    static func decode(_ bytes: UnsafeRawBufferPointer, shrink: Int, maxBytes: Int = memoryBudget) -> DecodedPixels? {
        var decoded = shim_jpeg_pixels()
        guard shim_jpeg_direct_decode(bytes.baseAddress, bytes.count, Int32(shrink), maxBytes, &decoded) == 0 else {
            return nil
        }
        return DecodedPixels(decoded, decoder: shrink == 8 ? .jpegDC : .libjpeg)
    }
}

/// Decoded JPEG pixels: plain memory, not a libvips image, so a decode
/// thread can hand them to the thread that resizes and encodes.
///
/// `@unchecked Sendable`: nothing changes the pixels after the decode, and
/// `image()` (which hands them to libvips) is called once, by the one task
/// that owns the value at that point.
final class DecodedPixels: @unchecked Sendable {
    private var decoded: shim_jpeg_pixels
    /// The path that decoded them.
    let decoder: DecodePath

    fileprivate init(_ decoded: shim_jpeg_pixels, decoder: DecodePath) {
        self.decoded = decoded
        self.decoder = decoder
    }

    deinit { shim_jpeg_pixels_free(&decoded) }

    var width: Int { decoded.width }
    var height: Int { decoded.height }

    /// A libvips image of the pixels (orientation and ICC profile attached);
    /// the image takes the memory over. Nil if called a second time.
    func image() -> VipsImageRef? {
        shim_jpeg_pixels_image(&decoded).map(VipsImageRef.init)
    }
}
