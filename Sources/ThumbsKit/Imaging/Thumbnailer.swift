import CVips
import CVipsShim
import Foundation

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

/// One encoded thumbnail, ready to be written.
public struct RenderedThumbnail: Sendable {
    public var size: ThumbSize
    public var width: Int
    public var height: Int
    /// The concrete format (never `.auto`).
    public var format: OutputFormat
    public var data: Data
}

/// Every thumbnail of one source, and its signature.
public struct RenderedImage: Sendable {
    /// In the order of `OutputSettings.sizes`.
    public var thumbnails: [RenderedThumbnail]
    public var signature: ImageSignature
}

/// A source after `Thumbnailer.decode`: its header, and either decoded
/// pixels waiting for `Thumbnailer.finish` or the finished thumbnails.
public struct DecodedImage: Sendable {
    public var info: SourceImageInfo
    /// The path that produced the pixels (after any fallback to libvips).
    public var decoder: DecodePath
    var stage: Stage

    enum Stage: Sendable {
        case pixels(DecodedPixels)
        case rendered(RenderedImage)
    }

    /// Whether `Thumbnailer.finish` has work left to do.
    public var needsFinishing: Bool {
        if case .pixels = stage { return true }
        return false
    }
}

/// What `Thumbnailer.plan` decided for one source, before any pixel.
public struct DecodePlan: Sendable {
    public var path: DecodePath
    /// The header, when a JPEG's was read; libvips reads the others' later.
    public var info: SourceImageInfo?
    /// JPEG shrink on load (1, 2, 4 or 8).
    public var shrink: Int
    /// Memory the decode holds at its peak (`MemoryBudget`).
    public var peakBytes: Int
    /// Stored width and height (before orientation) the decode resizes to
    /// as it goes: a progressive JPEG at 1/1 on `jpeg_prog.c` streams its
    /// rows into the largest thumbnail's resize, so the full-size image is
    /// never held (36 MB for 12 MP). Nil: the decode's own size.
    public var target: PixelSize?

    public init(path: DecodePath, info: SourceImageInfo?, shrink: Int, peakBytes: Int, target: PixelSize? = nil) {
        self.path = path
        self.info = info
        self.shrink = shrink
        self.peakBytes = peakBytes
        self.target = target
    }
}

/// A width and a height in pixels.
public struct PixelSize: Sendable, Hashable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// Limits checked before any pixel is decoded.
public struct DecodeLimits: Sendable, Hashable {
    public var maxPixels: Int
    public var failOn: FailOn

    public init(maxPixels: Int = RunOptions.Defaults.maxPixels, failOn: FailOn = RunOptions.Defaults.failOn) {
        self.maxPixels = maxPixels
        self.failOn = failOn
    }
}

/// Turns the bytes of one image into its thumbnails through libvips.
///
/// Blocking and CPU-bound: call it on the decoding pool, never on Swift's
/// cooperative threads. Every libvips handle is created and released inside
/// one call; only plain values come out.
public enum Thumbnailer {
    /// Reads the header and chooses how to decode (`DecodePath.choose`),
    /// without decoding a pixel. The pixel limit is checked here when the
    /// header is a JPEG's; every other format is checked by `decode`, when
    /// libvips opens its header.
    public static func plan(
        _ bytes: UnsafeRawBufferPointer,
        settings: OutputSettings,
        limits: DecodeLimits
    ) throws(ItemError) -> DecodePlan {
        guard let header = DirectJPEG.probe(bytes) else {
            return DecodePlan(path: .libvips, info: nil, shrink: 1, peakBytes: 0)
        }
        try checkPixelLimit(width: header.width, height: header.height, limits: limits)
        let info = SourceImageInfo(format: "jpeg", storedWidth: header.width, storedHeight: header.height, orientation: header.orientation)
        let shrink = jpegShrink(info: info, plans: plans(info, settings: settings))
        let facts = header.facts
        let path = DecodePath.choose(
            jpeg: facts, shrink: shrink, keepMetadata: settings.keepMetadata, pixelBudget: DirectJPEG.memoryBudget
        )
        let peakBytes = facts.peakBytes(path: path, shrink: shrink)
        if path == .jpegProgressive,
           let target = streamTarget(info, decoded: ThumbnailGeometry.jpegDecodedSize(width: info.width, height: info.height, shrink: shrink),
                                     plans: plans(info, settings: settings)) {
            let streamed = shim_jpeg_streamed_bytes(bytes.baseAddress, bytes.count, Int32(shrink), Int32(target.width), Int32(target.height))
            // Worth it when the resize saves more than its input rows and
            // scratch cost (not for a target of nearly the decode's size).
            if streamed > 0 && streamed < peakBytes {
                return DecodePlan(path: path, info: info, shrink: shrink, peakBytes: streamed, target: target)
            }
        }
        return DecodePlan(path: path, info: info, shrink: shrink, peakBytes: peakBytes)
    }

