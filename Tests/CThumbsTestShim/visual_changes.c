/* The changes `thumbs verify --against` must see (VisualRegressionTests):
 * libvips' own thumbnail, and a Display P3 copy of a photo with and without
 * its profile. */
#include "CThumbsTestShim.h"

#include <lcms2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vips/vips.h>

int test_write_rgb8(const char *path_and_options, const unsigned char *rgb, int width, int height) {
    VipsImage *image = vips_image_new_from_memory(rgb, (size_t)width * height * 3, width, height, 3, VIPS_FORMAT_UCHAR);
    if (!image)
        return -1;
    image->Type = VIPS_INTERPRETATION_sRGB;
    int failed = vips_image_write_to_file(image, path_and_options, NULL);
    g_object_unref(image);
    return failed ? -1 : 0;
}

int test_vips_thumbnail(const char *source, const char *path_and_options, int width, int height, int crop) {
    VipsImage *out = NULL;
    int failed = crop ? vips_thumbnail(source, &out, width, "height", height, "crop", VIPS_INTERESTING_CENTRE, NULL)
                      : vips_thumbnail(source, &out, width, "height", height, NULL);
    if (failed)
        return -1;
    failed = vips_image_write_to_file(out, path_and_options, NULL);
    g_object_unref(out);
    return failed ? -1 : 0;
}

int test_write_display_p3(const char *source, const char *path, int keep_profile) {
    /* Display P3: DCI-P3 primaries, D65 white, the sRGB transfer curve. */
    cmsCIExyY white = {0.3127, 0.3290, 1.0};
    cmsCIExyYTRIPLE primaries = {{0.680, 0.320, 1.0}, {0.265, 0.690, 1.0}, {0.150, 0.060, 1.0}};
    cmsFloat64Number srgb_curve[5] = {2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045};
    cmsToneCurve *curve = cmsBuildParametricToneCurve(NULL, 4, srgb_curve);
    cmsToneCurve *curves[3] = {curve, curve, curve};
    cmsHPROFILE p3 = cmsCreateRGBProfile(&white, &primaries, curves);
    cmsFreeToneCurve(curve);
    if (!p3)
        return -1;
    char icc_path[4096];
    snprintf(icc_path, sizeof icc_path, "%s.p3.icc", path);
    int saved = cmsSaveProfileToFile(p3, icc_path);
    cmsCloseProfile(p3);
    if (!saved)
        return -1;
    VipsImage *in = vips_image_new_from_file(source, NULL);
    if (!in)
        return -1;
    VipsImage *converted = NULL;
    int failed = vips_icc_transform(in, &converted, icc_path, "input_profile", "srgb", "embedded", FALSE,
                                    "intent", VIPS_INTENT_RELATIVE, NULL);
    g_object_unref(in);
    remove(icc_path);
    if (failed)
        return -1;
    char target[4200];
    snprintf(target, sizeof target, "%s[Q=95%s]", path, keep_profile ? "" : ",strip");
    failed = vips_image_write_to_file(converted, target, NULL);
    g_object_unref(converted);
    return failed ? -1 : 0;
}
