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
        /// Not a complete ICC profile: bad header, tag table or tag bounds.
        case invalid
    }

    // MARK: - The image step

    /// For an 8-bit image with an embedded ICC profile: the image in sRGB with
    /// the profile removed, or nil when this fast path does not apply (no
    /// profile, another band format, CMYK, a profile lcms2 cannot use, a
    /// damaged profile); the caller then keeps libvips's `icc_transform`.
    ///
    /// 3 and 4 bands (RGB, RGB + alpha) need an RGB profile, 1 and 2 bands a
    /// grey profile (the result is then grey with the sRGB curve, B_W).
    /// An sRGB profile costs nothing; any other pixels are rendered into
    /// memory once and transformed in place: call this after the resize, on
    /// thumbnail-sized images.
    static func toSRGB(_ image: VipsImageRef) throws(VipsFailure) -> VipsImageRef? {
        guard image.hasICCProfile,
              image.bandFormat == VIPS_FORMAT_UCHAR,
              vips_image_get_coding(image.pointer) == VIPS_CODING_NONE
        else { return nil }
        let bands = image.bands
        let interpretation = image.interpretation
        let isRGB = (bands == 3 || bands == 4)
            && (interpretation == VIPS_INTERPRETATION_sRGB || interpretation == VIPS_INTERPRETATION_RGB)
        let isGrey = (bands == 1 || bands == 2) && interpretation == VIPS_INTERPRETATION_B_W
        guard isRGB || isGrey else { return nil }

        var data: UnsafeRawPointer?
        var length = 0
        guard vips_image_get_blob(image.pointer, VIPS_META_ICC_NAME, &data, &length) == 0,
              let data, length > 0
        else { return nil }
        // A damaged profile, or one that does not fit the bands, stays with
        // libvips (which ignores such profiles).
        guard let profile = ParsedProfile(UnsafeRawBufferPointer(start: data, count: length)),
              profile.space == (isRGB ? .rgb : .grey)
        else { return nil }

        switch classify(profile) {
        case .invalid:
            return nil
        case .srgb:
            let copy = try image.apply("copy") { shim_copy($0, $1) }
            vips_image_remove(copy.pointer, VIPS_META_ICC_NAME)
            return copy
        case .other:
            // Render into a fresh memory image (never the caller's pixels:
            // `image` may be a shared in-memory base) and transform in place.
            guard let memory = vips_image_new_memory() else { return nil }
            let rendered = VipsImageRef(memory)
            guard vips_image_write(image.pointer, rendered.pointer) == 0 else {
                throw VipsFailure(operation: "icc_fast", message: VipsRuntime.lastError() ?? "rendering failed")
            }
            guard let pixels = vips_image_get_data(rendered.pointer) else {
                throw VipsFailure(operation: "icc_fast", message: VipsRuntime.lastError() ?? "no pixel data")
            }
            let status = shim_icc_to_srgb8(
                UnsafeMutablePointer(mutating: pixels.assumingMemoryBound(to: UInt8.self)),
                rendered.width, rendered.height, Int32(bands), data, length
            )
            guard status == 0 else { return nil }
            vips_image_remove(rendered.pointer, VIPS_META_ICC_NAME)
            rendered.pointer.pointee.`Type` = isRGB ? VIPS_INTERPRETATION_sRGB : VIPS_INTERPRETATION_B_W
            return rendered
        }
    }

    // MARK: - Recognising sRGB

    /// Whether `icc` is an sRGB profile, judged by content, so that re-saves
    /// by any software pass: an RGB matrix/TRC profile (no lookup tables,
    /// which lcms2 would prefer) whose colorants are the D50-adapted sRGB
    /// primaries within `colorantTolerance`, whose white point (if present)
    /// is D50 or D65, and whose three curves are the sRGB curve within half a
    /// level at every 8-bit input; or a grey profile whose curve is sRGB's.
    /// The bytes are untrusted: every read is bounds-checked.
    static func classify(_ icc: UnsafeRawBufferPointer) -> Kind {
        guard let profile = ParsedProfile(icc) else { return .invalid }
        return classify(profile)
    }

    static func classify(_ profile: ParsedProfile) -> Kind {
        switch profile.space {
        case .rgb:
            guard profile.pcs == .xyz else { return .other }
            guard !profile.hasLookupTables else { return .other }
            guard let r = profile.xyz(.redColorant), let g = profile.xyz(.greenColorant),
                  let b = profile.xyz(.blueColorant)
            else { return profile.hasAny([.redColorant, .greenColorant, .blueColorant]) ? .invalid : .other }
            guard near(r, sRGBRed, colorantTolerance), near(g, sRGBGreen, colorantTolerance),
                  near(b, sRGBBlue, colorantTolerance)
            else { return .other }
            if profile.hasAny([.whitePoint]) {
                guard let white = profile.xyz(.whitePoint) else { return .invalid }
                guard near(white, d50, whiteTolerance) || near(white, d65, whiteTolerance) else { return .other }
            }
            var checked: Set<Int> = []
            for tag in [Tag.redCurve, .greenCurve, .blueCurve] {
                guard let curve = profile.curve(tag) else {
                    return profile.hasAny([tag]) ? .invalid : .other
                }
                if checked.insert(curve.offset).inserted, !curve.isSRGB { return .other }
            }
            return .srgb
        case .grey:
            guard !profile.hasLookupTables else { return .other }
            guard let curve = profile.curve(.greyCurve) else {
                return profile.hasAny([.greyCurve]) ? .invalid : .other
            }
            return curve.isSRGB ? .srgb : .other
        case .otherSpace:
            return .other
        }
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

    /// The sRGB encoding curve, linear 0...1 to 0...1.
    static func sRGBEncode(_ l: Double) -> Double {
        l <= 0.0031308 ? l * 12.92 : 1.055 * pow(l, 1 / 2.4) - 0.055
    }
}

