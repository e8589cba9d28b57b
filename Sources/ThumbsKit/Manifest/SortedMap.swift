/// A string-keyed dictionary that encodes its keys in sorted order, so that
/// the same statistics always give the same JSON bytes.
public struct SortedMap<Value: Sendable & Codable & Equatable>: Sendable, Codable, Equatable, ExpressibleByDictionaryLiteral {
    public var values: [String: Value]

    public init(_ values: [String: Value] = [:]) { self.values = values }

    public init(dictionaryLiteral elements: (String, Value)...) {
        values = Dictionary(elements, uniquingKeysWith: { $1 })
    }

    public subscript(key: String) -> Value? {
        get { values[key] }
        set { values[key] = newValue }
    }

    public var sortedKeys: [String] { values.keys.sorted() }
    public var isEmpty: Bool { values.isEmpty }

    public init(from decoder: Decoder) throws {
        values = try decoder.singleValueContainer().decode([String: Value].self)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        for key in values.keys.sorted() {
            try container.encode(values[key]!, forKey: AnyKey(key))
        }
    }
}
