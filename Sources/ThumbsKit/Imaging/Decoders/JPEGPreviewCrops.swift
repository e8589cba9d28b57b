import Foundation

/// Camera previews that show a little less than the whole photo, and the
/// part they show: "a known crop the code undoes" (issue 35).
///
/// Some firmwares make their preview from a window of the sensor's picture,
/// not from all of it. The preview has the photo's shape, so the aspect rule
/// lets it serve, but its content is shifted and stretched against the
/// photo's: by 28 photo pixels of 3264 on a Galaxy S II, about 2 pixels of a
/// 256 px thumbnail at its right edge and less towards its left, enough to
/// cost 9 to 12 dB of PSNR against the photo's own thumbnail. Stretching the
/// preview back over the photo's frame (`window`) puts every feature where
/// the photo has it; the few photo pixels the preview lacks at an edge are
/// the preview's edge, repeated.
///
/// Each entry was measured on real files of the bench's camera corpus
/// (bench/camera-previews.txt): the photo region whose Lanczos3 resize best
/// matches the preview, searched to one photo pixel. A crop is keyed by the
/// camera, the photo's stored size and the preview's, so a mode the entry
/// was not measured in (another resolution, another preview) is left as it is.
enum JPEGPreviewCrops {
    /// One camera's crop: the photo region (stored orientation, photo pixels,
    /// edges) that its preview of `preview` size shows of a photo of `photo`.
    struct Crop: Sendable, Equatable {
        /// Make starts with this (case-insensitive): firmwares of one maker
        /// spell it with and without a final period.
        var make: String
        var models: [String]
        var photo: PixelSize
        var preview: PixelSize
        var x0: Double, y0: Double, x1: Double, y1: Double
    }

    /// The crops measured so far, with the files they were measured on and
    /// the PSNR at the preview's size before and after (bench/RESULTS.md
    /// camera-preview-files has the thumbnails' figures).
    static let known: [Crop] = [
        // Samsung_GT-I9100__Galaxy_SII_.jpg 26.5 -> 37.9 dB and SC-02C's
        // Issue_354__Java_.jpg 23.4 -> 35.8 dB: the same window on both
        // variants. Exif thumbnail.
        Crop(make: "SAMSUNG", models: ["GT-I9100", "SC-02C"], photo: PixelSize(width: 3264, height: 2448),
             preview: PixelSize(width: 320, height: 240), x0: 2, y0: 2, x1: 3236, y1: 2442),
        // 36-memory_error.jpg 19.8 -> 22.6 dB. Maker-note preview.
        Crop(make: "CASIO", models: ["EX-M2"], photo: PixelSize(width: 1600, height: 1200),
             preview: PixelSize(width: 320, height: 240), x0: 0, y0: 0, x1: 1590, y1: 1196),
        // Casio_EX-Z3.jpg 26.7 -> 29.2 dB. Maker-note preview.
        Crop(make: "CASIO", models: ["EX-Z3"], photo: PixelSize(width: 2048, height: 1536),
             preview: PixelSize(width: 320, height: 240), x0: 0, y0: 0, x1: 2044, y1: 1532),
        // HTC_TyTN_II.jpg 22.3 -> 25.8 dB. Exif thumbnail.
        Crop(make: "HTC", models: ["HTC_TyTN_II"], photo: PixelSize(width: 2048, height: 1536),
             preview: PixelSize(width: 320, height: 240), x0: 0, y0: 0, x1: 2040, y1: 1528),
    ]

    /// The crop a camera's preview of `preview` size has, for a photo of
    /// `photo` (both as stored), or nil when none is known.
    static func crop(make: String, model: String, photo: PixelSize, preview: PixelSize) -> Crop? {
        let make = make.trimmingCharacters(in: .whitespaces).uppercased()
        let model = model.trimmingCharacters(in: .whitespaces)
        return known.first {
            make.hasPrefix($0.make.uppercased()) && $0.models.contains(model) && $0.photo == photo && $0.preview == preview
        }
    }

    /// The window of the preview, decoded at `decoded` size, that shows the
    /// whole photo: the photo's frame in the decoded preview's pixels, past
    /// the preview's edges where the camera cropped. Resampled from it
    /// (shim_resample_window_u8), the preview lines up with the photo.
    static func window(_ crop: Crop, decoded: PixelSize) -> (x0: Double, y0: Double, x1: Double, y1: Double) {
        let sx = Double(decoded.width) / (crop.x1 - crop.x0)
        let sy = Double(decoded.height) / (crop.y1 - crop.y0)
        return (
            x0: -crop.x0 * sx, y0: -crop.y0 * sy,
            x1: (Double(crop.photo.width) - crop.x0) * sx, y1: (Double(crop.photo.height) - crop.y0) * sy
        )
    }
}
