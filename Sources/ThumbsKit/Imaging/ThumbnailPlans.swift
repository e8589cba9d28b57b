/// The geometry of every thumbnail of one source (`ThumbnailGeometry`, one
/// per size, in the order of `OutputSettings.sizes`), and what a decode
/// needs to know of them: how far it may shrink, how large it must be.
struct ThumbnailPlans {
    let info: SourceImageInfo
    let sizes: [ThumbnailGeometry]

    init(_ info: SourceImageInfo, settings: OutputSettings) {
        self.info = info
        sizes = settings.sizes.map {
            ThumbnailGeometry(sourceWidth: info.width, sourceHeight: info.height, box: $0, fit: settings.fit, enlarge: settings.enlarge)
        }
    }

    /// The source's size as stored (before orientation).
    var storedSize: (width: Int, height: Int) {
        info.swapsSides ? (info.height, info.width) : (info.width, info.height)
    }

    /// The largest resized image any size needs, in stored orientation.
    var neededSize: (width: Int, height: Int) {
        let swapped = info.swapsSides
        var needW = 1, needH = 1
        for plan in sizes {
            needW = max(needW, swapped ? plan.resizedHeight : plan.resizedWidth)
            needH = max(needH, swapped ? plan.resizedWidth : plan.resizedHeight)
        }
        return (needW, needH)
    }

    /// JPEG shrink on load (1, 2, 4 or 8) that still serves every size.
    var jpegShrink: Int {
        let stored = storedSize
        let needed = neededSize
        return ThumbnailGeometry.jpegShrink(
            sourceWidth: stored.width, sourceHeight: stored.height, neededWidth: needed.width, neededHeight: needed.height
        )
    }

    /// The size `ThumbnailRenderer` first resizes the decode to (the largest
    /// thumbnail, in stored orientation), when it is smaller both ways than
    /// the `decoded` size (upright): what a streamed decode can resize to
    /// as it goes.
    func streamTarget(decoded: (width: Int, height: Int)) -> PixelSize? {
        guard let largest = sizes.max(by: { $0.resizedWidth * $0.resizedHeight < $1.resizedWidth * $1.resizedHeight }) else {
            return nil
        }
        guard largest.resizedWidth >= 1, largest.resizedHeight >= 1,
              largest.resizedWidth < decoded.width, largest.resizedHeight < decoded.height else { return nil }
        return info.swapsSides
            ? PixelSize(width: largest.resizedHeight, height: largest.resizedWidth)
            : PixelSize(width: largest.resizedWidth, height: largest.resizedHeight)
    }
}
