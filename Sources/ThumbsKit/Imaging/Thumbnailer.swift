import CVipsShim

/// Turns the bytes of one image into its thumbnails: `plan`, then `decode`,
/// then `finish`.
///
/// Blocking and CPU-bound: call it on the decoding pool, never on Swift's
/// cooperative threads. Every libvips handle is created and released inside
/// one call; only plain values come out. Every call's libvips work runs
/// inside `VipsErrorBuffer.attributed`, so that a failure's message is the
/// item's own.
public enum Thumbnailer {
    /// Reads the header and chooses how to decode (`DecodePath.choose`),
    /// without decoding a pixel. The pixel limit is checked here when the
    /// header is a JPEG's; every other format is checked by `decode`, when
    /// libvips opens its header.
    public static func plan(
        _ bytes: UnsafeRawBufferPointer,
        settings: OutputSettings,
        limits: DecodeLimits
    ) throws(ItemError) -> DecodePlan {
        if let raw = try RawDecoder.plan(bytes, settings: settings, limits: limits) { return raw }
        guard let header = DirectJPEG.probe(bytes) else {
            if let plan = try HeifPlanning.plan(bytes, settings: settings, limits: limits) { return plan }
            return DecodePlan(path: .libvips, info: nil, shrink: 1, peakBytes: 0)
        }
        try limits.checkPixels(width: header.width, height: header.height)
        let info = SourceImageInfo(format: "jpeg", storedWidth: header.width, storedHeight: header.height, orientation: header.orientation)
        let plans = ThumbnailPlans(info, settings: settings)
        let shrink = plans.jpegShrink
        let facts = header.facts
        let path = DecodePath.choose(
            jpeg: facts, shrink: shrink, keepMetadata: settings.keepMetadata, pixelBudget: DirectJPEG.memoryBudget
        )
        let peakBytes = facts.peakBytes(path: path, shrink: shrink)
        if path == .jpegProgressive,
           let target = plans.streamTarget(decoded: ThumbnailGeometry.jpegDecodedSize(width: info.width, height: info.height, shrink: shrink)) {
            let streamed = shim_jpeg_streamed_bytes(bytes.baseAddress, bytes.count, Int32(shrink), Int32(target.width), Int32(target.height))
            // Worth it when the resize saves more than its input rows and
            // scratch cost (not for a target of nearly the decode's size).
            if streamed > 0 && streamed < peakBytes {
                return DecodePlan(path: path, info: info, shrink: shrink, peakBytes: streamed, target: target)
            }
        }
        return DecodePlan(path: path, info: info, shrink: shrink, peakBytes: peakBytes)
    }

    /// The first half of making an image's thumbnails: on a JPEG path the
    /// image is decoded into memory and waits for `finish`; on libvips it is
    /// rendered in full here (`LibvipsDecoder`), because libvips decodes
    /// lazily while resizing.
    ///
    /// Two halves so that the pipeline can run them on different threads: a
    /// decode thread goes on to the next image while libvips resizes and
    /// encodes this one (on its own worker threads, which the caller would
    /// otherwise sit waiting for).
    public static func decode(
        _ bytes: UnsafeRawBufferPointer,
        plan: DecodePlan,
        settings: OutputSettings,
        limits: DecodeLimits
    ) throws(ItemError) -> DecodedImage {
        if let raw = plan.raw, let info = plan.info {
            return try RawDecoder.decode(bytes, plan: plan, raw: raw, info: info, limits: limits)
        }
        if plan.path.isDirectJPEG, let info = plan.info,
           let pixels = DirectJPEG.decode(bytes, shrink: plan.shrink, target: plan.target,
                                          memoryBudget: max(DirectJPEG.memoryBudget, plan.peakBytes)) {
            return DecodedImage(info: info, decoder: pixels.decoder, stage: .pixels(pixels), failOn: limits.failOn)
        }
        if plan.heifHDR, let info = plan.info {
            // Tone-mapped, or a clear failure: libvips would show the
            // signal flat.
            let pixels = try HeifThumbnail.decodeHDR(
                bytes, index: plan.heifThumbnail, decoder: plan.path,
                needed: ThumbnailPlans(info, settings: settings).neededSize, peakBytes: plan.peakBytes
            )
            return DecodedImage(info: info, decoder: plan.path, stage: .pixels(pixels), failOn: limits.failOn)
        }
        if plan.path == .heifThumbnail, let info = plan.info, let index = plan.heifThumbnail,
           let pixels = try? HeifThumbnail.decode(bytes, index: index) {
            return DecodedImage(info: info, decoder: .heifThumbnail, stage: .pixels(pixels), failOn: limits.failOn)
        }
        if plan.path == .libheif, let info = plan.info,
           let pixels = HeifThumbnail.decodePrimary(bytes, needed: ThumbnailPlans(info, settings: settings).neededSize, peakBytes: plan.peakBytes) {
            return DecodedImage(info: info, decoder: .libheif, stage: .pixels(pixels), failOn: limits.failOn)
        }
        // Not a JPEG of the direct paths, or one they gave up on (damaged
        // data, an unusual layout): libvips decides, under --fail-on.
        let (info, rendered) = try VipsErrorBuffer.attributed { () throws(ImagingError) in
            try LibvipsDecoder.render(bytes, settings: settings, limits: limits)
        }
        return DecodedImage(info: info, decoder: .libvips, stage: .rendered(rendered), failOn: limits.failOn)
    }

    /// The second half: resizes and encodes decoded pixels
    /// (`ThumbnailRenderer`); a no-op for images `decode` rendered already.
    public static func finish(_ decoded: DecodedImage, settings: OutputSettings) throws(ItemError) -> RenderedImage {
        switch decoded.stage {
        case .rendered(let rendered):
            return rendered
        case .pixels(let pixels):
            // Made once, and kept for a second run if the first fails.
            var base: VipsImageRef?
            defer { base = nil }
            return try VipsErrorBuffer.attributed { () throws(ImagingError) in
                if base == nil { base = pixels.image() }
                guard let base else {
                    throw .item(.encode("cannot make the thumbnails: the decoded pixels were used already"))
                }
                // The pixels are decoded: what fails is a resize or an encoder.
                return try ThumbnailRenderer.render(
                    base, plans: ThumbnailPlans(decoded.info, settings: settings), settings: settings,
                    failure: .thumbnails
                )
            }
        }
    }
}
