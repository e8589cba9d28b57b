import CVips
import CVipsShim

/// Decoded pixels: plain memory, not a libvips image, so a decode thread can
/// hand them to the thread that resizes and encodes. The JPEG paths make
/// them, and so does every other decoder that does not go through libvips's
/// loaders (a RAW's preview or development, a HEIF thumbnail, a video
/// frame): each fills a `shim_jpeg_pixels` (8-bit grey or RGB, malloc'd, an
/// optional ICC profile and orientation) and names itself.
///
/// `@unchecked Sendable`: nothing changes the pixels after the decode (a
/// preview's crop is undone by the decode itself: `resample(from:)`), and
/// `image()` (which hands them to libvips) is called once, by the one task
/// that owns the value at that point.
final class DecodedPixels: @unchecked Sendable {
    private var decoded: shim_jpeg_pixels
    /// The decoder that made the pixels.
    let decoder: DecodePath

    /// Takes `decoded` over (its pixels and profile are freed with this
    /// value); `decoder` names who made them, the JPEG paths' own code when nil.
    init(_ decoded: shim_jpeg_pixels, decoder: DecodePath? = nil) {
        self.decoded = decoded
        self.decoder = decoder ?? Self.jpegDecoder(decoded.decoder)
    }

    deinit { shim_jpeg_pixels_free(&decoded) }

    /// Hands the pixels over to the caller; this value frees nothing after.
    fileprivate func takePixels() -> shim_jpeg_pixels {
        let taken = decoded
        decoded = shim_jpeg_pixels()
        return taken
    }

    var width: Int { decoded.width }
    var height: Int { decoded.height }

    /// The JPEG path that `shim_jpeg_direct_decode_path` says it took (the
    /// DC decode names its baseline or progressive kind).
    private static func jpegDecoder(_ code: Int32) -> DecodePath {
        switch code {
        case 1: .jpegDC
        case 2: .jpegDCProgressive
        case 3: .jpegProgressive
        default: .libjpeg
        }
    }

    /// A libvips image of the pixels (orientation and ICC profile attached);
    /// the image takes the memory over. Nil if called a second time.
    func image() -> VipsImageRef? {
        shim_jpeg_pixels_image(&decoded).map(VipsImageRef.init)
    }
}

extension DecodedPixels {
    /// The same pixels, named as a camera RAW's preview, with the RAW's
    /// `orientation` when their own header had none (the rule for
    /// previews). Takes the pixels over: this value is empty after.
    func asRawPreview(orientation: Int) -> DecodedPixels {
        var taken = takePixels()
        if taken.orientation <= 1 { taken.orientation = Int32(orientation) }
        return DecodedPixels(taken, decoder: .rawPreview)
    }

    /// The same pixels, named as a camera JPEG's preview, with the photo's
    /// `orientation` (the preview is stored as the photo is; its own tag,
    /// when it has one, was checked to agree or to be 1). Takes the pixels
    /// over: this value is empty after.
    func asJPEGPreview(orientation: Int) -> DecodedPixels {
        var taken = takePixels()
        taken.orientation = Int32(orientation)
        return DecodedPixels(taken, decoder: .jpegPreview)
    }

    /// Resamples the pixels, at their own size, from `window` of them
    /// (`shim_jpeg_pixels_resample_window`): a camera preview's known crop
    /// undone (`JPEGPreviewCrops`), by the decode that made them, before
    /// they are handed on. False, the pixels as they were, when the window
    /// is refused or there is no memory.
    func resample(from window: (x0: Double, y0: Double, x1: Double, y1: Double)) -> Bool {
        shim_jpeg_pixels_resample_window(&decoded, window.x0, window.y0, window.x1, window.y1) == 0
    }
}
