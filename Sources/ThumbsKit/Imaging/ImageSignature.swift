import CVips
import CVipsShim

/// What an image looks like in a few bytes: its placeholders, average colour
/// and perceptual hash (the manifest's `placeholder`, `color`, `phash`).
public struct ImageSignature: Sendable, Equatable {
    public var placeholder: Placeholder?
    public var color: String?
    public var phash: String?

    public init(placeholder: Placeholder? = nil, color: String? = nil, phash: String? = nil) {
        self.placeholder = placeholder
        self.color = color
        self.phash = phash
    }
}

/// Makes an `ImageSignature` from a rendition the pipeline made anyway (the
/// smallest thumbnail, upright and sRGB, before any crop): two tiny
/// reductions of it, never a second decode.
///
/// - Placeholders and colour: the image fitted into 100×100 (the largest
///   ThumbHash accepts), as RGBA so that ThumbHash keeps transparency.
/// - Perceptual hash: the image squeezed to 32×32 whatever its shape, then
///   grey by PIL's weights, as imagehash's `phash` does.
enum SignatureMaker {
    /// `hashSource`: an image held in memory to make the hash from in one
    /// resize (`hashSource(among:)`; the decode is in stored orientation and
    /// before colour conversion), as imagehash makes it from the photo.
    /// From a small thumbnail instead, the second resize's rounding moved
    /// some look-alikes a bit past the default distance.
    static func make(from image: VipsImageRef, placeholders: Bool, hashSource: VipsImageRef? = nil) throws(VipsFailure) -> ImageSignature {
        var signature = ImageSignature()
        if placeholders {
            let scale = min(1, 100 / Double(max(image.width, image.height)))
            let w = max(1, min(100, Int((Double(image.width) * scale).rounded())))
            let h = max(1, min(100, Int((Double(image.height) * scale).rounded())))
            var small = boxReduced(image, width: w, height: h)
            if small == nil { small = try pixels(of: image, width: w, height: h, grey: false) }
            if let small {
                if let hash = try? ThumbHash(encoding: small) {
                    signature.placeholder = Placeholder(thumbhash: hash.base64, blurhash: BlurHash.encode(small, xComponents: 4, yComponents: 3))
                }
                signature.color = AverageColour.hex(of: small)
            }
        }
        if let square = try hashPixels(image, hashSource: hashSource), let hash = PerceptualHash.hash(grey32: square) {
            signature.phash = PerceptualHash.hexString(hash)
        }
        return signature
    }

    /// The placeholders' reduction, straight from a rendition in memory: an
    /// area average (alpha-weighted), without a libvips pipeline. ThumbHash
    /// and BlurHash keep only a few cosines of it, so a box filter serves
    /// as well as Lanczos at a fraction of the cost (the bench's
    /// `placeholders` section). Nil when the pixels are not plain 8-bit
    /// memory; the caller then resizes with libvips.
    static func boxReduced(_ image: VipsImageRef, width w: Int, height h: Int) -> PixelBuffer? {
        let W = image.width, H = image.height, bands = image.bands
        guard image.bandFormat == VIPS_FORMAT_UCHAR, (1...4).contains(bands), W >= w, H >= h,
              vips_image_get_coding(image.pointer) == VIPS_CODING_NONE,
              let data = vips_image_get_data(image.pointer)
        else { return nil }
        let hasAlpha = bands == 2 || bands == 4
        // Rounded half up in whole numbers, one output row at a time
        // (box_reduce.c; an opaque source weighs every pixel 255).
        var bytes = [UInt8](repeating: 0, count: w * h * (hasAlpha ? 4 : 3))
        let reduced = bytes.withUnsafeMutableBufferPointer { bytes in
            shim_box_reduce(data.assumingMemoryBound(to: UInt8.self), Int32(W), Int32(H), Int32(bands), Int32(w), Int32(h), bytes.baseAddress)
        }
        guard reduced == 0 else { return nil }
        return PixelBuffer(width: w, height: h, layout: hasAlpha ? .rgba : .rgb, bytes: bytes)
    }

    /// The hash is made from the smallest image at hand whose longer side
    /// is at least this: large enough that one resize of it gives the same
    /// bits as the photo would, small enough that the resize stays cheap
    /// (from a 12 MP decode at 1/2 it costs 5 ms, at 1/1 16 ms; from 500×375,
    /// 0.4 ms).
    static let hashSourceSide = 400

