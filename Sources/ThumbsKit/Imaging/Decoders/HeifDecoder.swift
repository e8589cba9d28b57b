/// HEIF, HEIC and AVIF stills through libheif: the embedded thumbnail when
/// one serves every size (`HeifThumbnail`), else the primary image, resized
/// in libheif's own RGB planes to the largest thumbnail before it becomes
/// one image; a PQ or HLG still tone-mapped either way. libheif reads the
/// file through thumbs' descriptor (`HeifInput`): the boxes and the coded
/// data of the image it decodes, never the rest (`ByteRanges.streamed`).
///
/// Passes a file libheif cannot read, and one with `--keep-metadata` (unless
/// HDR): libvips's loader then reads it, and gives the item its verdict.
/// Without libheif itself (not installed, not loadable) the item fails
/// here with the loader's message: libvips's HEIF loader needs it too.
struct HeifDecoder: ImageDecoder {
    func plan(_ input: DecoderInput) throws(ItemError) -> DecodePlan? {
        guard let format = input.format, format == "heif" || format == "avif" else { return nil }
        try HeifThumbnail.requireLibrary(format: format)
        let settings = input.settings
        guard let facts = try HeifThumbnail.facts(input.source, plans: { ThumbnailPlans($0, settings: settings) }) else {
            return nil
        }
        try input.limits.checkPixels(width: facts.width, height: facts.height)
        // libheif applies the transformations itself: the sizes are as
        // displayed, and the pixels come out upright.
        let info = SourceImageInfo(format: format, width: facts.width, height: facts.height, orientation: 1)
        let plans = ThumbnailPlans(info, settings: settings)
        let needed = plans.neededSize
        if facts.hdr {
            // PQ or HLG: tone-mapped by thumbs, from the thumbnail when one
            // serves, else from the primary image (libvips 8.14 would show
            // the signal flat). Right colours take precedence over
            // --keep-metadata: such a file's thumbnail carries no EXIF. Peak:
            // libheif's 16-bit RGB (6 bytes a pixel) and its 16-bit 4:2:0
            // planes (3). No fallback: tone-mapped, or a clear failure.
            let (width, height) = facts.thumbnail == nil
                ? (facts.width, facts.height) : (facts.thumbnailWidth, facts.thumbnailHeight)
            let path: DecodePath = facts.thumbnail == nil ? .libheif : .heifThumbnail
            let index = facts.thumbnail, peak = width * height * 9
            return DecodePlan(path: path, info: info, peakBytes: peak, reads: .streamed) { source, _, limits throws(ItemError) in
                let pixels = try HeifThumbnail.decodeHDR(source, index: index, decoder: path, needed: needed, peakBytes: peak)
                return DecodedImage(info: info, decoder: path, stage: .pixels(pixels), failOn: limits.failOn)
            }
        }
        // libvips's loader carries EXIF and XMP over.
        if settings.keepMetadata { return nil }
        guard let index = facts.thumbnail else {
            // The primary image in libheif's planar RGB, each plane resized
            // to the largest thumbnail (`HeifThumbnail.decodePrimary`);
            // libvips if that declines.
            let target = plans.streamTarget(decoded: (facts.width, facts.height))
            let peak = Self.primaryPeakBytes(width: facts.width, height: facts.height, target: target, grid: facts.grid)
            return DecodePlan(path: .libheif, info: info, peakBytes: peak, target: target, reads: .streamed) { source, _, limits throws(ItemError) in
                let pixels = try HeifThumbnail.decodePrimary(source, target: target, peakBytes: peak)
                return pixels.map { DecodedImage(info: info, decoder: .libheif, stage: .pixels($0), failOn: limits.failOn) }
            }
        }
        let peak = facts.thumbnailWidth * facts.thumbnailHeight * 4 * 2
        return DecodePlan(path: .heifThumbnail, info: info, peakBytes: peak, reads: .streamed) { source, _, limits throws(ItemError) in
            let pixels = try? HeifThumbnail.decode(source, index: index)
            return pixels.map { DecodedImage(info: info, decoder: .heifThumbnail, stage: .pixels($0), failOn: limits.failOn) }
        }
    }

    /// What decoding the primary image of a `width` × `height` HEIF into
    /// `target` (nil: its own size) reserves. A `grid` (a phone's tiles):
    /// what it holds at its peak, libheif 1.15's full-size planar RGB
    /// (3 bytes a pixel: 36 MB for 12 MP), into which it pastes the tiles,
    /// and the resized planes thumbs makes from it; a tile in flight (a
    /// 512² picture, its RGB and FFmpeg's context) is under a megabyte a
    /// thread. So a 12 MP grid reserves more than one job's share
    /// (`MemoryBudget.perJob`, 32 MB): at `--jobs 2` two never decode at
    /// once (they took 12 iPhone HEICs to 200-236 MiB), and the one that
    /// runs decodes its tiles on both jobs' threads (`HeifThumbnail.threads`).
    /// One picture (an encoder's HEIC, not a grid) reserves half its planes,
    /// less than it holds (about 5 bytes a pixel: its 4:2:0 picture,
    /// FFmpeg's, and the RGB libheif converts it to, on one thread): all of
    /// it would decode such files one at a time, and 12 generated 4000×3000
    /// HEICs took 4.0-5.2 s at `--jobs 2` instead of 2.5-3.6 s (peak
    /// 147 MiB instead of 204-217).
    static func primaryPeakBytes(width: Int, height: Int, target: PixelSize?, grid: Bool) -> Int {
        guard grid else { return width * height * 3 / 2 }
        let planes = width * height * 3
        let resized = target.map { $0.width * $0.height * 3 } ?? planes
        return planes + resized
    }
}
