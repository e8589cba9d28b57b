import CVips
import CVipsShim
import Foundation

/// Embedded ICC profiles at (almost) no cost.
///
/// libvips's `icc_transform` builds a new lcms2 transform for every image and
/// converts through float Lab: about 4.5 ms of CPU per thumbnail, which on a
/// 12 MP JPEG is a fifth of the whole job. Most photos carry an sRGB profile,
/// whose transform to sRGB is the identity: `classify` recognises those by
/// their content and `toSRGB` just drops the profile. Other profiles
/// (Display P3, Adobe RGB, camera profiles) go through an 8-bit lcms2
/// transform that is built once per distinct profile and cached
/// (`shim_icc_to_srgb8`, icc_fast.c).
enum ColourProfile {
    enum Kind: Equatable, Sendable {
        /// An RGB profile whose transform to sRGB is the identity (within half
        /// a level per 8-bit channel), or a grey profile with the sRGB curve.
        case srgb
        /// A well-formed profile of another colour space.
        case other
        /// lcms2 cannot open it (or it is cut short), or cannot read a tag
        /// the judgement needs.
        case invalid
    }

    // MARK: - The image step

    /// What `toSRGB` did with an image.
    enum Conversion {
        /// The image in sRGB, its profile removed.
        case converted(VipsImageRef)
        /// This fast path does not apply (no profile, another band format,
        /// CMYK, a profile of another colour space than the bands'): the
        /// caller keeps libvips's `icc_transform`.
        case notTaken
        /// The profile fits the pixels, but lcms2 cannot make a transform
        /// to sRGB from it (curves missing, tables it cannot read…): why.
        case unusable(String)
    }

    /// For an 8-bit image with an embedded ICC profile: the image in sRGB
    /// with the profile removed, when this fast path applies.
    ///
    /// 3 and 4 bands (RGB, RGB + alpha) need an RGB profile, 1 and 2 bands a
    /// grey profile (the result is then grey with the sRGB curve, B_W).
    /// An sRGB profile costs nothing; any other pixels are rendered into
    /// memory once and transformed in place: call this after the resize, on
    /// thumbnail-sized images. A profile lcms2 cannot open is `damage(of:)`'s
    /// to report, and is not taken here.
    static func toSRGB(_ image: VipsImageRef) throws(VipsFailure) -> Conversion {
        guard image.hasICCProfile,
              image.bandFormat == VIPS_FORMAT_UCHAR,
              vips_image_get_coding(image.pointer) == VIPS_CODING_NONE
        else { return .notTaken }
        let bands = image.bands
        let interpretation = image.interpretation
        let isRGB = (bands == 3 || bands == 4)
            && (interpretation == VIPS_INTERPRETATION_sRGB || interpretation == VIPS_INTERPRETATION_RGB)
        let isGrey = (bands == 1 || bands == 2) && interpretation == VIPS_INTERPRETATION_B_W
        guard isRGB || isGrey, let icc = profileBytes(image) else { return .notTaken }
        // A damaged profile is `damage(of:)`'s to report; one that does not
        // fit the bands stays with libvips (which ignores such profiles).
        guard case .readable(let space, let kind) = ProfileVerdicts.shared.verdict(icc),
              space == (isRGB ? .rgb : .grey)
        else { return .notTaken }

        switch kind {
        case .srgb:
            let copy = try image.apply("copy") { shim_copy($0, $1) }
            vips_image_remove(copy.pointer, VIPS_META_ICC_NAME)
            return .converted(copy)
        case .other, .invalid:
            // lcms2 is asked for the transform itself, whatever the tags
            // `classify` could not read: it may not need them (a profile
            // built on lookup tables). Asked before rendering: an image
            // libvips reads sequentially cannot be read a second time.
            guard shim_icc_srgb8_available(icc.baseAddress, icc.count, Int32(bands)) != 0 else {
                return .unusable("lcms2 cannot make a transform to sRGB from it")
            }
            // Render into a fresh memory image (never the caller's pixels:
            // `image` may be a shared in-memory base) and transform in place.
            guard let memory = vips_image_new_memory() else { throw VipsFailure(operation: "icc_fast", fallback: "out of memory") }
            let rendered = VipsImageRef(memory)
            guard vips_image_write(image.pointer, rendered.pointer) == 0 else {
                throw VipsFailure(operation: "icc_fast", fallback: "rendering failed")
            }
            guard let pixels = vips_image_get_data(rendered.pointer) else {
                throw VipsFailure(operation: "icc_fast", fallback: "no pixel data")
            }
            let status = shim_icc_to_srgb8(
                UnsafeMutablePointer(mutating: pixels.assumingMemoryBound(to: UInt8.self)),
                rendered.width, rendered.height, Int32(bands), icc.baseAddress, icc.count
            )
            guard status == 0 else { return .unusable("lcms2 cannot make a transform to sRGB from it") }
            vips_image_remove(rendered.pointer, VIPS_META_ICC_NAME)
            rendered.pointer.pointee.`Type` = isRGB ? VIPS_INTERPRETATION_sRGB : VIPS_INTERPRETATION_B_W
            return .converted(rendered)
        }
    }

