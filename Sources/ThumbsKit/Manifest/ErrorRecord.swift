public struct ErrorRecord: Sendable, Codable, Equatable {
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public init(_ error: ItemError) {
        self.init(code: error.code.rawValue, message: error.message)
    }
}