    /// The size `renderAll` first resizes the decode to (the largest
    /// thumbnail, in stored orientation), when it is smaller both ways than
    /// the `decoded` size (upright): what a streamed decode can resize to
    /// as it goes.
    private static func streamTarget(
        _ info: SourceImageInfo, decoded: (width: Int, height: Int), plans: [ThumbnailGeometry]
    ) -> PixelSize? {
        guard let largest = plans.max(by: { $0.resizedWidth * $0.resizedHeight < $1.resizedWidth * $1.resizedHeight }) else {
            return nil
        }
        guard largest.resizedWidth >= 1, largest.resizedHeight >= 1,
              largest.resizedWidth < decoded.width, largest.resizedHeight < decoded.height else { return nil }
        return info.swapsSides
            ? PixelSize(width: largest.resizedHeight, height: largest.resizedWidth)
            : PixelSize(width: largest.resizedWidth, height: largest.resizedHeight)
    }

    /// The first half of making an image's thumbnails: on a JPEG path the
    /// image is decoded into memory and waits for `finish`; on libvips it is
    /// rendered in full here, because libvips decodes lazily while resizing.
    ///
    /// Two halves so that the pipeline can run them on different threads: a
    /// decode thread goes on to the next image while libvips resizes and
    /// encodes this one (on its own worker threads, which the caller would
    /// otherwise sit waiting for).
    public static func decode(
        _ bytes: UnsafeRawBufferPointer,
        plan: DecodePlan,
        settings: OutputSettings,
        limits: DecodeLimits
    ) throws(ItemError) -> DecodedImage {
        if plan.path.isDirect, let info = plan.info,
           let pixels = DirectJPEG.decode(bytes, shrink: plan.shrink, target: plan.target,
                                          memoryBudget: max(DirectJPEG.memoryBudget, plan.peakBytes)) {
            return DecodedImage(info: info, decoder: pixels.decoder, stage: .pixels(pixels))
        }
        // Not a JPEG of the direct paths, or one they gave up on (damaged
        // data, an unusual layout): libvips decides, under --fail-on.
        let (info, rendered) = try renderWithLibvips(bytes, settings: settings, limits: limits)
        return DecodedImage(info: info, decoder: .libvips, stage: .rendered(rendered))
    }

    /// `plan` and `decode` in one call.
    public static func decode(
        _ bytes: UnsafeRawBufferPointer,
        settings: OutputSettings,
        limits: DecodeLimits
    ) throws(ItemError) -> DecodedImage {
        try decode(bytes, plan: plan(bytes, settings: settings, limits: limits), settings: settings, limits: limits)
    }

    /// The second half: resizes and encodes decoded pixels (a
    /// no-op for images `decode` rendered already).
    public static func finish(_ decoded: DecodedImage, settings: OutputSettings) throws(ItemError) -> RenderedImage {
        switch decoded.stage {
        case .rendered(let rendered):
            return rendered
        case .pixels(let pixels):
            guard let base = pixels.image() else {
                throw ItemError.encode("cannot make the thumbnails: the decoded pixels were used already")
            }
            do {
                return try renderAll(base, info: decoded.info, plans: plans(decoded.info, settings: settings), settings: settings)
            } catch {
                // The pixels are decoded: what failed is a resize or an encoder.
                throw ItemError.encode("cannot make the thumbnails (\(error.operation)): \(error.message)")
            }
        }
    }

    private static func plans(_ info: SourceImageInfo, settings: OutputSettings) -> [ThumbnailGeometry] {
        settings.sizes.map {
            ThumbnailGeometry(sourceWidth: info.width, sourceHeight: info.height, box: $0, fit: settings.fit, enlarge: settings.enlarge)
        }
    }

