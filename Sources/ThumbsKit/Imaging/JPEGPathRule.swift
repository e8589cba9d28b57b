/// Which JPEG path decodes a JPEG: the rule, written once.
enum JPEGPathRule {
    /// The JPEG paths that may decode an image, best first, before any
    /// pixel is decoded: the first is the plan, each next one what follows
    /// when the one before declines. The one place this is decided (as
    /// sharp's `shouldPreShrink` is): `jpeg_direct.c` decodes on the path it
    /// is given, and the JPEG entries of `DecoderList` plan only the paths
    /// named here. Empty: libvips.
    ///
    /// - `--keep-metadata`: libvips, whose loader carries EXIF and XMP over.
    /// - Not a JPEG, or one libjpeg cannot give as 8-bit RGB or grey straight
    ///   away (CMYK, YCCK, 12-bit, arithmetic coding): libvips.
    /// - 1/8 scale serves every box and the frame suits it: the DC-only
    ///   decode, for baseline and progressive files alike.
    /// - A baseline file at 1/4 whose frame suits the DC decode, while its
    ///   planes fit the per-image `pixelBudget`: the DC entry's 2×2 decode,
    ///   which walks every AC symbol as the 1/8 decode does but keeps each
    ///   block's three lowest AC coefficients (zigzag 1, 2, 4) and skips
    ///   the rest undecoded, where libjpeg decodes all 64 for its 2×2
    ///   reduced IDCT. Its pixels are within about 50 dB of libjpeg's
    ///   (`jpeg_dc.c`, QUARTER). A progressive file at 1/4 keeps the
    ///   compact decode below: its low AC coefficients come in scans of
    ///   their own.
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
    /// The DC (1/8 and 1/4) and compact decodes are followed by libjpeg at the same scale
    /// (their scans may still refuse them). A decode that fails on every
    /// JPEG path named (damaged data, anything libjpeg would warn about
    /// before the picture is whole) goes to libvips, the list's last entry,
    /// so that `--fail-on` gives one file one verdict whatever the size
    /// asked. (Bytes after the last MCU, which libjpeg's path now spares,
    /// pass libvips's loader under every `--fail-on` too.)
    static func candidates(jpeg: JPEGFacts?, shrink: Int, keepMetadata: Bool, pixelBudget: Int) -> [DecodePath] {
        guard !keepMetadata, let jpeg, jpeg.directlyDecodable else { return [] }
        if shrink == 8 && jpeg.dcCapable { return [jpeg.progressive ? .jpegDCProgressive : .jpegDC, .libjpeg] }
        if shrink == 4 && !jpeg.progressive && jpeg.dcCapable && jpeg.peakBytes(path: .jpegDC, shrink: 4) <= pixelBudget {
            // The DC decode's planes outweigh libjpeg's pixels: libjpeg fits too.
            return [.jpegDC, .libjpeg]
        }
        if jpeg.progressive && jpeg.compactBytes(shrink: shrink) > 0 { return [.jpegProgressive, .libjpeg] }
        if jpeg.progressive { return [.libjpeg] }
        return jpeg.decodedBytes(shrink: shrink) <= pixelBudget ? [.libjpeg] : []
    }
}

extension DecodePath {
    /// The path `JPEGPathRule` plans first for a JPEG (libvips for none).
    public static func choose(jpeg: JPEGFacts?, shrink: Int, keepMetadata: Bool, pixelBudget: Int) -> DecodePath {
        JPEGPathRule.candidates(jpeg: jpeg, shrink: shrink, keepMetadata: keepMetadata, pixelBudget: pixelBudget).first ?? .libvips
    }
}