// MARK: - Parsing

/// Tag signatures used here.
enum Tag: UInt32 {
    case redColorant = 0x7258_595A   // rXYZ
    case greenColorant = 0x6758_595A // gXYZ
    case blueColorant = 0x6258_595A  // bXYZ
    case whitePoint = 0x7774_7074    // wtpt
    case redCurve = 0x7254_5243      // rTRC
    case greenCurve = 0x6754_5243    // gTRC
    case blueCurve = 0x6254_5243     // bTRC
    case greyCurve = 0x6B54_5243     // kTRC
}

/// The header and tag table of an ICC profile, checked for bounds. Holds the
/// caller's bytes: use it only while they live.
struct ParsedProfile {
    enum Space: Equatable, Sendable { case rgb, grey, otherSpace }
    enum ConnectionSpace: Equatable { case xyz, lab }

    let bytes: UnsafeRawBufferPointer
    let space: Space
    let pcs: ConnectionSpace
    /// Tag signature -> (offset, size) within `bytes`, all within bounds.
    private let tags: [UInt32: (offset: Int, size: Int)]

    /// Tags that make lcms2 use lookup tables instead of matrix and curves
    /// for a relative colorimetric transform: A2B0-2 and D2B0-2.
    private static let lookupTags: [UInt32] = [
        0x4132_4230, 0x4132_4231, 0x4132_4232, 0x4432_4230, 0x4432_4231, 0x4432_4232,
    ]

    init?(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        let reader = ByteReader(bytes: bytes)
        // The header is 128 bytes, then the tag count.
        guard let declared = reader.u32(0), declared >= 132, Int(declared) <= bytes.count,
              reader.u32(36) == 0x6163_7370 // 'acsp'
        else { return nil }
        let end = Int(declared)
        guard let spaceSignature = reader.u32(16), let pcsSignature = reader.u32(20) else { return nil }
        switch spaceSignature {
        case 0x5247_4220: space = .rgb  // 'RGB '
        case 0x4752_4159: space = .grey // 'GRAY'
        default: space = .otherSpace
        }
        switch pcsSignature {
        case 0x5859_5A20: pcs = .xyz // 'XYZ '
        case 0x4C61_6220: pcs = .lab // 'Lab '
        default: return nil
        }
        guard let count = reader.u32(128), Int(count) <= (end - 132) / 12 else { return nil }
        var tags: [UInt32: (offset: Int, size: Int)] = [:]
        for i in 0..<Int(count) {
            let entry = 132 + i * 12
            guard let signature = reader.u32(entry), let offset = reader.u32(entry + 4),
                  let size = reader.u32(entry + 8)
            else { return nil }
            let start = Int(offset), length = Int(size)
            guard start >= 128, length <= end, start <= end - length else { return nil }
            tags[signature] = (start, length)
        }
        self.tags = tags
    }

    var hasLookupTables: Bool { Self.lookupTags.contains { tags[$0] != nil } }

    func hasAny(_ wanted: [Tag]) -> Bool { wanted.contains { tags[$0.rawValue] != nil } }

    /// An XYZType tag's first value; nil when absent or malformed.
    func xyz(_ tag: Tag) -> ColourProfile.XYZ? {
        guard let entry = tags[tag.rawValue], entry.size >= 20 else { return nil }
        let offset = entry.offset
        let reader = ByteReader(bytes: bytes)
        guard reader.u32(offset) == 0x5859_5A20, // 'XYZ '
              let x = reader.s15Fixed16(offset + 8), let y = reader.s15Fixed16(offset + 12),
              let z = reader.s15Fixed16(offset + 16)
        else { return nil }
        return ColourProfile.XYZ(x: x, y: y, z: z)
    }

