/// The arithmetic of fitting an image into a box, kept apart from libvips so
/// that it can be tested on its own.
public struct ThumbnailGeometry: Sendable, Hashable {
    /// Size after resizing, before any crop.
    public var resizedWidth: Int
    public var resizedHeight: Int
    /// Size of the finished thumbnail.
    public var width: Int
    public var height: Int
    /// The scale from the source to `resized`.
    public var scale: Double

    /// Plans one thumbnail of a `sourceWidth` × `sourceHeight` image (as
    /// displayed, after orientation) for `box`.
    public init(sourceWidth: Int, sourceHeight: Int, box: ThumbSize, fit: Fit, enlarge: Bool) {
        let w = Double(max(1, sourceWidth)), h = Double(max(1, sourceHeight))
        let sx = Double(box.width) / w, sy = Double(box.height) / h
        var scale = fit == .inside ? min(sx, sy) : max(sx, sy)
        if !enlarge { scale = min(scale, 1) }
        // Round like libvips's resize does, never below one pixel.
        let rw = max(1, Int((w * scale).rounded()))
        let rh = max(1, Int((h * scale).rounded()))
        self.scale = scale
        self.resizedWidth = rw
        self.resizedHeight = rh
        switch fit {
        case .inside:
            width = rw
            height = rh
        case .cover:
            width = min(rw, box.width)
            height = min(rh, box.height)
        }
    }

    /// The largest JPEG shrink-on-load factor (8, 4, 2 or 1) whose decoded
    /// image is still at least `width` × `height`: a JPEG decodes at 1/2, 1/4
    /// or 1/8 for a fraction of the cost, and the final Lanczos3 step makes
    /// the exact size from there.
    ///
    /// Rounds down, as every decoder here does (`jpegDecodedSize`): libvips's
    /// loader and the direct path both drop the last, partial pixel of a
    /// shrunk JPEG. Rounding up here would pick 1/8 for a 2047 px wide image
    /// into a 256 box, decode 255 px and scale up.
    public static func jpegShrink(sourceWidth: Int, sourceHeight: Int, neededWidth: Int, neededHeight: Int) -> Int {
        for factor in [8, 4, 2] {
            let size = jpegDecodedSize(width: sourceWidth, height: sourceHeight, shrink: factor)
            if size.width >= neededWidth && size.height >= neededHeight { return factor }
        }
        return 1
    }

    /// The size a JPEG decodes to at 1/`shrink`: floor of each side, never
    /// below one pixel (libvips's loader and `DirectJPEG` agree on it).
    public static func jpegDecodedSize(width: Int, height: Int, shrink: Int) -> (width: Int, height: Int) {
        (max(1, width / shrink), max(1, height / shrink))
    }
}
