/// How one image is decoded: the paths thumbs has, one per entry of
/// `DecoderList` (the RAW and HEIF entries name two each). The raw values are the keys of stats.json's
/// `decoders` object and of the `item` log event.
public enum DecodePath: String, Sendable, Codable, CaseIterable {
    /// Baseline JPEG at 1/8: DC coefficients only, AC skipped by table
    /// (`jpeg_dc.c`). At 1/4, the same walk keeps each block's three lowest
    /// AC coefficients for a 2×2 inverse DCT: a scale of the same entry,
    /// which refuses and falls back to libjpeg as it does at 1/8.
    case jpegDC = "jpeg-dc"
    /// Progressive JPEG at 1/8: its DC scans only; AC scans are never decoded.
    case jpegDCProgressive = "jpeg-dc-progressive"
    /// A camera JPEG's own preview (an MPF large thumbnail or a maker-note
    /// preview) when it covers the box and nothing says the photo was
    /// edited, on the JPEG paths (`JPEGPreviewDecoder`).
    case jpegPreview = "jpeg-preview"
    /// Progressive JPEG at 1/2 or 1/4: every scan decoded, but only the
    /// coefficients the reduced IDCT reads are kept; at 1/1, the scans are
    /// parsed once, then replayed a band of rows at a time (`jpeg_prog.c`).
    case jpegProgressive = "jpeg-progressive"
    /// libjpeg from memory, scaled on load to 1/1, 1/2 or 1/4 (`jpeg_direct.c`).
    case libjpeg
    /// libvips's own loaders: every other format, and every JPEG above.
    case libvips
    /// A camera RAW's embedded JPEG preview, on the JPEG paths above.
    case rawPreview = "raw-preview"
    /// A camera RAW developed from its sensor data by LibRaw (at half size
    /// where the box allows), when no preview covers the box.
    case libraw
    /// A HEIF/HEIC/AVIF file's embedded thumbnail, when it covers the box
    /// and is a scaled copy of the primary image.
    case heifThumbnail = "heif-thumbnail"
    /// A HEIF/HEIC file's primary image decoded by libheif in its own
    /// YCbCr 4:2:0, box-shrunk before it becomes RGB (8-bit, no alpha).
    case libheif
    /// A video's poster frame, decoded by FFmpeg's libraries.
    case video

    /// The JPEG paths (`JPEGPathRule`), which decode a JPEG file into plain
    /// memory (`DecodedPixels`).
    var isDirectJPEG: Bool {
        switch self {
        case .jpegDC, .jpegDCProgressive, .jpegProgressive, .libjpeg: true
        default: false
        }
    }
}
