import CRawShim
import CVips
import CVipsShim

/// Camera RAWs: the picture from the cheapest embedded JPEG preview that
/// serves every size, on thumbs' own JPEG paths (a full-size preview decodes
/// at 1/8 from its DC coefficients like any JPEG); else LibRaw develops the
/// sensor data, at half size where the box allows.
///
/// The item's `info` is always the RAW's (kind, the photo's size after the
/// camera's crop, its orientation), never a preview's: the renderer resizes
/// the decoded pixels to the geometry of the RAW's sizes, so a preview with
/// the photo's aspect ratio just works, and one with another (letterboxed)
/// is never chosen.
struct RawDecoder: ImageDecoder {
    /// The entry of `DecoderList`: a source whose sniff says RAW (a TIFF's
    /// structure included: `SourceHeader` looks past the prefix).
    func plan(_ input: DecoderInput) throws(ItemError) -> DecodePlan? {
        if let format = input.format, format != "tiff", !RawSniffer.extensions.contains(format) { return nil }
        return try Self.plan(input.source, settings: input.settings, limits: input.limits)
    }

    /// Nil when `source` is not a RAW. Opens it with LibRaw (no pixel
    /// decoded), checks `--max-pixels` on the photo's size, and picks the
    /// preview or the development.
    static func plan(
        _ source: ImageSource, settings: OutputSettings, limits: DecodeLimits
    ) throws(ItemError) -> DecodePlan? {
        guard let kind = RawSniffer.format(read: { offset, count in source.bytes(at: offset, count: count) }) else { return nil }
        let facts = try LibRawFacts.read(source, kind: kind)
        guard facts.width > 0, facts.height > 0 else {
            throw ItemError.decode("LibRaw cannot open this \(kind.uppercased()) file: it reports no image size")
        }
        try limits.checkPixels(width: facts.width, height: facts.height)
        let info = SourceImageInfo(format: kind, storedWidth: facts.width, storedHeight: facts.height, orientation: facts.orientation)
        let plans = ThumbnailPlans(info, settings: settings)
        let needed = plans.neededSize
        let previews = RawPreviewFinder.previews(in: source, libraw: facts.jpegThumbnail)
        if let preview = RawPreviewFinder.choose(
            previews, photo: (facts.width, facts.height), orientation: facts.orientation, needed: needed, maxPixels: limits.maxPixels
        ) {
            let header = preview.header
            let shrink = ThumbnailGeometry.jpegShrink(
                sourceWidth: header.width, sourceHeight: header.height, neededWidth: needed.width, neededHeight: needed.height
            )
            var path = DecodePath.choose(jpeg: header.facts, shrink: shrink, keepMetadata: false, pixelBudget: DirectJPEG.memoryBudget)
            // Too large for the per-image budget: libjpeg still, admitted by size.
            if path == .libvips { path = .libjpeg }
            let raw = RawDecodePlan(
                kind: kind, preview: .init(range: preview.range, shrink: shrink, facts: header.facts),
                halfSize: false, orientation: facts.orientation
            )
            // Read from a file, the preview's bytes are held while it decodes.
            let held = source.inMemory ? 0 : preview.range.count
            let peakBytes = header.facts.peakBytes(path: path, shrink: shrink) + held
            return DecodePlan(path: .rawPreview, info: info, shrink: shrink, peakBytes: peakBytes,
                              reads: .ranges([preview.range])) { source, _, limits throws(ItemError) in
                try decode(source, raw: raw, info: info, peakBytes: peakBytes, limits: limits)
            }
        }
        // Sensor data compresses to no less than about a bit a pixel: a file
        // far smaller holds none (ExifTool's samples, a file cut short), and
        // LibRaw would develop whatever lies past its end as a picture.
        let sensorPixels = facts.rawWidth.multipliedReportingOverflow(by: facts.rawHeight).partialValue
        if source.count < sensorPixels / Self.leastBytesPerPixelDivisor {
            throw ItemError.decode(
                "this \(kind.uppercased()) file has no picture thumbs can use: no embedded preview covers the box, and at \(SourceLimits.bytes(source.count)) it is too small to hold the sensor data of \(facts.rawWidth)×\(facts.rawHeight) pixels (stripped or cut short)"
            )
        }
        let half = needed.width * 2 <= facts.width && needed.height * 2 <= facts.height
        let raw = RawDecodePlan(kind: kind, preview: nil, halfSize: half, orientation: facts.orientation)
        let peakBytes = developBytes(facts, half: half)
        // LibRaw reads what it parses through the descriptor.
        return DecodePlan(path: .libraw, info: info, shrink: half ? 2 : 1, peakBytes: peakBytes,
                          reads: .streamed) { source, _, limits throws(ItemError) in
            try decode(source, raw: raw, info: info, peakBytes: peakBytes, limits: limits)
        }
    }

