/// One entry of `DecoderList`: a way to decode some sources.
///
/// Given what is known of a source before any pixel (`DecoderInput`: its
/// first bytes, its size, the sniff's format), an entry passes (nil) or
/// answers with a `DecodePlan`. Planning reads headers only, by ranges.
protocol ImageDecoder: Sendable {
    func plan(_ input: DecoderInput) throws(ItemError) -> DecodePlan?
}

/// A source as the decoders see it while they plan: the source itself, the
/// sniff's format (the item's one sniff: `SourceHeader`), and what the run
/// asks. The JPEG entries share one reading of the JPEG header (`jpeg`),
/// the RAW entries one opening by LibRaw (`raw`).
///
/// Made for one planning pass, on one thread.
final class DecoderInput {
    let source: ImageSource
    /// The sniff's format name (`ImageSniffer`), nil when it knows none.
    let format: String?
    let settings: OutputSettings
    let limits: DecodeLimits
    private var jpegRead: JPEGPlanning.Header??
    private var rawRead: RawHeader??

    /// `format`: the sniff's verdict when the caller made it (a file); else
    /// the first bytes are sniffed here (bytes in memory).
    init(source: ImageSource, format: String?, settings: OutputSettings, limits: DecodeLimits) {
        self.source = source
        self.format = format ?? ImageSniffer.format(of: source.prefix.prefix(ImageSniffer.prefixLength))
        self.settings = settings
        self.limits = limits
    }

    /// The JPEG's header and extent, read once whichever JPEG entry asks
    /// first; nil when the source is not a JPEG the direct paths take.
    func jpeg() throws(ItemError) -> JPEGPlanning.Header? {
        if let jpegRead { return jpegRead }
        let read = try JPEGPlanning.read(self)
        jpegRead = .some(read)
        return read
    }

    /// The RAW's kind and LibRaw's facts, read once whichever RAW entry asks
    /// first (a preview entry that passes leaves them to `LibRawDecoder`);
    /// nil when the source is not a RAW.
    func raw() throws(ItemError) -> RawHeader? {
        if let rawRead { return rawRead }
        let read = try RawHeader.read(source, limits: limits)
        rawRead = .some(read)
        return read
    }
}

/// Which bytes of a source a plan reads.
enum ByteRanges: Sendable, Equatable {
    /// Every byte, into memory (a libvips loader that reads only from
    /// memory: OpenEXR).
    case all
    /// These ranges: into memory in one read each (the JPEG paths).
    case ranges([Range<Int>])
    /// What its library asks for, through the descriptor, a range at a time
    /// (libvips, libheif, LibRaw, FFmpeg): a few buffers, never the file.
    case streamed
}

/// What one entry of `DecoderList` will do with a source, decided before any
/// pixel: the path, the picture's size, the memory it will hold, the bytes
/// it reads, and the decode itself.
public struct DecodePlan: Sendable {
    /// The decode path: its key in stats.json's `decoders`.
    public var path: DecodePath
    /// The picture as displayed (size after orientation, and orientation),
    /// when the plan read it; libvips's plan reads it from its loader's header.
    public var info: SourceImageInfo?
    /// The shrink on load (1, 2, 4 or 8; a RAW's half-size development: 2).
    public var shrink: Int
    /// Memory the decode holds at its peak, the source bytes it takes into
    /// memory included (`MemoryBudget`).
    public var peakBytes: Int
    /// Stored width and height (before orientation) the decode resizes to
    /// as it goes: a progressive JPEG at 1/1 on `jpeg_prog.c` streams its
    /// rows into the largest thumbnail's resize, so the full-size image is
    /// never held (36 MB for 12 MP). Nil: the decode's own size.
    public var target: PixelSize?
    /// The bytes of the source it reads.
    var reads: ByteRanges
    /// Its place in `DecoderList.entries`: a fallback is planned from the
    /// next one on.
    var entry = 0
    /// Decodes from the source; nil when this decoder declines after all
    /// (damaged data, a layout it does not take), and the next entry is
    /// planned. Throws the item's failure.
    let decode: @Sendable (ImageSource, OutputSettings, DecodeLimits) throws(ItemError) -> DecodedImage?

    init(
        path: DecodePath, info: SourceImageInfo?, shrink: Int = 1, peakBytes: Int, target: PixelSize? = nil, reads: ByteRanges,
        decode: @escaping @Sendable (ImageSource, OutputSettings, DecodeLimits) throws(ItemError) -> DecodedImage?
    ) {
        self.path = path
        self.info = info
        self.shrink = shrink
        self.peakBytes = peakBytes
        self.target = target
        self.reads = reads
        self.decode = decode
    }
}