    /// A curveType or parametricCurveType tag; nil when absent or malformed.
    func curve(_ tag: Tag) -> ToneCurve? {
        guard let entry = tags[tag.rawValue], entry.size >= 12 else { return nil }
        let offset = entry.offset, size = entry.size
        let reader = ByteReader(bytes: bytes)
        switch reader.u32(offset) {
        case 0x6375_7276: // 'curv'
            guard let n = reader.u32(offset + 8), Int(n) <= (size - 12) / 2 else { return nil }
            let count = Int(n)
            if count == 0 { return ToneCurve(offset: offset, kind: .gamma(1)) }
            if count == 1 {
                guard let g = reader.u16(offset + 12) else { return nil }
                return ToneCurve(offset: offset, kind: .gamma(Double(g) / 256))
            }
            // Read in place: `count` entries were bounds-checked above.
            let table = UnsafeRawBufferPointer(rebasing: bytes[(offset + 12)..<(offset + 12 + 2 * count)])
            return ToneCurve(offset: offset, kind: .table(table))
        case 0x7061_7261: // 'para'
            guard let function = reader.u16(offset + 8), function <= 4 else { return nil }
            let counts = [1, 3, 4, 5, 7]
            let n = counts[Int(function)]
            guard size >= 12 + 4 * n else { return nil }
            var parameters: [Double] = []
            for i in 0..<n {
                guard let p = reader.s15Fixed16(offset + 12 + 4 * i) else { return nil }
                parameters.append(p)
            }
            return ToneCurve(offset: offset, kind: .parametric(Int(function), parameters))
        default:
            return nil
        }
    }
}

/// One tone reproduction curve of a profile (may point into its bytes).
struct ToneCurve {
    enum Kind {
        case gamma(Double)
        /// Big-endian UInt16 entries (at least two), in the profile's bytes.
        case table(UnsafeRawBufferPointer)
        /// ICC parametric function type 0-4 and its parameters g, a, b, c, d, e, f.
        case parametric(Int, [Double])
    }

    /// Where the tag's data starts: curves shared by several tags are
    /// checked once.
    let offset: Int
    let kind: Kind

    /// Maximum distance from the sRGB curve, in 8-bit levels, of a curve
    /// that counts as sRGB: re-encoding its output with sRGB gives back
    /// every input level within half a level.
    static let tolerance = 0.5

    /// The curve at `x` in 0...1 (output clamped to 0...1; NaN stays NaN).
    func value(at x: Double) -> Double {
        let y: Double
        switch kind {
        case .gamma(let g):
            y = pow(x, g)
        case .table(let table):
            let count = table.count / 2
            func entry(_ i: Int) -> Double { Double(UInt16(table[2 * i]) << 8 | UInt16(table[2 * i + 1])) / 65535 }
            let position = x * Double(count - 1)
            let i = min(Int(position), count - 2)
            let t = position - Double(i)
            y = entry(i) + (entry(i + 1) - entry(i)) * t
        case .parametric(let function, let p):
            let g = p[0]
            switch function {
            case 0:
                y = pow(x, g)
            case 1:
                y = x >= -p[2] / p[1] ? pow(p[1] * x + p[2], g) : 0
            case 2:
                y = x >= -p[2] / p[1] ? pow(p[1] * x + p[2], g) + p[3] : p[3]
            case 3:
                y = x >= p[4] ? pow(p[1] * x + p[2], g) : p[3] * x
            default:
                y = x >= p[4] ? pow(p[1] * x + p[2], g) + p[5] : p[3] * x + p[6]
            }
        }
        return y.isNaN ? y : min(max(y, 0), 1)
    }

    var isSRGB: Bool {
        let bounds = Self.sRGBLevelBounds
        for level in 0...255 {
            let linear = value(at: Double(level) / 255)
            // Written so that NaN fails.
            guard linear >= bounds[level].low, linear <= bounds[level].high else { return false }
        }
        return true
    }

    /// For each 8-bit level, the linear values that sRGB encodes back to
    /// within `tolerance` of it (no pow per check: tables cost microseconds).
    private static let sRGBLevelBounds: [(low: Double, high: Double)] = (0...255).map { level in
        let low = (Double(level) - tolerance) / 255, high = (Double(level) + tolerance) / 255
        return (low <= 0 ? low / 12.92 : ColourProfile.sRGBDecode(low), ColourProfile.sRGBDecode(high))
    }
}

/// Big-endian reads that return nil outside the buffer.
private struct ByteReader {
    let bytes: UnsafeRawBufferPointer

    func u32(_ at: Int) -> UInt32? {
        guard at >= 0, at <= bytes.count - 4 else { return nil }
        return UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }

    func u16(_ at: Int) -> UInt16? {
        guard at >= 0, at <= bytes.count - 2 else { return nil }
        return UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1])
    }

    func s15Fixed16(_ at: Int) -> Double? {
        guard let raw = u32(at) else { return nil }
        return Double(Int32(bitPattern: raw)) / 65536
    }
}
