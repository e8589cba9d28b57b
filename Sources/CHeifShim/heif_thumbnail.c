// HEIF thumbnails and nclx colour through libheif (see CHeifShim.h).
#include "CHeifShim.h"
#include "heif_internal.h"

#include <lcms2.h>
#include <libheif/heif.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libheif refuses images wider or taller than this before decoding; thumbs
 * checks --max-pixels itself on the sizes shim_heif_probe reports. */
#define MAXIMUM_SIDE 65535

void heif_say(char *error, size_t error_len, const char *what, struct heif_error err) {
    if (error && error_len)
        snprintf(error, error_len, "%s: %s", what, err.message ? err.message : "unknown libheif error");
}

int shim_heif_library_load(char *error, size_t error_len) { return heif_library_load(error, error_len); }

/* The context and primary image handle of `input` (libheif loaded first:
 * every decode starts here); 0, or -1 with a message. */
static int open_primary(shim_heif_input *input, struct heif_context **ctx_out,
                        struct heif_image_handle **primary_out, char *error, size_t error_len) {
    if (heif_library_load(error, error_len) != 0)
        return -1;
    struct heif_context *ctx = heif_context_alloc();
    if (!ctx) {
        if (error && error_len)
            snprintf(error, error_len, "libheif could not allocate a context");
        return -1;
    }
    heif_context_set_maximum_image_size_limit(ctx, MAXIMUM_SIDE);
    struct heif_error err = heif_read_input(ctx, input);
    if (err.code != heif_error_Ok) {
        heif_say(error, error_len, "cannot read the HEIF structure", err);
        heif_context_free(ctx);
        return -1;
    }
    struct heif_image_handle *primary = NULL;
    err = heif_context_get_primary_image_handle(ctx, &primary);
    if (err.code != heif_error_Ok || !primary) {
        heif_say(error, error_len, "no primary image", err);
        heif_context_free(ctx);
        return -1;
    }
    *ctx_out = ctx;
    *primary_out = primary;
    return 0;
}

int shim_heif_probe(shim_heif_input *input, shim_heif_info *info, char *error, size_t error_len) {
    memset(info, 0, sizeof *info);
    info->nclx_primaries = info->nclx_transfer = -1;
    struct heif_context *ctx;
    struct heif_image_handle *primary;
    if (open_primary(input, &ctx, &primary, error, error_len) != 0)
        return -1;
    info->width = heif_image_handle_get_width(primary);
    info->height = heif_image_handle_get_height(primary);
    info->has_alpha = heif_image_handle_has_alpha_channel(primary);
    info->luma_bits = heif_image_handle_get_luma_bits_per_pixel(primary);
    info->has_icc = heif_image_handle_get_raw_color_profile_size(primary) > 0;
    info->primary_grid = heif_primary_is_grid(input) == 1;
    struct heif_color_profile_nclx *nclx = NULL;
    if (heif_image_handle_get_nclx_color_profile(primary, &nclx).code == heif_error_Ok && nclx) {
        info->nclx_primaries = (int) nclx->color_primaries;
        info->nclx_transfer = (int) nclx->transfer_characteristics;
        heif_nclx_color_profile_free(nclx);
    }
    heif_item_id ids[SHIM_HEIF_MAX_THUMBNAILS];
    int count = heif_image_handle_get_list_of_thumbnail_IDs(primary, ids, SHIM_HEIF_MAX_THUMBNAILS);
    for (int i = 0; i < count && i < SHIM_HEIF_MAX_THUMBNAILS; i++) {
        struct heif_image_handle *thumb = NULL;
        if (heif_image_handle_get_thumbnail(primary, ids[i], &thumb).code != heif_error_Ok || !thumb)
            continue;
        int slot = info->thumbnail_count++;
        info->thumbnail_width[slot] = heif_image_handle_get_width(thumb);
        info->thumbnail_height[slot] = heif_image_handle_get_height(thumb);
        heif_image_handle_release(thumb);
    }
    heif_image_handle_release(primary);
    heif_context_free(ctx);
    return 0;
}

/* The raw ICC profile of `handle`, malloc'd, or NULL. */
unsigned char *heif_raw_icc(const struct heif_image_handle *handle, size_t *length) {
    size_t size = heif_image_handle_get_raw_color_profile_size(handle);
    if (size == 0 || size > (64u << 20))
        return NULL;
    unsigned char *data = malloc(size);
    if (!data)
        return NULL;
    if (heif_image_handle_get_raw_color_profile(handle, data).code != heif_error_Ok) {
        free(data);
        return NULL;
    }
    *length = size;
    return data;
}

