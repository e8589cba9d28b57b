/// What the header of a source image says, after EXIF orientation.
public struct SourceImageInfo: Sendable, Hashable {
    /// The format's short name: jpeg, png, gif, webp, avif, heif, tiff, svg…
    public var format: String
    /// Width and height as displayed (orientation applied).
    public var width: Int
    public var height: Int
    /// EXIF orientation, 1 when absent or invalid.
    public var orientation: Int
}

extension SourceImageInfo {
    /// Orientations 5–8 turn the image a quarter: width and height as stored
    /// are height and width as displayed.
    static func swapsSides(_ orientation: Int) -> Bool { orientation >= 5 }

    /// Whether the stored image is turned a quarter for display.
    var swapsSides: Bool { Self.swapsSides(orientation) }

    /// From the size as stored in the file: orientations 5–8 swap the sides.
    init(format: String, storedWidth: Int, storedHeight: Int, orientation: Int) {
        let swapped = Self.swapsSides(orientation)
        self.init(
            format: format,
            width: swapped ? storedHeight : storedWidth,
            height: swapped ? storedWidth : storedHeight,
            orientation: orientation
        )
    }
}