    /// The preview's pixels, or LibRaw's development when the plan says so
    /// or the preview does not decode; throws `io` when the file changed
    /// since its hash was taken.
    static func decode(
        _ source: ImageSource, raw: RawDecodePlan, info: SourceImageInfo, peakBytes: Int, limits: DecodeLimits
    ) throws(ItemError) -> DecodedImage {
        if let preview = raw.preview,
           let pixels = try decodePreview(source, preview, orientation: raw.orientation, peakBytes: peakBytes) {
            try source.checkUnchanged()
            return DecodedImage(info: info, decoder: .rawPreview, stage: .pixels(pixels), failOn: limits.failOn)
        }
        let pixels = try develop(source, raw: raw, limits: limits)
        try source.checkUnchanged()
        return DecodedImage(info: info, decoder: .libraw, stage: .pixels(pixels), failOn: limits.failOn)
    }

    /// A file holds at least one byte per this many sensor pixels (half a
    /// bit a pixel, below any camera's lossless or lossy compression).
    static let leastBytesPerPixelDivisor = 16

    // MARK: - Preview

    /// Nil when the preview does not decode (then LibRaw develops); throws
    /// only when the file can no longer be read.
    private static func decodePreview(
        _ source: ImageSource, _ preview: RawDecodePlan.Preview, orientation: Int, peakBytes: Int
    ) throws(ItemError) -> DecodedPixels? {
        guard preview.range.lowerBound >= 0, preview.range.upperBound <= source.count else { return nil }
        // The JPEG paths `JPEGPathRule` allows the preview, in turn.
        let paths = JPEGPathRule.candidates(jpeg: preview.facts, shrink: preview.shrink, keepMetadata: false,
                                            pixelBudget: DirectJPEG.memoryBudget)
        let budget = max(DirectJPEG.memoryBudget, peakBytes)
        let decoded = try source.withBytes(in: preview.range) { slice in
            (paths.isEmpty ? [.libjpeg] : paths).lazy.compactMap { path in
                DirectJPEG.decode(slice, path: path, shrink: preview.shrink, memoryBudget: budget)
            }.first
        }
        // A preview has no orientation of its own as a rule: the RAW's.
        return decoded?.asRawPreview(orientation: orientation)
    }

    // MARK: - Development

    /// Memory a development holds: the sensor data (2 bytes a pixel), LibRaw's
    /// 4×16-bit image at the output size, and the 8-bit RGB output.
    private static func developBytes(_ facts: LibRawFacts, half: Bool) -> Int {
        let sensor = facts.rawWidth * facts.rawHeight * 2
        let output = half ? (facts.width / 2) * (facts.height / 2) : facts.width * facts.height
        return sensor + output * (8 + 3)
    }

    private static func develop(_ source: ImageSource, raw: RawDecodePlan, limits: DecodeLimits) throws(ItemError) -> DecodedPixels {
        var image = shim_raw_image()
        var message = [CChar](repeating: 0, count: 256)
        // Within the run's thread budget: as many as libvips may use per image.
        let threads = VipsRuntime.threadsPerImage
        // The sensor data is a little larger than the photo (margins): a
        // limit with room for them, checked before anything is unpacked.
        let maxRawPixels = Int64(clamping: limits.maxPixels.multipliedReportingOverflow(by: 2).partialValue)
        let code = try source.withLibRawInput { input in
            shim_raw_develop(input, raw.halfSize ? 1 : 0, Int32(threads), maxRawPixels, &image, &message, message.count)
        }
        guard code == 0, image.pixels != nil else {
            throw LibRawError.item(code: code == 0 ? -1 : code, message: message, kind: raw.kind, step: "develop")
        }
        var decoded = shim_jpeg_pixels()
        decoded.pixels = image.pixels
        decoded.width = image.width
        decoded.height = image.height
        decoded.bands = image.bands
        decoded.xres = 72 / 25.4
        decoded.yres = 72 / 25.4
        decoded.orientation = Int32(raw.orientation)
        return DecodedPixels(decoded, decoder: .libraw)
    }
}
