/// Every thumbnail of one source, and its signature.
public struct RenderedImage: Sendable {
    /// In the order of `OutputSettings.sizes`.
    public var thumbnails: [RenderedThumbnail]
    public var signature: ImageSignature
    /// What was done in place of the ideal (a colour profile that could
    /// not be used: `SRGBConversion`), for the manifest's `warnings`.
    public var warnings: [String] = []
}
