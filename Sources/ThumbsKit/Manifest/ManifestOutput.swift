public struct ManifestOutput: Sendable, Codable, Equatable {
    /// The size as given (`256`, `320x240`).
    public var size: String
    /// Relative to OUT.
    public var path: String
    public var width: Int
    public var height: Int
    public var bytes: Int64
    public var format: String
    public var sha256: String

    public init(size: String, path: String, width: Int, height: Int, bytes: Int64, format: String, sha256: String) {
        self.size = size
        self.path = path
        self.width = width
        self.height = height
        self.bytes = bytes
        self.format = format
        self.sha256 = sha256
    }
}
