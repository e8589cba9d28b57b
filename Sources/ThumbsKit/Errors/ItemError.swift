/// Why one source image failed. The run goes on; the item is recorded as
/// `failed` with this code and message.
///
/// Modelled on AsyncHTTPClient's `HTTPClientError`: a struct with static
/// members rather than an enum, so new codes can be added without breaking
/// anyone who switches over them.
public struct ItemError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable code written to the manifest (`error.code`).
    ///
    /// The set is closed, as `HTTPClientError`'s is: only the static members
    /// below exist, so no string outside PRODUCT.md's list can become a
    /// code. Reading a code back (`init?(rawValue:)`, `Decodable`) accepts
    /// only these.
    public struct Code: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The code as the manifest writes it.
        public let rawValue: String

        private init(_ rawValue: String) { self.rawValue = rawValue }

        /// The bytes are an image libvips knows, but they do not decode.
        public static let decode = Code("decode")
        /// The image decoded, but resizing it or encoding a thumbnail failed.
        public static let encode = Code("encode")
        /// The header declares more pixels than `--max-pixels`.
        public static let tooLarge = Code("too-large")
        /// Not an image format libvips can read here (or a blocked loader).
        public static let unsupported = Code("unsupported")
        /// The image could not be downloaded.
        public static let download = Code("download")
        /// Reading the source or writing an output failed.
        public static let io = Code("io")

        /// Every code, in PRODUCT.md's order.
        public static let all: [Code] = [.decode, .encode, .tooLarge, .unsupported, .download, .io]

        /// The code named `rawValue`, or nil when there is no such code.
        init?(rawValue: String) {
            guard let known = Self.all.first(where: { $0.rawValue == rawValue }) else { return nil }
            self = known
        }

        public init(from decoder: any Decoder) throws {
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let code = Code(rawValue: text) else {
                throw DecodingError.dataCorrupted(.init(
                    codingPath: decoder.codingPath,
                    debugDescription: "unknown error code \(text); known: \(Self.all.map(\.rawValue).joined(separator: ", "))"))
            }
            self = code
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }

        public var description: String { rawValue }
    }

    public var code: Code
    /// At most about 300 characters, repeats folded (`MessageFolding`): the
    /// manifest, the report and the terminal all show this text.
    public var message: String {
        didSet { message = MessageFolding.fold(message) }
    }

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = MessageFolding.fold(message)
    }

    public var description: String { "\(code): \(message)" }

    public static func decode(_ message: String) -> ItemError { ItemError(.decode, message) }
    public static func encode(_ message: String) -> ItemError { ItemError(.encode, message) }
    public static func tooLarge(_ message: String) -> ItemError { ItemError(.tooLarge, message) }
    public static func unsupported(_ message: String) -> ItemError { ItemError(.unsupported, message) }
    public static func download(_ message: String) -> ItemError { ItemError(.download, message) }
    public static func io(_ message: String) -> ItemError { ItemError(.io, message) }
}
