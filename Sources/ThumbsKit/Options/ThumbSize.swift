/// A bounding box given with `--size`: `256` (a square box) or `320x240`.
/// `label` is the size exactly as given; it names the output folder.
public struct ThumbSize: Sendable, Hashable, Codable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public var label: String

    public init(width: Int, height: Int, label: String? = nil) {
        self.width = width
        self.height = height
        self.label = label ?? (width == height ? "\(width)" : "\(width)x\(height)")
    }

    /// Parses `N` or `WxH` (an `X` works too); both sides 1...65535.
    public init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else { return nil }
        let numbers = parts.compactMap { part -> Int? in
            guard !part.isEmpty, part.allSatisfy(\.isASCII), part.allSatisfy(\.isNumber) else { return nil }
            return Int(part)
        }
        guard numbers.count == parts.count, numbers.allSatisfy({ (1...65535).contains($0) }) else { return nil }
        self.init(width: numbers[0], height: numbers.last!, label: text.lowercased())
    }

    public var description: String { label }

    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let size = ThumbSize(parsing: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "bad size \(text)"))
        }
        self = size
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(label)
    }
}
