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
    /// decodes stream through libvips in strips instead. 32 MB holds a 1/1
    /// decode of a 10 MP colour photo (30 MB), or a 1/2 decode of a 40 MP
    /// one: every phone's photo at the sizes thumbnails need. The run's
    /// `MemoryBudget` is this much per job (`MemoryBudget.perJob`).
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

    /// Decodes at 1/`shrink` on `path` alone (one of `JPEGPathRule`'s)
    /// within `memoryBudget` bytes (pixels, plus coefficients when libjpeg
    /// buffers them), or nil when that path declines. With a `target`, a
    /// progressive file at 1/1 on `jpeg_prog.c` comes out resized to it
    /// (every other decode ignores it: look at the size).
    static func decode(
        _ bytes: UnsafeRawBufferPointer, path: DecodePath, shrink: Int, target: PixelSize? = nil, memoryBudget: Int
    ) -> DecodedPixels? {
        let code: Int32
        switch path {
        case .jpegDC, .jpegDCProgressive: code = Int32(SHIM_JPEG_PATH_DC)
        case .jpegProgressive: code = Int32(SHIM_JPEG_PATH_COMPACT)
        case .libjpeg: code = Int32(SHIM_JPEG_PATH_LIBJPEG)
        default: return nil
        }
        var decoded = shim_jpeg_pixels()
        guard shim_jpeg_direct_decode_path(bytes.baseAddress, bytes.count, code, Int32(shrink), Int32(target?.width ?? 0),
                                           Int32(target?.height ?? 0), memoryBudget, &decoded) == 0 else {
            return nil
        }
        return DecodedPixels(decoded)
    }
}
