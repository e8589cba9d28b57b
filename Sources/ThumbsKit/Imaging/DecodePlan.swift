/// What `Thumbnailer.plan` decided for one source, before any pixel.
public struct DecodePlan: Sendable {
    public var path: DecodePath
    /// The header, when a JPEG's was read; libvips reads the others' later.
    public var info: SourceImageInfo?
    /// JPEG shrink on load (1, 2, 4 or 8).
    public var shrink: Int
    /// Memory the decode holds at its peak (`MemoryBudget`).
    public var peakBytes: Int
    /// Stored width and height (before orientation) the decode resizes to
    /// as it goes: a progressive JPEG at 1/1 on `jpeg_prog.c` streams its
    /// rows into the largest thumbnail's resize, so the full-size image is
    /// never held (36 MB for 12 MP). Nil: the decode's own size.
    public var target: PixelSize?
    /// The HEIF thumbnail to decode (`HeifThumbnail`), on `.heifThumbnail`.
    public var heifThumbnail: Int?
    /// A HEIF/AVIF still whose nclx box names PQ or HLG: decoded by libheif
    /// and tone-mapped (`HeifThumbnail.decodeHDR`), on `.heifThumbnail` or
    /// `.libheif`.
    public var heifHDR = false
    /// A camera RAW's preview or development (`RawDecoder`); nil otherwise.
    public var raw: RawDecodePlan?

    public init(path: DecodePath, info: SourceImageInfo?, shrink: Int, peakBytes: Int, target: PixelSize? = nil, raw: RawDecodePlan? = nil) {
        self.path = path
        self.info = info
        self.shrink = shrink
        self.peakBytes = peakBytes
        self.target = target
        self.raw = raw
    }
}