    /// Why the embedded profile of `image` is damaged (lcms2 cannot open
    /// it, or it is cut short), or nil when it is readable or absent.
    static func damage(of image: VipsImageRef) -> String? {
        guard let icc = profileBytes(image) else { return nil }
        return ProfileVerdicts.shared.verdict(icc) == .damaged ? "lcms2 cannot read it" : nil
    }

    /// The embedded profile's bytes, owned by `image`.
    private static func profileBytes(_ image: VipsImageRef) -> UnsafeRawBufferPointer? {
        var data: UnsafeRawPointer?
        var length = 0
        guard vips_image_get_blob(image.pointer, VIPS_META_ICC_NAME, &data, &length) == 0,
              let data, length > 0
        else { return nil }
        return UnsafeRawBufferPointer(start: data, count: length)
    }

    // MARK: - Recognising sRGB

    /// Whether `icc` is an sRGB profile, judged by content, so that re-saves
    /// by any software pass: an RGB matrix/TRC profile (no lookup tables,
    /// which lcms2 would prefer) whose colorants are the D50-adapted sRGB
    /// primaries within `colorantTolerance`, whose white point (if present)
    /// is D50 or D65, and whose three curves are the sRGB curve within half a
    /// level at every 8-bit input; or a grey profile whose curve is sRGB's.
    /// lcms2 reads the untrusted bytes (`ProfileFacts`).
    static func classify(_ icc: UnsafeRawBufferPointer) -> Kind {
        guard let facts = ProfileFacts(icc) else { return .invalid }
        return classify(facts)
    }

    static func classify(_ facts: ProfileFacts) -> Kind {
        switch facts.space {
        case .rgb:
            guard facts.pcsIsXYZ, !facts.hasLookupTables else { return .other }
            switch facts.colorants {
            case .malformed: return .invalid
            case .absent: return .other
            case .read(let r, let g, let b):
                guard near(r, sRGBRed, colorantTolerance), near(g, sRGBGreen, colorantTolerance),
                      near(b, sRGBBlue, colorantTolerance)
                else { return .other }
            }
            switch facts.white {
            case .malformed: return .invalid
            case .absent: break
            case .read(let white):
                guard near(white, d50, whiteTolerance) || near(white, d65, whiteTolerance) else { return .other }
            }
            return curvesKind(facts.curves)
        case .grey:
            guard !facts.hasLookupTables else { return .other }
            return curvesKind(facts.curves)
        case .otherSpace:
            return .other
        }
    }

    private static func curvesKind(_ curves: ProfileFacts.Tag<[[Float]]>) -> Kind {
        switch curves {
        case .malformed: return .invalid
        case .absent: return .other
        case .read(let curves): return curves.allSatisfy(isSRGBCurve) ? .srgb : .other
        }
    }

    /// Maximum distance from the sRGB curve, in 8-bit levels, of a curve
    /// that counts as sRGB: re-encoding its output with sRGB gives back
    /// every input level within half a level.
    static let curveTolerance = 0.5

    /// Whether a curve, evaluated at the 256 levels i / 255, is sRGB's.
    static func isSRGBCurve(_ values: [Float]) -> Bool {
        guard values.count == 256 else { return false }
        let bounds = sRGBLevelBounds
        for level in 0...255 {
            let linear = Double(values[level])
            // Written so that NaN fails.
            guard linear >= bounds[level].low, linear <= bounds[level].high else { return false }
        }
        return true
    }

    /// For each 8-bit level, the linear values that sRGB encodes back to
    /// within `curveTolerance` of it (no pow per check).
    private static let sRGBLevelBounds: [(low: Double, high: Double)] = (0...255).map { level in
        let low = (Double(level) - curveTolerance) / 255, high = (Double(level) + curveTolerance) / 255
        return (low <= 0 ? low / 12.92 : sRGBDecode(low), sRGBDecode(high))
    }

    /// Colorants of real-world sRGB profiles differ by quantisation and by
    /// how they were adapted to D50 (HP's 1998 profile, lcms2's, ICC's
    /// sRGB2014, Android's): up to a few 1e-4. 1e-3 moves a pixel by well
    /// under a level except in the near-black toe of a saturated primary.
    static let colorantTolerance = 0.001
    static let whiteTolerance = 0.002

    /// The sRGB primaries adapted to D50 with Bradford (IEC 61966-2.1 and
    /// ICC v4), as XYZ.
    static let sRGBRed = XYZ(x: 0.436041, y: 0.222485, z: 0.013920)
    static let sRGBGreen = XYZ(x: 0.385113, y: 0.716905, z: 0.097067)
    static let sRGBBlue = XYZ(x: 0.143046, y: 0.060610, z: 0.713913)
    static let d50 = XYZ(x: 0.9642, y: 1.0, z: 0.8249)
    static let d65 = XYZ(x: 0.9505, y: 1.0, z: 1.0890)

    struct XYZ: Equatable, Sendable {
        var x, y, z: Double
    }

    private static func near(_ a: XYZ, _ b: XYZ, _ tolerance: Double) -> Bool {
        abs(a.x - b.x) <= tolerance && abs(a.y - b.y) <= tolerance && abs(a.z - b.z) <= tolerance
    }

    /// The sRGB decoding curve (IEC 61966-2.1), 0...1 to linear 0...1.
    static func sRGBDecode(_ v: Double) -> Double {
        v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }
}
