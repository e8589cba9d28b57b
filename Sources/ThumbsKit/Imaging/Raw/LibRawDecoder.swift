import CRawShim
import CVipsShim

/// Camera RAWs, second way: LibRaw develops the sensor data, read through
/// the descriptor, at half size where the box allows. Decode path `libraw`.
/// Planned when `RawPreviewDecoder` passes (no preview serves) or its
/// decode declines.
struct LibRawDecoder: ImageDecoder {
    func plan(_ input: DecoderInput) throws(ItemError) -> DecodePlan? {
        guard RawHeader.mayBeRaw(format: input.format), let raw = try input.raw() else { return nil }
        let (kind, facts, source) = (raw.kind, raw.facts, input.source)
        // Sensor data compresses to no less than about a bit a pixel: a file
        // far smaller holds none (ExifTool's samples, a file cut short), and
        // LibRaw would develop whatever lies past its end as a picture.
        let sensorPixels = facts.rawWidth.multipliedReportingOverflow(by: facts.rawHeight).partialValue
        if source.count < sensorPixels / Self.leastBytesPerPixelDivisor {
            throw ItemError.decode(
                "this \(kind.uppercased()) file has no picture thumbs can use: no embedded preview that decodes covers the box, and at \(SourceLimits.bytes(source.count)) it is too small to hold the sensor data of \(facts.rawWidth)×\(facts.rawHeight) pixels (stripped or cut short)"
            )
        }
        let needed = ThumbnailPlans(raw.info, settings: input.settings).neededSize
        let half = needed.width * 2 <= facts.width && needed.height * 2 <= facts.height
        let info = raw.info, orientation = facts.orientation
        // LibRaw reads what it parses through the descriptor.
        return DecodePlan(path: .libraw, info: info, shrink: half ? 2 : 1, peakBytes: Self.developBytes(facts, half: half),
                          reads: .streamed) { source, _, limits throws(ItemError) in
            let pixels = try Self.develop(source, kind: kind, half: half, orientation: orientation, limits: limits)
            try source.checkUnchanged()
            return DecodedImage(info: info, decoder: .libraw, stage: .pixels(pixels), failOn: limits.failOn)
        }
    }

    /// A file holds at least one byte per this many sensor pixels (half a
    /// bit a pixel, below any camera's lossless or lossy compression).
    static let leastBytesPerPixelDivisor = 16

    /// Memory a development holds: the sensor data (2 bytes a pixel), LibRaw's
    /// 4×16-bit image at the output size, and the 8-bit RGB output.
    private static func developBytes(_ facts: LibRawFacts, half: Bool) -> Int {
        let sensor = facts.rawWidth * facts.rawHeight * 2
        let output = half ? (facts.width / 2) * (facts.height / 2) : facts.width * facts.height
        return sensor + output * (8 + 3)
    }

    private static func develop(
        _ source: ImageSource, kind: String, half: Bool, orientation: Int, limits: DecodeLimits
    ) throws(ItemError) -> DecodedPixels {
        var image = shim_raw_image()
        var message = [CChar](repeating: 0, count: 256)
        // Within the run's thread budget: as many as libvips may use per image.
        let threads = VipsRuntime.threadsPerImage
        // The sensor data is a little larger than the photo (margins): a
        // limit with room for them, checked before anything is unpacked.
        let maxRawPixels = Int64(clamping: limits.maxPixels.multipliedReportingOverflow(by: 2).partialValue)
        let code = try source.withLibRawInput { input in
            shim_raw_develop(input, half ? 1 : 0, Int32(threads), maxRawPixels, &image, &message, message.count)
        }
        guard code == 0, image.pixels != nil else {
            throw LibRawError.item(code: code == 0 ? -1 : code, message: message, kind: kind, step: "develop")
        }
        var decoded = shim_jpeg_pixels()
        decoded.pixels = image.pixels
        decoded.width = image.width
        decoded.height = image.height
        decoded.bands = image.bands
        decoded.xres = 72 / 25.4
        decoded.yres = 72 / 25.4
        decoded.orientation = Int32(orientation)
        return DecodedPixels(decoded, decoder: .libraw)
    }
}