    /// Of `images` (the decode and the renditions kept in memory), the
    /// smallest with a side of at least `hashSourceSide`, else the largest.
    static func hashSource(among images: [VipsImageRef]) -> VipsImageRef? {
        func area(_ image: VipsImageRef) -> Int { image.width * image.height }
        let large = images.filter { max($0.width, $0.height) >= hashSourceSide }
        return large.min { area($0) < area($1) } ?? images.max { area($0) < area($1) }
    }

    /// The 32×32 grey levels the hash is made of: from `hashSource` when it
    /// is plain 8-bit memory (squeezed to 32×32, then turned upright:
    /// squeezing to a square and turning commute), else from `image`.
    private static func hashPixels(_ image: VipsImageRef, hashSource: VipsImageRef?) throws(VipsFailure) -> PixelBuffer? {
        if let source = hashSource, source.bandFormat == VIPS_FORMAT_UCHAR, source.bands == 1 || source.bands == 3,
           source.width >= 32, source.height >= 32 {
            var out: UnsafeMutablePointer<VipsImage>?
            if shim_resample_image(source.pointer, &out, 32, 32) == 0, let out {
                var upright = VipsImageRef(out)
                // Stored upright already (most photos): read the resample's
                // buffer, not autorot's lazy copy of it.
                if upright.orientation != 1 {
                    upright = try upright.apply("autorot") { shim_autorot($0, $1) }
                }
                return try pixels(of: upright, width: 32, height: 32, grey: true)
            }
        }
        return try pixels(of: image, width: 32, height: 32, grey: true)
    }

    /// `image` resized to exactly `width` × `height` (Lanczos3), as RGBA,
    /// RGB or grey 8-bit pixels.
    private static func pixels(of input: VipsImageRef, width: Int, height: Int, grey: Bool) throws(VipsFailure) -> PixelBuffer? {
        let image = try VipsResize.resize(input, width: width, height: height)
        var size = 0
        // A buffer in memory (resample.c's) is read where it is; a lazy
        // image is computed into a copy by libvips' sink.
        var computed: UnsafeMutableRawPointer?
        defer { g_free(computed) }
        let memory: UnsafeRawPointer
        if let held = shim_image_memory(image.pointer, &size) {
            memory = held
        } else {
            guard let copy = vips_image_write_to_memory(image.pointer, &size) else {
                throw VipsFailure(operation: "write_to_memory", fallback: "reduction failed")
            }
            computed = copy
            memory = UnsafeRawPointer(copy)
        }
        let bands = image.bands, w = image.width, h = image.height
        guard size == w * h * bands else { return nil }
        let raw = UnsafeRawBufferPointer(start: memory, count: size)
        var rgba = [UInt8](repeating: 255, count: w * h * 4)
        for i in 0..<(w * h) {
            switch bands {
            case 1, 2:
                rgba[4 * i] = raw[i * bands]
                rgba[4 * i + 1] = raw[i * bands]
                rgba[4 * i + 2] = raw[i * bands]
                if bands == 2 { rgba[4 * i + 3] = raw[i * bands + 1] }
            default:
                rgba[4 * i] = raw[i * bands]
                rgba[4 * i + 1] = raw[i * bands + 1]
                rgba[4 * i + 2] = raw[i * bands + 2]
                if bands >= 4 { rgba[4 * i + 3] = raw[i * bands + 3] }
            }
        }
        if grey {
            // imagehash converts with PIL's "L" mode, which ignores alpha.
            var levels = [UInt8](repeating: 0, count: w * h)
            for i in 0..<(w * h) {
                levels[i] = PerceptualHash.greyLevel(red: rgba[4 * i], green: rgba[4 * i + 1], blue: rgba[4 * i + 2])
            }
            return PixelBuffer(width: w, height: h, layout: .grey, bytes: levels)
        }
        let opaque = bands != 2 && bands < 4
        if opaque {
            var rgb = [UInt8](repeating: 0, count: w * h * 3)
            for i in 0..<(w * h) { rgb[3 * i] = rgba[4 * i]; rgb[3 * i + 1] = rgba[4 * i + 1]; rgb[3 * i + 2] = rgba[4 * i + 2] }
            return PixelBuffer(width: w, height: h, layout: .rgb, bytes: rgb)
        }
        return PixelBuffer(width: w, height: h, layout: .rgba, bytes: rgba)
    }
}
