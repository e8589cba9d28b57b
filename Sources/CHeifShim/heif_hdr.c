// HDR stills: HEIF/HEIC/AVIF whose nclx box names PQ or HLG (see
// CHeifShim.h). libheif gives their R'G'B' signal (10 or 12 bits); it is
// box-shrunk as a signal to about twice the box, then tone-mapped to 8-bit
// sRGB by the tone mapping the video poster frames use (CVipsHDR.h).
// libvips 8.14's loader would hand the signal on as if it were sRGB: flat,
// grey and washed out.
#include "CHeifShim.h"
#include "CVipsHDR.h"
#include "heif_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* SHIM_HDR_PQ or SHIM_HDR_HLG for an H.273 transfer code, else 0. */
static int hdr_transfer(int transfer) {
    return transfer == 16 ? SHIM_HDR_PQ : transfer == 18 ? SHIM_HDR_HLG : 0;
}

/* The nclx box that describes `handle`'s pixels: its own, else the primary's. */
static struct heif_color_profile_nclx *nclx_of(const struct heif_image_handle *handle,
                                               const struct heif_image_handle *primary) {
    struct heif_color_profile_nclx *nclx = NULL;
    if (heif_image_handle_get_nclx_color_profile(handle, &nclx).code == heif_error_Ok && nclx)
        return nclx;
    if (handle != primary && heif_image_handle_get_nclx_color_profile(primary, &nclx).code == heif_error_Ok && nclx)
        return nclx;
    return NULL;
}

int shim_heif_hdr_transfer(int transfer) { return hdr_transfer(transfer); }

int shim_heif_decode_hdr(shim_heif_input *input, int index, int need_width, int need_height, int threads,
                         shim_jpeg_pixels *out, char *error, size_t error_len) {
    struct heif_context *ctx;
    struct heif_image_handle *primary;
    if (heif_open_for_decode(input, threads, out, &ctx, &primary, error, error_len) != 0)
        return -1;
    int status = -1;
    struct heif_image_handle *thumb = NULL, *handle = primary;
    struct heif_image *image = NULL;
    struct heif_color_profile_nclx *nclx = NULL;
    uint16_t *wide = NULL;
    if (index >= 0) {
        if (heif_thumbnail_handle(primary, index, &thumb, error, error_len) != 0)
            goto done;
        handle = thumb;
    }
    nclx = nclx_of(handle, primary);
    int transfer = nclx ? hdr_transfer((int) nclx->transfer_characteristics) : 0;
    if (!transfer) {
        status = -2;
        goto done;
    }
    int primaries = (int) nclx->color_primaries;
    /* 10 and 12 bits come as 16-bit words holding that many bits; an 8-bit
     * HDR image (rare) as bytes. */
    int deep = heif_image_handle_get_luma_bits_per_pixel(handle) > 8;
    struct heif_error err = heif_decode_image(handle, &image, heif_colorspace_RGB,
                                              deep ? heif_chroma_interleaved_RRGGBB_LE : heif_chroma_interleaved_RGB, NULL);
    if (err.code != heif_error_Ok || !image) {
        heif_say(error, error_len, "cannot decode the HEIF image", err);
        goto done;
    }
    int stride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
    int w = heif_image_get_width(image, heif_channel_interleaved);
    int h = heif_image_get_height(image, heif_channel_interleaved);
    int bits = heif_image_get_bits_per_pixel_range(image, heif_channel_interleaved);
    int sample = deep ? 2 : 1;
    if (!plane || w <= 0 || h <= 0 || bits < 8 || bits > 16 || stride < w * 3 * sample) {
        if (error && error_len)
            snprintf(error, error_len, "the decoded HDR image has no usable pixels");
        goto done;
    }
    int shrink = heif_shrink_factor(w, h, need_width, need_height);
    int ow = w / shrink, oh = h / shrink;
    if (ow < 1) ow = 1;
    if (oh < 1) oh = 1;
    size_t count = (size_t) ow * (size_t) oh;
    wide = malloc(count * 3 * sizeof(uint16_t));
    unsigned char *rgb = wide ? malloc(count * 3) : NULL;
    if (!rgb) {
        if (error && error_len)
            snprintf(error, error_len, "out of memory for a %dx%d image", ow, oh);
        goto done;
    }
    /* The box mean of each channel, as a 16-bit full-scale signal. */
    double scale = 65535.0 / (double) ((1 << bits) - 1) / (double) (shrink * shrink);
    for (int y = 0; y < oh; y++) {
        uint16_t *to = wide + (size_t) y * (size_t) ow * 3;
        for (int x = 0; x < ow; x++) {
            unsigned long sum[3] = {0, 0, 0};
            for (int dy = 0; dy < shrink; dy++) {
                const uint8_t *row = plane + (size_t) stride * (size_t) (y * shrink + dy);
                for (int dx = 0; dx < shrink; dx++) {
                    size_t at = (size_t) (x * shrink + dx) * 3;
                    for (int c = 0; c < 3; c++)
                        sum[c] += deep ? ((const uint16_t *) row)[at + c] : row[at + c];
                }
            }
            for (int c = 0; c < 3; c++) {
                double v = (double) sum[c] * scale + 0.5;
                to[3 * x + c] = v >= 65535 ? 65535 : (uint16_t) v;
            }
        }
    }
    shim_hdr_tonemap_rows(wide, rgb, count, transfer, primaries);
    /* sRGB now: no profile goes with it. */
    heif_fill_pixels(out, rgb, ow, oh, 3, NULL, 0);
    status = 0;
done:
    free(wide);
    if (nclx)
        heif_nclx_color_profile_free(nclx);
    if (image)
        heif_image_release(image);
    if (thumb)
        heif_image_handle_release(thumb);
    heif_image_handle_release(primary);
    heif_context_free(ctx);
    return status;
}
