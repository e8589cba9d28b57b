/// Camera RAWs, first way: the picture from the cheapest embedded JPEG
/// preview that serves every size, on thumbs' own JPEG paths (a full-size
/// preview decodes at 1/8 from its DC coefficients like any JPEG), reading
/// that preview's bytes only. Decode path `raw-preview`.
///
/// Passes when no preview serves; declines at decode when the chosen one
/// does not decode (not a JPEG after all, cut short, smaller than its header
/// said): either way `LibRawDecoder`, next in `DecoderList`, is planned and
/// reserved on its own.
struct RawPreviewDecoder: ImageDecoder {
    func plan(_ input: DecoderInput) throws(ItemError) -> DecodePlan? {
        guard RawHeader.mayBeRaw(format: input.format), let raw = try input.raw() else { return nil }
        let source = input.source
        let needed = ThumbnailPlans(raw.info, settings: input.settings).neededSize
        guard let (preview, header) = Self.picture(in: source, raw: raw, needed: needed, maxPixels: input.limits.maxPixels)
        else { return nil }
        let shrink = ThumbnailGeometry.jpegShrink(
            sourceWidth: header.width, sourceHeight: header.height, neededWidth: needed.width, neededHeight: needed.height
        )
        var path = DecodePath.choose(jpeg: header.facts, shrink: shrink, keepMetadata: false, pixelBudget: DirectJPEG.memoryBudget)
        // Too large for the per-image budget: libjpeg still, admitted by size.
        if path == .libvips { path = .libjpeg }
        // Read from a file, the preview's bytes are held while it decodes.
        let held = source.inMemory ? 0 : preview.range.count
        let peakBytes = header.facts.peakBytes(path: path, shrink: shrink) + held
        let chosen = Chosen(range: preview.range, shrink: shrink, facts: header.facts)
        let info = raw.info, orientation = raw.facts.orientation
        return DecodePlan(path: .rawPreview, info: info, shrink: shrink, peakBytes: peakBytes,
                          reads: .ranges([preview.range])) { source, _, limits throws(ItemError) in
            guard let pixels = try Self.decode(source, chosen, orientation: orientation, peakBytes: peakBytes),
                  pixels.width + 1 >= needed.width, pixels.height + 1 >= needed.height
            else { return nil }
            try source.checkUnchanged()
            return DecodedImage(info: info, decoder: .rawPreview, stage: .pixels(pixels), failOn: limits.failOn)
        }
    }

    /// The picture this entry decodes, with its header's facts: of the
    /// RAW's candidates (`RawPreviewFinder.candidates`: the embedded-picture
    /// listing's and LibRaw's thumbnail), the cheapest that covers `needed`
    /// (stored orientation) by the camera JPEG's rule. Nil: none serves,
    /// and LibRaw develops.
    static func picture(
        in source: ImageSource, raw: RawHeader, needed: (width: Int, height: Int), maxPixels: Int
    ) -> (EmbeddedPictureListing.Picture, JPEGPreviewDecoder.Probed)? {
        let candidates = RawPreviewFinder.candidates(in: source, libraw: raw.facts.jpegThumbnail)
        return RawPreviewFinder.choose(
            candidates, in: source, photo: (raw.facts.width, raw.facts.height), orientation: raw.facts.orientation,
            needed: needed, maxPixels: maxPixels
        )
    }

    /// The preview the plan chose: its bytes in the file, the JPEG shrink
    /// that fits its own size, and its header's facts.
    private struct Chosen: Sendable {
        var range: Range<Int>
        var shrink: Int
        var facts: JPEGFacts
    }

    /// Nil when the preview does not decode; throws only when the file can
    /// no longer be read.
    private static func decode(
        _ source: ImageSource, _ preview: Chosen, orientation: Int, peakBytes: Int
    ) throws(ItemError) -> DecodedPixels? {
        guard preview.range.lowerBound >= 0, preview.range.upperBound <= source.count else { return nil }
        // The JPEG paths `JPEGPathRule` allows the preview, in turn.
        let paths = JPEGPathRule.candidates(jpeg: preview.facts, shrink: preview.shrink, keepMetadata: false,
                                            pixelBudget: DirectJPEG.memoryBudget)
        let budget = max(DirectJPEG.memoryBudget, peakBytes)
        let decoded = try source.withBytes(in: preview.range) { slice in
            PreviewPathAttempts.decode(slice, paths: paths, shrink: preview.shrink, memoryBudget: budget)
        }
        // A preview has no orientation of its own as a rule: the RAW's.
        return decoded?.asRawPreview(orientation: orientation)
    }
}
