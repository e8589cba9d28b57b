import CVips
import CVipsShim

/// Any pixels (CMYK, grey, 16-bit, ICC-tagged, Lab…) to 8-bit sRGB.
///
/// PRODUCT.md promises that colour is converted to sRGB. Every embedded
/// profile lcms2 can make a transform from is applied. One that cannot be
/// used (lcms2 cannot read it, or makes no transform to sRGB from it) loses
/// no picture, so it does not fail the item: its pixels are taken as sRGB,
/// as browsers and libvips take them, and the item carries a warning that
/// says so (`warnings` in the manifest). `--fail-on` is about the pixel
/// data only. A profile that does not fit the pixels (an RGB profile on a
/// grey image, common in the wild) is ignored without a warning, as libvips
/// and browsers ignore it.
enum SRGBConversion {
    /// The image in 8-bit sRGB, keeping an alpha channel if there is one;
    /// what was done in place of the ideal is added to `warnings` (once).
    /// A libvips call that fails means `failure` for the item.
    static func toSRGB8(
        _ input: VipsImageRef, failure: ImagingError.Meaning, warnings: inout [String]
    ) throws(ImagingError) -> VipsImageRef {
        do {
            let (image, warning) = try convert(input)
            if let warning, !warnings.contains(warning) { warnings.append(warning) }
            return image
        } catch let error as ImagingError {
            throw error
        } catch let error as VipsFailure {
            throw error.meaning(failure)
        } catch {
            // Nothing else is thrown by `convert`.
            throw .item(.encode("cannot convert the colours to sRGB: \(error)"))
        }
    }

    private static func convert(_ input: VipsImageRef) throws -> (VipsImageRef, String?) {
        var image = input
        var warning: String?
        let isCMYK = image.interpretation == VIPS_INTERPRETATION_CMYK
        if image.hasICCProfile, let damage = ColourProfile.damage(of: image) {
            warning = unusableProfile(damage)
            image = try withoutProfile(image)
        }
        let conversion: ColourProfile.Conversion = try isCMYK ? .notTaken : ColourProfile.toSRGB(image)
        switch conversion {
        case .converted(let fast):
            // sRGB profiles cost nothing; other 8-bit RGB and grey profiles
            // take a cached lcms2 transform (ColourProfile).
            image = fast
        case .unusable(let reason):
            warning = unusableProfile(reason)
            image = try withoutProfile(image)
        case .notTaken:
            if image.hasICCProfile || isCMYK {
                let tagged = image.hasICCProfile
                do throws(VipsFailure) {
                    image = try image.apply("icc_transform") { shim_icc_to_srgb($0, $1, isCMYK ? 1 : 0) }
                } catch {
                    // Converted below as if untagged (CMYK by formula).
                    warning = tagged ? unusableProfile("libvips cannot apply it") : cmykWithoutProfile
                    if tagged { image = try withoutProfile(image) }
                }
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
        return (image, warning)
    }

    /// The warning of an item whose embedded profile could not be used.
    static func unusableProfile(_ reason: String) -> String {
        "the embedded ICC colour profile is unusable (\(reason)): its colours were taken as sRGB"
    }

    static let cmykWithoutProfile = "libvips' CMYK profile could not be applied: the CMYK colours were converted by formula"

    /// A copy of `image` without its profile (the pixels are shared).
    private static func withoutProfile(_ image: VipsImageRef) throws(VipsFailure) -> VipsImageRef {
        let copy = try image.apply("copy") { shim_copy($0, $1) }
        vips_image_remove(copy.pointer, VIPS_META_ICC_NAME)
        return copy
    }
}
