/// An item's placeholders: ThumbHash (base64) and BlurHash (4×3 components).
public struct Placeholder: Sendable, Codable, Equatable, Hashable {
    public var thumbhash: String
    public var blurhash: String

    public init(thumbhash: String, blurhash: String) {
        self.thumbhash = thumbhash
        self.blurhash = blurhash
    }
}
