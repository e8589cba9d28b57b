/// `similarTo`: the first item of this item's look-alike group, and how many
/// bits their perceptual hashes differ in.
public struct SimilarReference: Sendable, Codable, Equatable, Hashable {
    public var id: String
    public var distance: Int

    public init(id: String, distance: Int) {
        self.id = id
        self.distance = distance
    }
}
