/// The decode plan of a HEIF, HEIC or AVIF file: its embedded thumbnail
/// when one serves every size (`HeifThumbnail`), else libvips's loader on
/// the primary image, admitted by the memory its decode holds.
enum HeifPlanning {
    /// Nil when the bytes are not a HEIF file libheif can read (libvips then
    /// reads it, and gives the item its verdict).
    static func plan(
        _ bytes: UnsafeRawBufferPointer, settings: OutputSettings, limits: DecodeLimits
    ) throws(ItemError) -> DecodePlan? {
        guard let format = ImageSniffer.format(of: UnsafeRawBufferPointer(rebasing: bytes.prefix(64))),
              format == "heif" || format == "avif",
              let facts = HeifThumbnail.facts(bytes, plans: { ThumbnailPlans($0, settings: settings) })
        else { return nil }
        try limits.checkPixels(width: facts.width, height: facts.height)
        // libheif applies the transformations itself: the sizes are as
        // displayed, and the pixels come out upright.
        let info = SourceImageInfo(format: format, width: facts.width, height: facts.height, orientation: 1)
        if facts.hdr {
            // PQ or HLG: tone-mapped by thumbs, from the thumbnail when one
            // serves, else from the primary image (libvips 8.14 would show
            // the signal flat). Right colours take precedence over
            // --keep-metadata: such a file's thumbnail carries no EXIF. Peak:
            // libheif's 16-bit RGB (6 bytes a pixel) and its 16-bit 4:2:0
            // planes (3).
            let (width, height) = facts.thumbnail == nil
                ? (facts.width, facts.height) : (facts.thumbnailWidth, facts.thumbnailHeight)
            var plan = DecodePlan(path: facts.thumbnail == nil ? .libheif : .heifThumbnail, info: info, shrink: 1,
                                  peakBytes: width * height * 9)
            plan.heifThumbnail = facts.thumbnail
            plan.heifHDR = true
            return plan
        }
        if settings.keepMetadata {
            // libvips's loader carries EXIF and XMP over. It decodes the
            // whole primary image: YCbCr (1.5 bytes a pixel), then RGB (3).
            return DecodePlan(path: .libvips, info: nil, shrink: 1, peakBytes: facts.width * facts.height * 9 / 2)
        }
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
            return DecodePlan(path: .libheif, info: info, shrink: 1, peakBytes: facts.width * facts.height * 3 / 2)
        }
        var plan = DecodePlan(path: .heifThumbnail, info: info, shrink: 1,
                              peakBytes: facts.thumbnailWidth * facts.thumbnailHeight * 4 * 2)
        plan.heifThumbnail = index
        return plan
    }
}
