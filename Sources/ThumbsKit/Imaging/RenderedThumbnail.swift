import Foundation

/// One encoded thumbnail, ready to be written.
public struct RenderedThumbnail: Sendable {
    public var size: ThumbSize
    public var width: Int
    public var height: Int
    /// The concrete format (never `.auto`).
    public var format: OutputFormat
    public var data: Data
}