    private static func renderWithLibvips(
        _ bytes: UnsafeRawBufferPointer,
        settings: OutputSettings,
        limits: DecodeLimits
    ) throws(ItemError) -> (SourceImageInfo, RenderedImage) {
        let header = try openHeader(bytes, limits: limits)
        let info = header.info
        let plans = plans(info, settings: settings)
        let reusable = plans.count > 1
        let base: VipsImageRef
        do {
            base = try load(bytes, header: header, plans: plans, limits: limits, reusable: reusable)
        } catch {
            throw ItemError.decode("cannot decode \(info.format) image: \(error.message)")
        }
        do {
            return (info, try renderAll(base, info: info, plans: plans, settings: settings))
        } catch {
            // With several sizes the image was decoded into memory by `load`,
            // so a failure here is a resize's or an encoder's. With one size
            // libvips decodes while it resizes, and a damaged file fails here.
            if reusable { throw ItemError.encode("cannot make the thumbnails (\(error.operation)): \(error.message)") }
            throw ItemError.decode("cannot decode \(info.format) image: \(error.message)")
        }
    }

    // MARK: - Header

    private struct Header {
        var image: VipsImageRef
        var loader: String
        var info: SourceImageInfo
    }

    private static func openHeader(_ bytes: UnsafeRawBufferPointer, limits: DecodeLimits) throws(ItemError) -> Header {
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            throw ItemError.decode("the file is empty (0 bytes)")
        }
        var image: UnsafeMutablePointer<VipsImage>?
        var loaderName: UnsafePointer<CChar>?
        let status = shim_header_from_buffer(base, bytes.count, Int32(limits.failOn.vipsValue.rawValue), &image, &loaderName)
        guard let loaderName else {
            _ = VipsRuntime.lastError()
            throw ItemError.unsupported("not an image format thumbs can read (\(describeSignature(bytes)))")
        }
        let loader = String(cString: loaderName)
        guard status == 0, let image else {
            let detail = VipsRuntime.lastError() ?? "unreadable header"
            if loader.hasPrefix("jpegload"), let size = JPEGDimensions.read(bytes) {
                try checkPixelLimit(width: size.width, height: size.height, limits: limits)
            }
            throw LoaderErrors.headerFailure(loader: loader, format: formatName(loader: loader, image: nil), detail: detail, bytes: bytes)
        }
        let ref = VipsImageRef(image)
        let width = ref.width, pageHeight = ref.pageHeight
        let info = SourceImageInfo(
            format: formatName(loader: loader, image: ref), storedWidth: width, storedHeight: pageHeight, orientation: ref.orientation
        )
        try checkPixelLimit(width: width, height: pageHeight, limits: limits)
        return Header(image: ref, loader: loader, info: info)
    }

    private static func checkPixelLimit(width: Int, height: Int, limits: DecodeLimits) throws(ItemError) {
        let pixels = width.multipliedReportingOverflow(by: height)
        if pixels.overflow || pixels.partialValue > limits.maxPixels {
            throw ItemError.tooLarge(
                "\(width)×\(height) is \(megapixels(width, height)) MP, over the limit of \(megapixels(limits.maxPixels, 1)) MP; raise --max-pixels to process it"
            )
        }
    }

    // MARK: - Decoding

    private static func load(
        _ bytes: UnsafeRawBufferPointer,
        header: Header,
        plans: [ThumbnailGeometry],
        limits: DecodeLimits,
        reusable: Bool
    ) throws(VipsFailure) -> VipsImageRef {
        let stored = storedSize(of: header.info)
        let (needW, needH) = neededSize(info: header.info, plans: plans)
        var shrink: Int32 = 1
        var scale = 1.0
        if header.loader.hasPrefix("jpegload") {
            shrink = Int32(jpegShrink(info: header.info, plans: plans))
        } else if header.loader.hasPrefix("webpload") {
            let s = max(Double(needW) / Double(stored.width), Double(needH) / Double(stored.height))
            if s < 1 { scale = s }
        } else if header.loader.hasPrefix("svgload") || header.loader.hasPrefix("pdfload") {
            scale = max(Double(needW) / Double(stored.width), Double(needH) / Double(stored.height))
        }
        var out: UnsafeMutablePointer<VipsImage>?
        guard shim_load_from_buffer(bytes.baseAddress, bytes.count, header.loader, shrink, scale, Int32(limits.failOn.vipsValue.rawValue), &out) == 0,
              let out
        else {
            throw VipsFailure(operation: "load", message: VipsRuntime.lastError() ?? "load failed")
        }
        var image = VipsImageRef(out)
        if vips_image_get_coding(image.pointer) != VIPS_CODING_NONE {
            image = try image.apply("decode") { vips_image_decode($0, $1) }
        }
        if reusable {
            // Several boxes read the same decoded pixels: decode once into memory.
            guard let copy = vips_image_copy_memory(image.pointer) else {
                throw VipsFailure(operation: "copy_memory", message: VipsRuntime.lastError() ?? "decode failed")
            }
            image = VipsImageRef(copy)
        }
        return image
    }

    private static func storedSize(of info: SourceImageInfo) -> (width: Int, height: Int) {
        info.swapsSides ? (info.height, info.width) : (info.width, info.height)
    }

    /// The largest resized image any box needs, in stored orientation.
    private static func neededSize(info: SourceImageInfo, plans: [ThumbnailGeometry]) -> (width: Int, height: Int) {
        let swapped = info.swapsSides
        var needW = 1, needH = 1
        for plan in plans {
            needW = max(needW, swapped ? plan.resizedHeight : plan.resizedWidth)
            needH = max(needH, swapped ? plan.resizedWidth : plan.resizedHeight)
        }
        return (needW, needH)
    }

    private static func jpegShrink(info: SourceImageInfo, plans: [ThumbnailGeometry]) -> Int {
        let stored = storedSize(of: info)
        let needed = neededSize(info: info, plans: plans)
        return ThumbnailGeometry.jpegShrink(
            sourceWidth: stored.width, sourceHeight: stored.height, neededWidth: needed.width, neededHeight: needed.height
        )
    }

    // MARK: - One thumbnail

    /// One thumbnail of `base` per size, in the order of `settings.sizes`.
    ///
    /// Largest first: each size is resized from the smallest rendition made
    /// so far that is at least twice as large both ways (as a Pillow script
    /// makes 256 from 1024), else from `base`. A rendition that a smaller
    /// size will use is kept in memory, already sRGB and upright, so the
    /// colour conversion and the rotation are done once for the sizes made
    /// from it, and the large resize is not repeated.
    private static func renderAll(
        _ base: VipsImageRef, info: SourceImageInfo, plans: [ThumbnailGeometry], settings: OutputSettings
    ) throws(VipsFailure) -> RenderedImage {
        let order = plans.indices.sorted { plans[$0].resizedWidth * plans[$0].resizedHeight > plans[$1].resizedWidth * plans[$1].resizedHeight }
        var renditions: [VipsImageRef] = []
        var outputs: [Int: RenderedThumbnail] = [:]
        for (position, index) in order.enumerated() {
            let plan = plans[index]
            var image: VipsImageRef
            if let source = renditions.last(where: { Self.canServe($0, plan) }) {
                image = try resize(source, width: plan.resizedWidth, height: plan.resizedHeight)
            } else {
                let swapped = info.swapsSides
                image = try resize(
                    base,
                    width: swapped ? plan.resizedHeight : plan.resizedWidth,
                    height: swapped ? plan.resizedWidth : plan.resizedHeight
                )
                image = try toSRGB8(image)
                // Upright already: no autorot, whose copy would make the
                // rendition kept below a second buffer instead of a reference.
                if image.orientation != 1 {
                    image = try image.apply("autorot") { shim_autorot($0, $1) }
                }
            }
            let later = order[(position + 1)...].map { plans[$0] }
            let smallest = position == order.count - 1
            if smallest || later.contains(where: { Self.canServe(image, $0) }) {
                // Kept in memory: a smaller size, or the signature, reads it again.
                guard let copy = vips_image_copy_memory(image.pointer) else {
                    throw VipsFailure(operation: "copy_memory", message: VipsRuntime.lastError() ?? "resize failed")
                }
                image = VipsImageRef(copy)
                renditions.append(image)
            }
            outputs[index] = try finishOne(image, size: settings.sizes[index], plan: plan, settings: settings)
        }
        let signature = try renditions.last.map { rendition throws(VipsFailure) in
            try SignatureMaker.make(
                from: rendition, placeholders: settings.placeholders,
                hashSource: SignatureMaker.hashSource(among: [base] + renditions)
            )
        } ?? ImageSignature()
        return RenderedImage(thumbnails: plans.indices.compactMap { outputs[$0] }, signature: signature)
    }

    /// Whether `rendition` (upright) is large enough to make `plan`'s size
    /// from without a visible loss: twice the size both ways.
    private static func canServe(_ rendition: VipsImageRef, _ plan: ThumbnailGeometry) -> Bool {
        rendition.width >= 2 * plan.resizedWidth && rendition.height >= 2 * plan.resizedHeight
    }

    /// Resizes to exactly `width` × `height` (Lanczos3), premultiplied when
    /// there is alpha so that transparent pixels do not bleed their colour.
    static func resize(_ input: VipsImageRef, width targetW: Int, height targetH: Int) throws(VipsFailure) -> VipsImageRef {
        var image = input
        guard image.width != targetW || image.height != targetH else { return image }
        // 8-bit pixels already in memory (every direct JPEG decode, and the
        // renditions smaller sizes are made from): resample.c, about three
        // times faster than libvips' reduce without liborc. Anything else
        // (lazy pipelines, alpha, 16-bit, enlarging) goes through libvips.
        var resampled: UnsafeMutablePointer<VipsImage>?
        switch shim_resample_image(image.pointer, &resampled, Int32(targetW), Int32(targetH)) {
        case 0:
            if let resampled { return VipsImageRef(resampled) }
        case 1:
            break
        default:
            throw VipsFailure(operation: "resample", message: VipsRuntime.lastError() ?? "resample failed")
        }
        let alpha = image.hasAlpha
        let format = image.bandFormat
        if alpha { image = try image.apply("premultiply") { shim_premultiply($0, $1) } }
        let h = Double(targetW) / Double(image.width), v = Double(targetH) / Double(image.height)
        image = try image.apply("resize") { shim_resize($0, $1, h, v) }
        if alpha {
            image = try image.apply("unpremultiply") { shim_unpremultiply($0, $1) }
            image = try image.apply("cast") { shim_cast($0, $1, format, 0) }
        }
        if image.width > targetW || image.height > targetH {
            let w = min(image.width, targetW), hh = min(image.height, targetH)
            image = try image.apply("extract_area") { shim_extract_area($0, $1, 0, 0, Int32(w), Int32(hh)) }
        }
        return image
    }

    /// Crops (cover), flattens for JPEG and encodes one resized, upright,
    /// sRGB image.
    private static func finishOne(
        _ resized: VipsImageRef,
        size: ThumbSize,
        plan: ThumbnailGeometry,
        settings: OutputSettings
    ) throws(VipsFailure) -> RenderedThumbnail {
        var image = resized
        if settings.fit == .cover, image.width > plan.width || image.height > plan.height {
            let interesting = settings.crop.vipsValue
            let w = Int32(plan.width), h = Int32(plan.height)
            image = try image.apply("smartcrop") { shim_smartcrop($0, $1, w, h, Int32(interesting.rawValue)) }
        }

        let format: OutputFormat
        switch settings.format {
        case .auto: format = image.hasAlpha ? .png : .jpeg
        default: format = settings.format
        }
        if format == .jpeg, image.hasAlpha {
            image = try image.apply("flatten") { shim_flatten($0, $1, 255) }
            image = try image.apply("cast") { shim_cast($0, $1, VIPS_FORMAT_UCHAR, 0) }
        }

        if !settings.keepMetadata {
            // Some savers (WebP) embed the ICC profile even when told to strip;
            // the pixels are sRGB by now, so the profile carries nothing.
            image = try image.apply("copy") { shim_copy($0, $1) }
            vips_image_remove(image.pointer, VIPS_META_ICC_NAME)
        }
        let data = try encode(image, format: format, quality: settings.quality, strip: !settings.keepMetadata)
        return RenderedThumbnail(size: size, width: image.width, height: image.height, format: format, data: data)
    }

    /// Converts any input (CMYK, grey, 16-bit, ICC-tagged, Lab…) to 8-bit
    /// sRGB, keeping an alpha channel if there is one.
    private static func toSRGB8(_ input: VipsImageRef) throws(VipsFailure) -> VipsImageRef {
        var image = input
        let isCMYK = image.interpretation == VIPS_INTERPRETATION_CMYK
        if !isCMYK, let fast = try ColourProfile.toSRGB(image) {
            // sRGB profiles cost nothing; other 8-bit RGB and grey profiles
            // take a cached lcms2 transform (ColourProfile).
            image = fast
        } else if image.hasICCProfile || isCMYK {
            do {
                image = try image.apply("icc_transform") { shim_icc_to_srgb($0, $1, isCMYK ? 1 : 0) }
            } catch {
                // A broken or unusual profile: fall back to a plain conversion.
            }
        }
        if image.interpretation != VIPS_INTERPRETATION_sRGB || image.bandFormat != VIPS_FORMAT_UCHAR {
            image = try image.apply("colourspace") { shim_colourspace($0, $1, VIPS_INTERPRETATION_sRGB) }
        }
        if image.bandFormat != VIPS_FORMAT_UCHAR {
            let shift: Int32 = image.bandFormat == VIPS_FORMAT_USHORT ? 1 : 0
            image = try image.apply("cast") { shim_cast($0, $1, VIPS_FORMAT_UCHAR, shift) }
        }
        if image.bands > 4 {
            image = try image.apply("extract_band") { shim_extract_band($0, $1, 0, 4) }
        }
        return image
    }

    private static func encode(_ image: VipsImageRef, format: OutputFormat, quality: Int, strip: Bool) throws(VipsFailure) -> Data {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let q = Int32(quality), s: Int32 = strip ? 1 : 0
        let status: Int32
        switch format {
        case .jpeg, .auto: status = shim_jpegsave(image.pointer, &buffer, &length, q, s)
        case .webp: status = shim_webpsave(image.pointer, &buffer, &length, q, s)
        case .avif: status = shim_avifsave(image.pointer, &buffer, &length, q, s)
        case .png: status = shim_pngsave(image.pointer, &buffer, &length, s)
        }
        guard status == 0, let buffer else {
            throw VipsFailure(operation: "save", message: VipsRuntime.lastError() ?? "encoding \(format.rawValue) failed")
        }
        defer { shim_free(buffer) }
        return Data(bytes: buffer, count: length)
    }

    // MARK: - Names

    private static func formatName(loader: String, image: VipsImageRef?) -> String {
        var name = loader
        for suffix in ["load_buffer", "load_source", "load"] where name.hasSuffix(suffix) {
            name.removeLast(suffix.count)
            break
        }
        switch name {
        case "heif":
            if let image, let compression = stringField(image, "heif-compression"), compression == "av1" { return "avif" }
            return "heif"
        case "magick", "magick7", "magick6": return "magick"
        default: return name
        }
    }

    private static func stringField(_ image: VipsImageRef, _ name: String) -> String? {
        guard vips_image_get_typeof(image.pointer, name) != 0 else { return nil }
        var value: UnsafePointer<CChar>?
        guard vips_image_get_string(image.pointer, name, &value) == 0, let value else { return nil }
        return String(cString: value)
    }

    private static func describeSignature(_ bytes: UnsafeRawBufferPointer) -> String {
        let prefix = bytes.prefix(64)
        let printable = prefix.filter { (0x20..<0x7f).contains($0) || $0 == 0x0a || $0 == 0x09 || $0 == 0x0d }
        if printable.count == prefix.count { return "the content is text" }
        return "unknown signature " + prefix.prefix(4).map { String(format: "%02x", $0) }.joined(separator: " ")
    }

    private static func megapixels(_ w: Int, _ h: Int) -> String {
        String(format: "%.1f", Double(w) * Double(h) / 1_000_000)
    }
}

extension FailOn {
    var vipsValue: VipsFailOn {
        switch self {
        case .none: VIPS_FAIL_ON_NONE
        case .truncated: VIPS_FAIL_ON_TRUNCATED
        case .error: VIPS_FAIL_ON_ERROR
        }
    }
}

extension Crop {
    var vipsValue: VipsInteresting {
        switch self {
        case .centre: VIPS_INTERESTING_CENTRE
        case .attention: VIPS_INTERESTING_ATTENTION
        case .entropy: VIPS_INTERESTING_ENTROPY
        }
    }
}
