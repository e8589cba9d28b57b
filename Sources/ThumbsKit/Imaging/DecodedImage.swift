/// A source after its decoder (`DecodePlan.decode`): its header, and either decoded
/// pixels waiting for `Thumbnailer.finish` or the finished thumbnails.
public struct DecodedImage: Sendable {
    public var info: SourceImageInfo
    /// The path that produced the pixels (after any fallback to libvips).
    public var decoder: DecodePath
    var stage: Stage
    /// How strict the decode was asked to be. Not read since issue 36 (a
    /// colour profile that cannot be used is a warning, never a failure):
    /// left for the decoders' rewrite to remove with its constructors.
    var failOn: FailOn
    /// A video's facts, from its decoder (`VideoDecoder`); nil otherwise.
    var video: VideoFacts?

    enum Stage: Sendable {
        case pixels(DecodedPixels)
        case rendered(RenderedImage)
    }

    /// Whether `Thumbnailer.finish` has work left to do.
    public var needsFinishing: Bool {
        if case .pixels = stage { return true }
        return false
    }
}