/* The inverse of a transfer function named by ITU-T H.273, as an lcms2
 * parametric curve (type 4: Y = ((aX + b)^g for X >= d, cX below). Curves
 * of HDR (PQ, HLG) are not parametric: they get the sRGB curve, which is
 * what a viewer without tone mapping shows. */
static cmsToneCurve *transfer_curve(int transfer) {
    switch (transfer) {
    case 8: { /* linear */
        cmsFloat64Number p[1] = {1.0};
        return cmsBuildParametricToneCurve(NULL, 1, p);
    }
    case 4: { /* gamma 2.2 */
        cmsFloat64Number p[1] = {2.2};
        return cmsBuildParametricToneCurve(NULL, 1, p);
    }
    case 5: { /* gamma 2.8 */
        cmsFloat64Number p[1] = {2.8};
        return cmsBuildParametricToneCurve(NULL, 1, p);
    }
    case 1: case 6: case 14: case 15: { /* BT.709 / BT.601 / BT.2020 */
        cmsFloat64Number p[5] = {1.0 / 0.45, 1.0 / 1.099, 0.099 / 1.099, 1.0 / 4.5, 0.081};
        return cmsBuildParametricToneCurve(NULL, 4, p);
    }
    default: { /* 13 sRGB, and everything else */
        cmsFloat64Number p[5] = {2.4, 1.0 / 1.055, 0.055 / 1.055, 1.0 / 12.92, 0.04045};
        return cmsBuildParametricToneCurve(NULL, 4, p);
    }
    }
}

/* An RGB ICC profile for nclx `primaries` (chromaticities as libheif decoded
 * them) and `transfer`, malloc'd; NULL when plain sRGB needs none. */
static unsigned char *profile_for_nclx(const struct heif_color_profile_nclx *nclx, size_t *length) {
    int primaries = (int) nclx->color_primaries;
    /* BT.709 primaries (sRGB's) or unspecified: sRGB, which is what an
     * untagged image is taken to be. */
    if (primaries == 1 || primaries == 2 || primaries == 0)
        return NULL;
    if (nclx->color_primary_white_x <= 0 || nclx->color_primary_white_y <= 0)
        return NULL;
    cmsCIExyY white = {nclx->color_primary_white_x, nclx->color_primary_white_y, 1.0};
    cmsCIExyYTRIPLE rgb = {
        {nclx->color_primary_red_x, nclx->color_primary_red_y, 1.0},
        {nclx->color_primary_green_x, nclx->color_primary_green_y, 1.0},
        {nclx->color_primary_blue_x, nclx->color_primary_blue_y, 1.0},
    };
    cmsToneCurve *curve = transfer_curve((int) nclx->transfer_characteristics);
    if (!curve)
        return NULL;
    cmsToneCurve *curves[3] = {curve, curve, curve};
    cmsHPROFILE profile = cmsCreateRGBProfile(&white, &rgb, curves);
    cmsFreeToneCurve(curve);
    if (!profile)
        return NULL;
    cmsUInt32Number size = 0;
    unsigned char *data = NULL;
    if (cmsSaveProfileToMem(profile, NULL, &size) && size > 0 && (data = malloc(size))) {
        if (!cmsSaveProfileToMem(profile, data, &size)) {
            free(data);
            data = NULL;
        }
    }
    cmsCloseProfile(profile);
    if (data)
        *length = size;
    return data;
}

/* The nclx-made profile of `handle`, or NULL. */
unsigned char *heif_nclx_icc(const struct heif_image_handle *handle, size_t *length) {
    struct heif_color_profile_nclx *nclx = NULL;
    if (heif_image_handle_get_nclx_color_profile(handle, &nclx).code != heif_error_Ok || !nclx)
        return NULL;
    unsigned char *data = profile_for_nclx(nclx, length);
    heif_nclx_color_profile_free(nclx);
    return data;
}

int shim_heif_nclx_icc(shim_heif_input *input, unsigned char **icc, size_t *icc_length) {
    *icc = NULL;
    *icc_length = 0;
    struct heif_context *ctx;
    struct heif_image_handle *primary;
    if (open_primary(input, &ctx, &primary, NULL, 0) != 0)
        return -1;
    int made = 0;
    if (heif_image_handle_get_raw_color_profile_size(primary) == 0) {
        *icc = heif_nclx_icc(primary, icc_length);
        made = *icc != NULL;
    }
    heif_image_handle_release(primary);
    heif_context_free(ctx);
    return made;
}

