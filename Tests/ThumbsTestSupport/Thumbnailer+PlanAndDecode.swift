import ThumbsKit

extension Thumbnailer {
    /// `plan` and `decode` in one call, as the pipeline makes them (tests
    /// only: the pipeline waits for memory between the two).
    public static func decode(
        _ bytes: UnsafeRawBufferPointer,
        settings: OutputSettings,
        limits: DecodeLimits
    ) throws(ItemError) -> DecodedImage {
        try decode(bytes, plan: plan(bytes, settings: settings, limits: limits), settings: settings, limits: limits)
    }
}
