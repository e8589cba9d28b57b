/// Any JSON value: the fields of a list entry, kept as they came (`meta`).
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .number(let value):
            var container = encoder.singleValueContainer()
            if let integer = value.jsonInteger {
                try container.encode(integer)
            } else {
                try container.encode(value)
            }
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let values):
            var container = encoder.unkeyedContainer()
            for value in values { try container.encode(value) }
        case .object(let fields):
            // Sorted keys: the same entry always encodes to the same bytes.
            var container = encoder.container(keyedBy: AnyKey.self)
            for key in fields.keys.sorted() {
                try container.encode(fields[key]!, forKey: AnyKey(key))
            }
        }
    }

    /// The value at a dotted path such as `urls.regular`.
    public subscript(path path: String) -> JSONValue? {
        var current: JSONValue? = self
        for part in path.split(separator: ".") {
            guard case .object(let fields)? = current else { return nil }
            current = fields[String(part)]
        }
        return current
    }

    public var stringValue: String? {
        switch self {
        case .string(let s): s
        case .number(let n): n.jsonInteger.map { String($0) } ?? String(n)
        default: nil
        }
    }

    public var numberValue: Double? {
        if case .number(let n) = self { return n }
        return nil
    }
}

struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension Double {
    /// The value as an integer when it is a whole number small enough to be
    /// exact, so that JSON says `3`, not `3.0`.
    var jsonInteger: Int64? {
        rounded() == self && abs(self) < 1e15 ? Int64(self) : nil
    }
}
