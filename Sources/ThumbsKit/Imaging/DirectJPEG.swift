import CVips
import CVipsShim

/// Plain JPEGs decoded by libjpeg straight from memory.
///
/// Most of thumbs' time goes into Huffman decoding. Fed the whole file at
/// once (instead of libvips's 4 KB reads) libjpeg-turbo stays on its fast
/// path, and at 1/8 scale `jpeg_dc.c` makes the image from DC coefficients
/// alone: it skips a baseline file's AC coefficients without decoding them,
/// and decodes only a progressive file's DC scans. Only 8-bit YCbCr, RGB and
/// greyscale files go this way, and only while the decode fits
/// `memoryBudget` (for a progressive file decoded by libjpeg, that includes
/// the whole image's coefficients, which libjpeg holds); everything else
/// takes the libvips loader. The direct path never judges damage: on any
/// doubtful data (a libjpeg warning or error, anything the DC decode cannot
/// vouch for) it gives up, and libvips decodes the file and decides under
/// `--fail-on` whether it passes or fails.
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
        /// A progressive file: libjpeg buffers all its coefficients, while
        /// the 1/8 decode reads only its DC scans.
        var progressive: Bool
        /// 1 (grey) or 3 (colour).
        var components: Int
        /// The frame allows the DC-only decode at 1/8 (its scans may still
        /// send the file to libvips).
        var dcCapable: Bool
        /// What libjpeg holds besides the pixels to decode the file at 1/1,
        /// 1/2 or 1/4: every coefficient of the image for progressive (and
        /// multi-scan) files, 0 for the usual baseline file.
        var coefficientBytes: Int
        /// What the compact progressive decode holds at 1/2, 1/4 and 1/1;
        /// 0 where it does not take the file.
        var compactBytesHalf: Int
        var compactBytesQuarter: Int
        var compactBytesFull: Int

        /// What the choice of a decode path needs to know.
        var facts: JPEGFacts {
            JPEGFacts(width: width, height: height, components: components, progressive: progressive,
                      directlyDecodable: true, dcCapable: dcCapable, coefficientBytes: coefficientBytes,
                      compactBytesHalf: compactBytesHalf, compactBytesQuarter: compactBytesQuarter,
                      compactBytesFull: compactBytesFull)
        }
    }

    /// The header, or nil when the file is not a JPEG this path decodes.
    static func probe(_ bytes: UnsafeRawBufferPointer) -> Header? {
        var header = shim_jpeg_header()
        guard shim_jpeg_direct_probe(bytes.baseAddress, bytes.count, &header) == 0 else {
            return nil
        }
        return Header(
            width: Int(header.width), height: Int(header.height), orientation: Int(header.orientation),
            progressive: header.progressive != 0, components: Int(header.components),
            dcCapable: header.dc_capable != 0, coefficientBytes: header.coefficient_bytes,
            compactBytesHalf: header.compact_bytes_half, compactBytesQuarter: header.compact_bytes_quarter,
            compactBytesFull: header.compact_bytes_full)
    }

    /// Decodes at 1/`shrink` within `memoryBudget` bytes (pixels, plus
    /// coefficients when libjpeg buffers them), or nil. With a `target`, a
    /// progressive file at 1/1 on `jpeg_prog.c` comes out resized to it
    /// (every other decode ignores it: look at the size).
    static func decode(_ bytes: UnsafeRawBufferPointer, shrink: Int, target: PixelSize? = nil, memoryBudget: Int) -> DecodedPixels? {
        var decoded = shim_jpeg_pixels()
        guard shim_jpeg_direct_decode_to(bytes.baseAddress, bytes.count, Int32(shrink), Int32(target?.width ?? 0),
                                         Int32(target?.height ?? 0), memoryBudget, &decoded) == 0 else {
            return nil
        }
        return DecodedPixels(decoded)
    }
}

/// Decoded pixels: plain memory, not a libvips image, so a decode thread can
/// hand them to the thread that resizes and encodes. The JPEG paths make
/// them, and so does every other decoder that does not go through libvips's
/// loaders (a RAW's preview or development, a HEIF thumbnail, a video
/// frame): each fills a `shim_jpeg_pixels` (8-bit grey or RGB, malloc'd, an
/// optional ICC profile and orientation) and names itself.
///
/// `@unchecked Sendable`: nothing changes the pixels after the decode, and
/// `image()` (which hands them to libvips) is called once, by the one task
/// that owns the value at that point.
final class DecodedPixels: @unchecked Sendable {
    private var decoded: shim_jpeg_pixels
    /// The decoder that made the pixels.
    let decoder: DecodePath

    /// Takes `decoded` over (its pixels and profile are freed with this
    /// value); `decoder` names who made them, the JPEG paths' own code when nil.
    init(_ decoded: shim_jpeg_pixels, decoder: DecodePath? = nil) {
        self.decoded = decoded
        self.decoder = decoder ?? Self.jpegDecoder(decoded.decoder)
    }

    deinit { shim_jpeg_pixels_free(&decoded) }

    var width: Int { decoded.width }
    var height: Int { decoded.height }

    /// The JPEG path that `shim_jpeg_direct_decode_to` says it took.
    private static func jpegDecoder(_ code: Int32) -> DecodePath {
        switch code {
        case 1: .jpegDC
        case 2: .jpegDCProgressive
        case 3: .jpegProgressive
        default: .libjpeg
        }
    }

    /// A libvips image of the pixels (orientation and ICC profile attached);
    /// the image takes the memory over. Nil if called a second time.
    func image() -> VipsImageRef? {
        shim_jpeg_pixels_image(&decoded).map(VipsImageRef.init)
    }
}
