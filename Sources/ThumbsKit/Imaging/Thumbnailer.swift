import CVipsShim

/// Turns a decoded image into its thumbnails (`finish`), and plans and
/// decodes bytes already in memory (a download's first bytes, a test)
/// through `DecoderList` as the pipeline does a file (`ItemProcessor`).
///
/// Blocking and CPU-bound: call it on the decoding or finishing pool, never
/// on Swift's cooperative threads. Every libvips handle is created and
/// released inside one call; only plain values come out. Every call's
/// libvips work runs inside `VipsErrorBuffer.attributed`, so that a
/// failure's message is the item's own.
public enum Thumbnailer {
    /// The plan of the first entry of `DecoderList` that takes `bytes`,
    /// without decoding a pixel. Entries that read the header check the
    /// pixel limit here; libvips checks it when it opens its header.
    public static func plan(
        _ bytes: UnsafeRawBufferPointer,
        settings: OutputSettings,
        limits: DecodeLimits
    ) throws(ItemError) -> DecodePlan {
        try DecoderList.plan(.memory(bytes), format: nil, settings: settings, limits: limits)
    }

    /// Decodes `bytes` as `plan` says; when that decoder declines, the next
    /// entry's plan, and so on to libvips. The first half of making an
    /// image's thumbnails: on a JPEG path the image is decoded into memory
    /// and waits for `finish`; on libvips it is rendered in full here
    /// (`LibvipsDecoder`), because libvips decodes lazily while resizing.
    ///
    /// Two halves so that the pipeline can run them on different threads: a
    /// decode thread goes on to the next image while libvips resizes and
    /// encodes this one (on its own worker threads, which the caller would
    /// otherwise sit waiting for). No memory is reserved here: the caller
    /// holds one image.
    public static func decode(
        _ bytes: UnsafeRawBufferPointer,
        plan: DecodePlan,
        settings: OutputSettings,
        limits: DecodeLimits
    ) throws(ItemError) -> DecodedImage {
        var plan = plan
        while true {
            if let decoded = try plan.decode(.memory(bytes), settings, limits) { return decoded }
            plan = try DecoderList.plan(.memory(bytes), format: nil, settings: settings, limits: limits, from: plan.entry + 1)
        }
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
