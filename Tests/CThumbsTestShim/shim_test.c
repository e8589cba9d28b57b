#include "CThumbsTestShim.h"
/* A private header of CVipsShim (not in its include/): the parser itself. */
#include "../../Sources/CVipsShim/jpeg_exif.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int shim_save_file(VipsImage *in, const char *path_and_options) {
    return vips_image_write_to_file(in, path_and_options, NULL);
}

int test_vips_autorot(VipsImage *in, VipsImage **out) {
    return vips_autorot(in, out, NULL);
}

int shim_open_file(const char *path, VipsImage **out) {
    *out = vips_image_new_from_file(path, "access", VIPS_ACCESS_RANDOM, NULL);
    return *out ? 0 : -1;
}

int shim_image_avg(VipsImage *in, double *out) {
    return vips_avg(in, out, NULL);
}

int shim_jpeg_direct_decode(const void *buf, size_t len, int shrink,
                            size_t max_bytes, shim_jpeg_pixels *out) {
    /* Every path that can take the scale, in the pipeline's order, so that
     * the untrusted bytes meet each of the parsers. */
    if (shrink == 8 && shim_jpeg_direct_decode_path(buf, len, SHIM_JPEG_PATH_DC, shrink, 0, 0, max_bytes, out) == 0)
        return 0;
    if (shrink != 8 && shim_jpeg_direct_decode_path(buf, len, SHIM_JPEG_PATH_COMPACT, shrink, 0, 0, max_bytes, out) == 0)
        return 0;
    return shim_jpeg_direct_decode_path(buf, len, SHIM_JPEG_PATH_LIBJPEG, shrink, 0, 0, max_bytes, out);
}

int test_exif_orientation_guarded(const unsigned char *payload, size_t length) {
    size_t page = (size_t) sysconf(_SC_PAGESIZE);
    size_t data_pages = (length + page - 1) / page;
    if (data_pages == 0)
        data_pages = 1;
    size_t total = (data_pages + 1) * page;
    unsigned char *map = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED)
        return -1;
    unsigned char *guard = map + data_pages * page;
    if (mprotect(guard, page, PROT_NONE) != 0) {
        munmap(map, total);
        return -1;
    }
    unsigned char *copy = guard - length;
    if (length)
        memcpy(copy, payload, length);
    int orientation = jpeg_exif_orientation(copy, length);
    munmap(map, total);
    return orientation;
}

/* ---- HEIC files for the tests (libheif's own encoder) ---- */
#include <libheif/heif.h>

static struct heif_image *heif_rgb_image(const unsigned char *rgb, int width, int height, int nclx_p3) {
    struct heif_image *image = NULL;
    if (heif_image_create(width, height, heif_colorspace_RGB, heif_chroma_interleaved_RGB, &image).code != heif_error_Ok)
        return NULL;
    if (heif_image_add_plane(image, heif_channel_interleaved, width, height, 8).code != heif_error_Ok) {
        heif_image_release(image);
        return NULL;
    }
    int stride = 0;
    uint8_t *plane = heif_image_get_plane(image, heif_channel_interleaved, &stride);
    for (int y = 0; y < height; y++)
        memcpy(plane + (size_t) stride * y, rgb + (size_t) width * 3 * y, (size_t) width * 3);
    if (nclx_p3) {
        struct heif_color_profile_nclx *nclx = heif_nclx_color_profile_alloc();
        nclx->color_primaries = heif_color_primaries_SMPTE_EG_432_1;
        nclx->transfer_characteristics = heif_transfer_characteristic_IEC_61966_2_1;
        nclx->matrix_coefficients = heif_matrix_coefficients_ITU_R_BT_601_6;
        nclx->full_range_flag = 1;
        heif_image_set_nclx_color_profile(image, nclx);
        heif_nclx_color_profile_free(nclx);
    }
    return image;
}

int test_write_heic(const char *path, const unsigned char *rgb, int width, int height, int orientation,
                    const unsigned char *thumb_rgb, int thumb_width, int thumb_height, int thumb_orientation,
                    int nclx_p3) {
    int status = -1;
    struct heif_context *ctx = heif_context_alloc();
    struct heif_encoder *encoder = NULL;
    struct heif_image *image = NULL, *thumb = NULL;
    struct heif_image_handle *handle = NULL, *thumb_handle = NULL;
    struct heif_encoding_options *options = heif_encoding_options_alloc();
    struct heif_color_profile_nclx *nclx = NULL;
    if (!ctx || !options)
        goto done;
    if (heif_context_get_encoder_for_format(ctx, heif_compression_HEVC, &encoder).code != heif_error_Ok)
        goto done;
    heif_encoder_set_lossy_quality(encoder, 90);
    if (!(image = heif_rgb_image(rgb, width, height, nclx_p3)))
        goto done;
    if (nclx_p3) {
        /* libheif 1.15 writes an nclx box only when the options name it
         * and its macOS workaround (no nclx box at all) is off. */
        nclx = heif_nclx_color_profile_alloc();
        nclx->color_primaries = heif_color_primaries_SMPTE_EG_432_1;
        nclx->transfer_characteristics = heif_transfer_characteristic_IEC_61966_2_1;
        nclx->matrix_coefficients = heif_matrix_coefficients_ITU_R_BT_601_6;
        nclx->full_range_flag = 1;
        options->output_nclx_profile = nclx;
        options->macOS_compatibility_workaround_no_nclx_profile = 0;
    }
    options->image_orientation = (enum heif_orientation) orientation;
    if (heif_context_encode_image(ctx, image, encoder, options, &handle).code != heif_error_Ok)
        goto done;
    if (thumb_rgb) {
        if (!(thumb = heif_rgb_image(thumb_rgb, thumb_width, thumb_height, nclx_p3)))
            goto done;
        options->image_orientation = (enum heif_orientation) thumb_orientation;
        if (heif_context_encode_image(ctx, thumb, encoder, options, &thumb_handle).code != heif_error_Ok)
            goto done;
        /* libheif 1.15 (Debian bookworm) makes its second argument the
         * thumbnail of its third, whatever heif.h says; the tests check the
         * primary image's size, so a libheif that follows heif.h shows. */
        if (heif_context_assign_thumbnail(ctx, thumb_handle, handle).code != heif_error_Ok)
            goto done;
    }
    if (heif_context_set_primary_image(ctx, handle).code != heif_error_Ok)
        goto done;
    if (heif_context_write_to_file(ctx, path).code == heif_error_Ok)
        status = 0;
done:
    if (thumb_handle) heif_image_handle_release(thumb_handle);
    if (handle) heif_image_handle_release(handle);
    if (thumb) heif_image_release(thumb);
    if (image) heif_image_release(image);
    if (encoder) heif_encoder_release(encoder);
    if (options) heif_encoding_options_free(options);
    if (nclx) heif_nclx_color_profile_free(nclx);
    if (ctx) heif_context_free(ctx);
    return status;
}

