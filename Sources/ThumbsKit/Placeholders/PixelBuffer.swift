/// 8-bit interleaved pixels, row by row with no padding: what the placeholder
/// encoders read. The pipeline fills one from a small libvips reduction (the
/// encoders themselves never touch libvips, so they can be checked against the
/// reference implementations on plain bytes).
public struct PixelBuffer: Sendable, Hashable {
    public enum Layout: Int, Sendable, Hashable {
        case grey = 1
        case rgb = 3
        case rgba = 4

        public var channels: Int { rawValue }
    }

    public let width: Int
    public let height: Int
    public let layout: Layout
    /// `width * height * layout.channels` bytes; RGBA is straight (not
    /// premultiplied) alpha.
    public let bytes: [UInt8]

    /// Returns nil when `bytes` does not hold exactly `width * height` pixels
    /// of `layout`, or a side is not positive.
    public init?(width: Int, height: Int, layout: Layout, bytes: [UInt8]) {
        guard width > 0, height > 0, bytes.count == width * height * layout.channels else { return nil }
        self.width = width
        self.height = height
        self.layout = layout
        self.bytes = bytes
    }

    public var pixelCount: Int { width * height }
}
