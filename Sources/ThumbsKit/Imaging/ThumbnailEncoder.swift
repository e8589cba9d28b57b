import CVips
import CVipsShim
import Foundation

/// The last steps of one thumbnail: crop, flatten, strip, encode.
enum ThumbnailEncoder {
    /// Crops (cover), flattens for JPEG and encodes one resized, upright,
    /// sRGB image.
    static func finish(
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

        if format == .jpeg, !settings.keepMetadata, let data = try encodeInMemory(image, quality: settings.quality) {
            return RenderedThumbnail(size: size, width: image.width, height: image.height, format: format, data: data)
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

    /// The JPEG of a thumbnail whose pixels are in memory (every size the
    /// renderer makes from a direct decode or a rendition), encoded by
    /// libjpeg itself (`jpeg_encode.c`): the bytes jpegsave would write
    /// when it strips the metadata, without the sink threads that cost a
    /// small thumbnail three times its encode. Nil for an image it leaves
    /// to libvips (alpha, a lazy crop, another colour space).
    static func encodeInMemory(_ image: VipsImageRef, quality: Int) throws(VipsFailure) -> Data? {
        var buffer: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = shim_jpeg_encode_memory(image.pointer, Int32(quality), &buffer, &length, &message, message.count)
        if status == SHIM_JPEG_ENCODE_NOT_MINE { return nil }
        guard status == 0, let buffer else {
            throw VipsFailure(operation: "save", message: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return Data(bytesNoCopy: buffer, count: length, deallocator: .free)
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
            throw VipsFailure(operation: "save", fallback: "encoding \(format.rawValue) failed")
        }
        defer { shim_free(buffer) }
        return Data(bytes: buffer, count: length)
    }
}

extension Crop {
    /// libvips' value for the crop strategy.
    var vipsValue: VipsInteresting {
        switch self {
        case .centre: VIPS_INTERESTING_CENTRE
        case .attention: VIPS_INTERESTING_ATTENTION
        case .entropy: VIPS_INTERESTING_ENTROPY
        }
    }
}
