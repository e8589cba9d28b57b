/// HEIF, HEIC and AVIF stills through libheif: the embedded thumbnail when
/// one serves every size (`HeifThumbnail`), else the primary image in its
/// own 4:2:0 planes, shrunk before it becomes RGB; a PQ or HLG still
/// tone-mapped either way. libheif reads from memory only: the plan reads
/// the whole file (`ByteRanges.all`), and counts it in its peak.
///
/// Passes a file libheif cannot read, and one with `--keep-metadata` (unless
/// HDR): libvips's loader then reads it, and gives the item its verdict.
struct HeifDecoder: ImageDecoder {
    func plan(_ input: DecoderInput) throws(ItemError) -> DecodePlan? {
        guard let format = input.format, format == "heif" || format == "avif" else { return nil }
        let settings = input.settings
        let facts = try input.source.withAllBytes { bytes throws(ItemError) in
            HeifThumbnail.facts(bytes, plans: { ThumbnailPlans($0, settings: settings) })
        }
        guard let facts else { return nil }
        try input.limits.checkPixels(width: facts.width, height: facts.height)
        // The file, held while libheif decodes it from memory.
        let held = input.source.inMemory ? 0 : input.source.count
        // libheif applies the transformations itself: the sizes are as
        // displayed, and the pixels come out upright.
        let info = SourceImageInfo(format: format, width: facts.width, height: facts.height, orientation: 1)
        let needed = ThumbnailPlans(info, settings: settings).neededSize
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
            return DecodePlan(path: path, info: info, peakBytes: peak + held, reads: .all) { source, _, limits throws(ItemError) in
                let pixels = try source.withAllBytes { bytes throws(ItemError) in
                    try HeifThumbnail.decodeHDR(bytes, index: index, decoder: path, needed: needed, peakBytes: peak)
                }
                return DecodedImage(info: info, decoder: path, stage: .pixels(pixels), failOn: limits.failOn)
            }
        }
        // libvips's loader carries EXIF and XMP over.
        if settings.keepMetadata { return nil }
        guard let index = facts.thumbnail else {
            // The primary image in its own 4:2:0 planes, shrunk before RGB
            // (`HeifThumbnail.decodePrimary`); libvips if that declines.
            // Reserved: the 4:2:0 planes thumbs gets back (1.5 bytes a
            // pixel). libheif 1.15 also holds the grid's decoded tiles until
            // it has copied them into those planes, and its HEVC decoder its
            // own frames: about 5 bytes a pixel at the peak. Reserving that
            // runs 12 MP HEICs one at a time at --jobs 2: 130 MB instead of
            // 196 at the peak on the bench, but 0.94–0.99× vipsthumbnail's
            // speed instead of 1.9×. Speed is kept; a libheif with a tile
            // API (1.17+) would give both.
            let peak = facts.width * facts.height * 3 / 2
            return DecodePlan(path: .libheif, info: info, peakBytes: peak + held, reads: .all) { source, _, limits throws(ItemError) in
                let pixels = try source.withAllBytes { bytes throws(ItemError) in
                    HeifThumbnail.decodePrimary(bytes, needed: needed, peakBytes: peak)
                }
                return pixels.map { DecodedImage(info: info, decoder: .libheif, stage: .pixels($0), failOn: limits.failOn) }
            }
        }
        let peak = facts.thumbnailWidth * facts.thumbnailHeight * 4 * 2
        return DecodePlan(path: .heifThumbnail, info: info, peakBytes: peak + held, reads: .all) { source, _, limits throws(ItemError) in
            let pixels = try source.withAllBytes { bytes throws(ItemError) in try? HeifThumbnail.decode(bytes, index: index) }
            return pixels.map { DecodedImage(info: info, decoder: .heifThumbnail, stage: .pixels($0), failOn: limits.failOn) }
        }
    }
}
