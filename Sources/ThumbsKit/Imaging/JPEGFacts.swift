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
        case .jpegDC where shrink == 4:
            // A baseline file's 2×2 decode: four 2-byte coefficients per
            // block and component (twice the 1/4 image, MCU padding
            // aside: an MCU of 16 rows and columns at most), then the image.
            let padded = ThumbnailGeometry.jpegDecodedSize(width: width + 16, height: height + 16, shrink: 4)
            return 2 * padded.width * padded.height * max(1, components) + decodedBytes(shrink: 4)
        case .jpegDC, .jpegDCProgressive:
            // One byte per block and component, plus the 1/8 image.
            return 2 * decodedBytes(shrink: 8)
        case .jpegProgressive:
            // jpeg_prog.c's own count, as it checks it (pixels included).
            return compactBytes(shrink: shrink)
        case .libjpeg, .libvips, .jpegPreview, .rawPreview, .libraw, .heifThumbnail, .libheif, .video:
            return decodedBytes(shrink: shrink) + (progressive ? coefficientBytes : 0)
        }
    }
}
