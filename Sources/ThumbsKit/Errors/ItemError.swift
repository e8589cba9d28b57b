/// Why one source image failed. The run goes on; the item is recorded as
/// `failed` with this code and message.
///
/// Modelled on AsyncHTTPClient's `HTTPClientError`: a struct with static
/// members rather than an enum, so new codes can be added without breaking
/// anyone who switches over them.
public struct ItemError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable code written to the manifest (`error.code`).
    public struct Code: Sendable, Hashable, RawRepresentable, Codable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The bytes are an image libvips knows, but they do not decode.
        public static let decode = Code(rawValue: "decode")
        /// The header declares more pixels than `--max-pixels`.
        public static let tooLarge = Code(rawValue: "too-large")
        /// Not an image format libvips can read here (or a blocked loader).
        public static let unsupported = Code(rawValue: "unsupported")
        /// The image could not be downloaded.
        public static let download = Code(rawValue: "download")
        /// Reading the source or writing an output failed.
        public static let io = Code(rawValue: "io")

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
    public static func tooLarge(_ message: String) -> ItemError { ItemError(.tooLarge, message) }
    public static func unsupported(_ message: String) -> ItemError { ItemError(.unsupported, message) }
    public static func download(_ message: String) -> ItemError { ItemError(.download, message) }
    public static func io(_ message: String) -> ItemError { ItemError(.io, message) }
}