/* A 10-bit R'G'B' image (`rgb10`: 3 values 0…1023 a pixel) tagged by an nclx
 * box with `primaries`, `transfer` and BT.2020 non-constant matrix. */
static struct heif_image *heif_rgb10_image(const uint16_t *rgb10, int width, int height, int primaries,
                                           int transfer) {
    struct heif_image *image = NULL;
    if (heif_image_create(width, height, heif_colorspace_RGB, heif_chroma_interleaved_RRGGBB_LE, &image).code !=
        heif_error_Ok)
        return NULL;
    if (heif_image_add_plane(image, heif_channel_interleaved, width, height, 10).code != heif_error_Ok) {
        heif_image_release(image);
        return NULL;
    }
    int stride = 0;
    uint8_t *plane = heif_image_get_plane(image, heif_channel_interleaved, &stride);
    for (int y = 0; y < height; y++)
        memcpy(plane + (size_t) stride * y, rgb10 + (size_t) width * 3 * y, (size_t) width * 6);
    struct heif_color_profile_nclx *nclx = heif_nclx_color_profile_alloc();
    nclx->color_primaries = (enum heif_color_primaries) primaries;
    nclx->transfer_characteristics = (enum heif_transfer_characteristics) transfer;
    nclx->matrix_coefficients = heif_matrix_coefficients_ITU_R_BT_2020_2_non_constant_luminance;
    nclx->full_range_flag = 1;
    heif_image_set_nclx_color_profile(image, nclx);
    heif_nclx_color_profile_free(nclx);
    return image;
}

int test_write_hdr_heif(const char *path, const uint16_t *rgb10, int width, int height, int primaries,
                        int transfer, int avif, const uint16_t *thumb_rgb10, int thumb_width, int thumb_height) {
    int status = -1;
    struct heif_context *ctx = heif_context_alloc();
    struct heif_encoder *encoder = NULL;
    struct heif_image *image = NULL, *thumb = NULL;
    struct heif_image_handle *handle = NULL, *thumb_handle = NULL;
    struct heif_encoding_options *options = heif_encoding_options_alloc();
    struct heif_color_profile_nclx *nclx = heif_nclx_color_profile_alloc();
    if (!ctx || !options || !nclx)
        goto done;
    if (heif_context_get_encoder_for_format(ctx, avif ? heif_compression_AV1 : heif_compression_HEVC, &encoder).code !=
        heif_error_Ok)
        goto done;
    heif_encoder_set_lossy_quality(encoder, 95);
    if (!avif)
        heif_encoder_set_parameter(encoder, "chroma", "444");
    if (!(image = heif_rgb10_image(rgb10, width, height, primaries, transfer)))
        goto done;
    nclx->color_primaries = (enum heif_color_primaries) primaries;
    nclx->transfer_characteristics = (enum heif_transfer_characteristics) transfer;
    nclx->matrix_coefficients = heif_matrix_coefficients_ITU_R_BT_2020_2_non_constant_luminance;
    nclx->full_range_flag = 1;
    options->output_nclx_profile = nclx;
    options->macOS_compatibility_workaround_no_nclx_profile = 0;
    if (heif_context_encode_image(ctx, image, encoder, options, &handle).code != heif_error_Ok)
        goto done;
    if (thumb_rgb10) {
        if (!(thumb = heif_rgb10_image(thumb_rgb10, thumb_width, thumb_height, primaries, transfer)))
            goto done;
        if (heif_context_encode_image(ctx, thumb, encoder, options, &thumb_handle).code != heif_error_Ok)
            goto done;
        /* libheif 1.15's argument order: see test_write_heic. */
        if (heif_context_assign_thumbnail(ctx, thumb_handle, handle).code != heif_error_Ok)
            goto done;
    }
    if (heif_context_set_primary_image(ctx, handle).code != heif_error_Ok)
        goto done;
    if (heif_context_write_to_file(ctx, path).code == heif_error_Ok)
        status = 0;
done:
    if (thumb_handle) heif_image_handle_release(thumb_handle);
    if (handle) heif_image_handle_release(handle);
    if (thumb) heif_image_release(thumb);
    if (image) heif_image_release(image);
    if (encoder) heif_encoder_release(encoder);
    if (options) heif_encoding_options_free(options);
    if (nclx) heif_nclx_color_profile_free(nclx);
    if (ctx) heif_context_free(ctx);
    return status;
}