/* open_primary for a decode: `out` emptied, libheif given `threads`. */
int heif_open_for_decode(shim_heif_input *input, int threads, shim_jpeg_pixels *out,
                           struct heif_context **ctx, struct heif_image_handle **primary,
                           char *error, size_t error_len) {
    memset(out, 0, sizeof *out);
    if (open_primary(input, ctx, primary, error, error_len) != 0)
        return -1;
    if (threads > 0)
        heif_context_set_max_decoding_threads(*ctx, threads);
    return 0;
}

/* Hands `pixels` (packed, `bands` of 8 bits) and `icc` to `out`. libheif
 * applied the image's own transformations: the pixels are upright. */
void heif_fill_pixels(shim_jpeg_pixels *out, unsigned char *pixels, int width, int height, int bands,
                        unsigned char *icc, size_t icc_length) {
    out->pixels = pixels;
    out->width = (size_t) width;
    out->height = (size_t) height;
    out->bands = bands;
    out->xres = out->yres = 1.0;
    out->orientation = 1;
    out->icc = icc;
    out->icc_length = icc ? icc_length : 0;
}

int heif_thumbnail_handle(const struct heif_image_handle *primary, int index, struct heif_image_handle **thumb,
                          char *error, size_t error_len) {
    heif_item_id ids[SHIM_HEIF_MAX_THUMBNAILS];
    int count = heif_image_handle_get_list_of_thumbnail_IDs(primary, ids, SHIM_HEIF_MAX_THUMBNAILS);
    if (index < 0 || index >= count) {
        if (error && error_len)
            snprintf(error, error_len, "the file has no thumbnail %d", index);
        return -1;
    }
    struct heif_error err = heif_image_handle_get_thumbnail(primary, ids[index], thumb);
    if (err.code != heif_error_Ok || !*thumb) {
        heif_say(error, error_len, "cannot open the thumbnail", err);
        return -1;
    }
    return 0;
}

int shim_heif_decode_thumbnail(shim_heif_input *input, int index, int threads, shim_jpeg_pixels *out,
                               char *error, size_t error_len) {
    struct heif_context *ctx;
    struct heif_image_handle *primary;
    if (heif_open_for_decode(input, threads, out, &ctx, &primary, error, error_len) != 0)
        return -1;
    int status = -1;
    struct heif_image_handle *thumb = NULL;
    struct heif_image *image = NULL;
    struct heif_decoding_options *options = NULL;
    if (heif_thumbnail_handle(primary, index, &thumb, error, error_len) != 0)
        goto done;
    int alpha = heif_image_handle_has_alpha_channel(thumb);
    options = heif_decoding_options_alloc();
    if (options)
        options->convert_hdr_to_8bit = 1;
    struct heif_error err = heif_decode_image(thumb, &image, heif_colorspace_RGB,
                            alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, options);
    if (err.code != heif_error_Ok || !image) {
        heif_say(error, error_len, "cannot decode the thumbnail", err);
        goto done;
    }
    int stride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
    int width = heif_image_get_width(image, heif_channel_interleaved);
    int height = heif_image_get_height(image, heif_channel_interleaved);
    int bands = alpha ? 4 : 3;
    if (!plane || width <= 0 || height <= 0 || stride < width * bands) {
        if (error && error_len)
            snprintf(error, error_len, "the decoded thumbnail has no usable pixels");
        goto done;
    }
    size_t row = (size_t) width * (size_t) bands;
    unsigned char *pixels = malloc(row * (size_t) height);
    if (!pixels) {
        if (error && error_len)
            snprintf(error, error_len, "out of memory for a %dx%d thumbnail", width, height);
        goto done;
    }
    for (int y = 0; y < height; y++)
        memcpy(pixels + row * (size_t) y, plane + (size_t) stride * (size_t) y, row);
    size_t icc_length = 0;
    unsigned char *icc = heif_raw_icc(thumb, &icc_length);
    if (!icc)
        icc = heif_raw_icc(primary, &icc_length);
    if (!icc)
        icc = heif_nclx_icc(thumb, &icc_length);
    if (!icc)
        icc = heif_nclx_icc(primary, &icc_length);
    heif_fill_pixels(out, pixels, width, height, bands, icc, icc_length);
    status = 0;
done:
    if (options)
        heif_decoding_options_free(options);
    if (image)
        heif_image_release(image);
    if (thumb)
        heif_image_handle_release(thumb);
    heif_image_handle_release(primary);
    heif_context_free(ctx);
    return status;
}

int heif_shrink_factor(int width, int height, int need_width, int need_height) {
    int shrink = 1;
    if (need_width > 0 && need_height > 0) {
        int sx = width / (2 * need_width), sy = height / (2 * need_height);
        shrink = sx < sy ? sx : sy;
        if (shrink < 1) shrink = 1;
    }
    return shrink;
}
