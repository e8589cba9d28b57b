import CVips
import CVipsShim

/// Any pixels (CMYK, grey, 16-bit, ICC-tagged, Lab…) to 8-bit sRGB.
///
/// PRODUCT.md promises that colour is always converted to sRGB. An embedded
/// profile that cannot be applied (lcms2 cannot read it, or cannot make a
/// transform from it) breaks that promise, so it is a failure under
/// `--fail-on error`, the default, like any other damage in the file, with
/// a message that names the way out. Under `--fail-on truncated` or `none`
/// the pixels are converted as if untagged, as browsers and libvips do with
/// a profile they cannot use. (The manifest has no field for a warning on
/// an item that succeeds, so nothing is said then: the option asked for it.)
/// A profile that does not fit the pixels (an RGB profile on a grey image,
/// common in the wild) is ignored, as libvips and browsers ignore it.
enum SRGBConversion {
    /// The image in 8-bit sRGB, keeping an alpha channel if there is one. A
    /// libvips call that fails means `failure` for the item, unless the
    /// colour profile is at fault.
    static func toSRGB8(_ input: VipsImageRef, failOn: FailOn, failure: ImagingError.Meaning) throws(ImagingError) -> VipsImageRef {
        do {
            return try convert(input, failOn: failOn)
        } catch let error as ImagingError {
            throw error
        } catch let error as VipsFailure {
            throw error.meaning(failure)
        } catch {
            // Nothing else is thrown by `convert`.
            throw .item(.encode("cannot convert the colours to sRGB: \(error)"))
        }
    }

    private static func convert(_ input: VipsImageRef, failOn: FailOn) throws -> VipsImageRef {
        var image = input
        let isCMYK = image.interpretation == VIPS_INTERPRETATION_CMYK
        if image.hasICCProfile, let damage = ColourProfile.damage(of: image) {
            guard failOn != .error else { throw ImagingError.item(unusableProfile(damage)) }
            image = try withoutProfile(image)
        }
        let conversion: ColourProfile.Conversion = try isCMYK ? .notTaken : ColourProfile.toSRGB(image)
        switch conversion {
        case .converted(let fast):
            // sRGB profiles cost nothing; other 8-bit RGB and grey profiles
            // take a cached lcms2 transform (ColourProfile).
            image = fast
        case .unusable(let reason):
            guard failOn != .error else { throw ImagingError.item(unusableProfile(reason)) }
            image = try withoutProfile(image)
        case .notTaken:
            if image.hasICCProfile || isCMYK {
                do throws(VipsFailure) {
                    image = try image.apply("icc_transform") { shim_icc_to_srgb($0, $1, isCMYK ? 1 : 0) }
                } catch {
                    if failOn == .error { throw error.meaning(.colourProfile) }
                    // Converted below as if untagged.
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
        return image
    }

    private static func unusableProfile(_ reason: String) -> ItemError {
        .decode("the embedded ICC colour profile is unusable (\(reason)), so the colours cannot be converted to sRGB; "
            + "--fail-on truncated converts them as if the image had no profile")
    }

    /// A copy of `image` without its profile (the pixels are shared).
    private static func withoutProfile(_ image: VipsImageRef) throws(VipsFailure) -> VipsImageRef {
        let copy = try image.apply("copy") { shim_copy($0, $1) }
        vips_image_remove(copy.pointer, VIPS_META_ICC_NAME)
        return copy
    }
}
