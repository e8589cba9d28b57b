/// Every thumbnail of one source, and its signature.
public struct RenderedImage: Sendable {
    /// In the order of `OutputSettings.sizes`.
    public var thumbnails: [RenderedThumbnail]
    public var signature: ImageSignature
}
