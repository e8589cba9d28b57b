/// How one image is decoded: the paths thumbs has, by how much of the file
/// each one reads and keeps. The raw values are the keys of stats.json's
/// `decoders` object and of the `item` log event.
public enum DecodePath: String, Sendable, Codable, CaseIterable {
    /// Baseline JPEG at 1/8: DC coefficients only, AC skipped by table (`jpeg_dc.c`).
    case jpegDC = "jpeg-dc"
    /// Progressive JPEG at 1/8: its DC scans only; AC scans are never decoded.
    case jpegDCProgressive = "jpeg-dc-progressive"
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

    /// Chooses the path for an image, before any pixel is decoded; the one
    /// place this decision is made (as sharp's `shouldPreShrink` is).
    ///
    /// - `--keep-metadata`: libvips, whose loader carries EXIF and XMP over.
    /// - Not a JPEG, or one libjpeg cannot give as 8-bit RGB or grey straight
    ///   away (CMYK, YCCK, 12-bit, arithmetic coding): libvips.
    /// - 1/8 scale serves every box and the frame suits it: the DC-only
    ///   decode, for baseline and progressive files alike.
    /// - A progressive file at 1/2 or 1/4 whose frame suits it: the compact
    ///   decode, which keeps the 4×4 low coefficients of each block (all 64
    ///   where libjpeg would use an 8×8 IDCT, as for 4:2:0 chroma at 1/2)
    ///   plus a bit per other coefficient, where libjpeg keeps all 64 of
    ///   every block (72 MB for a 12 MP 4:4:4 photo; 22.5 MB this way).
    /// - A progressive file at 1/1 whose frame suits it: the banded decode,
    ///   which parses every scan once keeping only a bit per coefficient
    ///   and where each band of 32 rows starts in each scan, then replays
    ///   the scans band by band (4.5 MB, then 1.5 MB of coefficients for a
    ///   12 MP 4:4:4 photo, instead of libjpeg's 72 MB).
    /// - Otherwise libjpeg at 1/4, 1/2 or 1/1 while the decoded pixels fit
    ///   the per-image `pixelBudget`; larger baseline images stream through
    ///   libvips in strips instead. Other progressive files stay on libjpeg,
    ///   which holds all their coefficients, and the run's `MemoryBudget`
    ///   admits such decodes by size.
    ///
    /// A decode that fails on any of the JPEG paths (damaged data, anything
    /// libjpeg would warn about) is retried on libvips, so that `--fail-on`
    /// gives one file one verdict whatever the size asked.
    public static func choose(
        jpeg: JPEGFacts?, shrink: Int, keepMetadata: Bool, pixelBudget: Int
    ) -> DecodePath {
        guard !keepMetadata, let jpeg, jpeg.directlyDecodable else { return .libvips }
        if shrink == 8 && jpeg.dcCapable { return jpeg.progressive ? .jpegDCProgressive : .jpegDC }
        if jpeg.progressive && jpeg.compactBytes(shrink: shrink) > 0 { return .jpegProgressive }
        if jpeg.progressive { return .libjpeg }
        return jpeg.decodedBytes(shrink: shrink) <= pixelBudget ? .libjpeg : .libvips
    }

    /// The JPEG paths of `choose`, which decode a JPEG file into plain
    /// memory (`DecodedPixels`).
    var isDirectJPEG: Bool {
        switch self {
        case .jpegDC, .jpegDCProgressive, .jpegProgressive, .libjpeg: true
        default: false
        }
    }
}

/// What the header of a JPEG tells the choice of a decode path.
public struct JPEGFacts: Sendable, Hashable {
    /// Stored size, before orientation.
    public var width: Int
    public var height: Int
    /// 1 for grey, 3 for colour.
    public var components: Int
    public var progressive: Bool
    /// libjpeg gives 8-bit RGB or grey for it (not CMYK, YCCK, 12-bit…).
    public var directlyDecodable: Bool
    /// Its frame allows the DC-only decode at 1/8 (sampling, block counts);
    /// its scans may still send it elsewhere.
    public var dcCapable: Bool
    /// What libjpeg holds for a progressive file: every block's 64
    /// coefficients, two bytes each, for the whole image (0 for baseline).
    public var coefficientBytes: Int
    /// What the compact progressive decode (`jpeg_prog.c`) holds at 1/2 and
    /// at 1/4: about 40 bytes a block instead of 128, plus the pixels; and
    /// at 1/1, where it decodes a band at a time: about the pixels. 0 where
    /// its frame rules refuse the file (e.g. luma sampled below chroma).
    public var compactBytesHalf: Int
    public var compactBytesQuarter: Int
    public var compactBytesFull: Int

    public init(
        width: Int, height: Int, components: Int, progressive: Bool, directlyDecodable: Bool, dcCapable: Bool = true, coefficientBytes: Int,
        compactBytesHalf: Int = 0, compactBytesQuarter: Int = 0, compactBytesFull: Int = 0
    ) {
        self.width = width
        self.height = height
        self.components = components
        self.progressive = progressive
        self.directlyDecodable = directlyDecodable
        self.dcCapable = dcCapable
        self.coefficientBytes = coefficientBytes
        self.compactBytesHalf = compactBytesHalf
        self.compactBytesQuarter = compactBytesQuarter
        self.compactBytesFull = compactBytesFull
    }

    /// The compact decode's peak at 1/`shrink` (0: it does not take it).
    public func compactBytes(shrink: Int) -> Int {
        switch shrink {
        case 2: compactBytesHalf
        case 4: compactBytesQuarter
        case 1: compactBytesFull
        default: 0
        }
    }

    /// Bytes of the decoded pixels at 1/`shrink`.
    public func decodedBytes(shrink: Int) -> Int {
        let size = ThumbnailGeometry.jpegDecodedSize(width: width, height: height, shrink: shrink)
        return size.width * size.height * max(1, components)
    }

    /// Memory a decode on `path` holds at its peak, besides the source bytes.
    public func peakBytes(path: DecodePath, shrink: Int) -> Int {
        switch path {
        case .jpegDC, .jpegDCProgressive:
            // One byte per block and component, plus the 1/8 image.
            return 2 * decodedBytes(shrink: 8)
        case .jpegProgressive:
            // jpeg_prog.c's own count, as it checks it (pixels included).
            return compactBytes(shrink: shrink)
        case .libjpeg, .libvips, .rawPreview, .libraw, .heifThumbnail, .libheif, .video:
            return decodedBytes(shrink: shrink) + (progressive ? coefficientBytes : 0)
        }
    }
}
