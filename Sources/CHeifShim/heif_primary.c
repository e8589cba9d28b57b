// The primary image of a HEIF file, decoded for a thumbnail larger than
// its embedded one (see shim_heif_decode_primary_reduced in CHeifShim.h).
//
// libheif 1.15 converts every coded image it decodes to planar RGB (a
// grid's tiles are pasted into full-size R, G and B planes), and only then
// into what the caller asked for. So the planes are asked for as they are:
// no second conversion (asking for 4:2:0 made libheif convert the RGB back,
// and thumbs convert it forward again), no full-size interleaved copy. Each
// plane is resized on its own by resample.c's Lanczos3 (the weights, and so
// the pixels, of an interleaved resize of the same image), and the small
// planes are interleaved last. A picture stored turned (irot, as a phone
// held upright stores it) is decoded as stored and turned as it is
// interleaved: libheif would turn the full-size planes into a second copy.
//
// The HEVC images (a grid's tiles) are decoded by FFmpeg's libavcodec
// through a decoder plugin on this decode's context (heif_hevc_ffmpeg.c)
// when asked, and by libde265 again when that decode fails: libavcodec
// takes about a third of libde265's time on a phone's tiles.
#include "CHeifShim.h"
#include "heif_hevc_ffmpeg.h"
#include "heif_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Plane `channel` of `image` resized to out_w × out_h into `out`; 0, or -1
 * without memory. A plane whose rows are padded is packed first (resample.c
 * takes packed rows; libheif pads rows to 16 bytes, so a 4032 or 3024 px
 * photo needs no copy). */
static int resize_plane(const struct heif_image *image, enum heif_channel channel, int w, int h,
                        uint8_t *out, int out_w, int out_h) {
    int stride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(image, channel, &stride);
    if (!plane || stride < w)
        return -1;
    uint8_t *packed = NULL;
    if (stride != w) {
        packed = malloc((size_t) w * (size_t) h);
        if (!packed)
            return -1;
        for (int y = 0; y < h; y++)
            memcpy(packed + (size_t) y * (size_t) w, plane + (size_t) y * (size_t) stride, (size_t) w);
        plane = packed;
    }
    int status = shim_resample_u8(plane, w, h, 1, out, out_w, out_h);
    free(packed);
    return status;
}

/* One plane's resize_plane, to run on a thread of its own. */
typedef struct {
    const struct heif_image *image;
    enum heif_channel channel;
    int w, h;
    uint8_t *out;
    int out_w, out_h;
    int status;
} plane_resize;

static gpointer run_plane_resize(gpointer data) {
    plane_resize *job = data;
    job->status = resize_plane(job->image, job->channel, job->w, job->h, job->out, job->out_w, job->out_h);
    return NULL;
}

/* Planes `r`, `g`, `b` (w × h, as stored) interleaved into `out` turned
 * `angle` degrees counter-clockwise (90, 180 or 270), as libheif turns an
 * image by its irot property: h × w for 90 and 270. */
static void interleave_turned(const uint8_t *r, const uint8_t *g, const uint8_t *b, int w, int h, int angle,
                              uint8_t *out) {
    int out_w = angle == 180 ? w : h, out_h = angle == 180 ? h : w;
    for (int y = 0; y < out_h; y++) {
        for (int x = 0; x < out_w; x++) {
            /* The stored pixel that lands at (x, y). 90° counter-clockwise:
             * the top-right corner goes to the top left. */
            int sx, sy;
            if (angle == 90) {
                sx = w - 1 - y;
                sy = x;
            } else if (angle == 270) {
                sx = y;
                sy = h - 1 - x;
            } else {
                sx = w - 1 - x;
                sy = h - 1 - y;
            }
            size_t from = (size_t) sy * (size_t) w + (size_t) sx, to = 3 * ((size_t) y * (size_t) out_w + (size_t) x);
            out[to] = r[from];
            out[to + 1] = g[from];
            out[to + 2] = b[from];
        }
    }
}

/* What decode_primary_reduced returns when libheif's decode failed: with
 * FFmpeg's plugin, libde265 then has its turn. */
#define DECODE_FAILED (-3)

/* shim_heif_decode_primary_reduced with the HEVC decoder `hevc_decoder`
 * names, without the retry; DECODE_FAILED instead of -1 when libheif's
 * decode failed. */
static int decode_primary_reduced(shim_heif_input *input, int target_width, int target_height, int threads,
                                  int hevc_decoder, shim_jpeg_pixels *out, char *error, size_t error_len) {
    struct heif_context *ctx;
    struct heif_image_handle *primary;
    if (heif_open_for_decode(input, threads, out, &ctx, &primary, error, error_len) != 0)
        return -1;
    if (hevc_decoder != SHIM_HEIF_HEVC_LIBDE265)
        heif_use_ffmpeg_hevc(ctx, hevc_decoder == SHIM_HEIF_HEVC_FFMPEG_FAILING);
    /* An image that is one HEVC picture is decoded on this thread: it gets
     * the decode's threads (a grid's tiles have them already). */
    heif_ffmpeg_picture_threads(threads);
    int status = -2;
    struct heif_image *image = NULL;
    uint8_t *planes = NULL;
    if (heif_image_handle_has_alpha_channel(primary) || heif_image_handle_get_luma_bits_per_pixel(primary) != 8 ||
        heif_image_handle_get_chroma_bits_per_pixel(primary) != 8)
        goto done;
    /* A photo that is only turned (irot: a phone held upright) is decoded
     * as stored, and the small picture is turned at the end: libheif 1.15
     * would turn the full-size planes into a second full-size copy, pixel
     * by pixel on this thread (36 MB more, and about 70 ms, for 12 MP). */
    int angle = heif_primary_rotation(input);
    struct heif_decoding_options *options = angle > 0 ? heif_decoding_options_alloc() : NULL;
    if (options)
        options->ignore_transformations = 1;
    else if (angle > 0)
        angle = -1;
    int turned = options && (angle == 90 || angle == 270);
    struct heif_error err = heif_decode_image(primary, &image, heif_colorspace_RGB, heif_chroma_444, options);
    heif_decoding_options_free(options);
    if (err.code != heif_error_Ok || !image) {
        heif_say(error, error_len, "cannot decode the HEIF image", err);
        status = DECODE_FAILED;
        goto done;
    }
    const enum heif_channel channels[3] = {heif_channel_R, heif_channel_G, heif_channel_B};
    int w = heif_image_get_width(image, heif_channel_R), h = heif_image_get_height(image, heif_channel_R);
    if (w <= 0 || h <= 0)
        goto done;
    for (int c = 0; c < 3; c++) {
        if (heif_image_get_width(image, channels[c]) != w || heif_image_get_height(image, channels[c]) != h ||
            heif_image_get_bits_per_pixel_range(image, channels[c]) != 8)
            goto done;
    }
    /* The target (as displayed: turned back to the stored picture's sides
     * when it is turned by 90° or 270°), unless it is not smaller both
     * ways: then the decoded size. */
    if (turned) {
        int swap = target_width;
        target_width = target_height;
        target_height = swap;
    }
    int ow = w, oh = h;
    if (target_width > 0 && target_height > 0 && target_width <= w && target_height <= h) {
        ow = target_width;
        oh = target_height;
    }
    size_t area = (size_t) ow * (size_t) oh;
    planes = malloc(area * 3);
    if (!planes) {
        if (error && error_len)
            snprintf(error, error_len, "out of memory for a %dx%d image", ow, oh);
        status = -1;
        goto done;
    }
    /* With two threads or more, the first plane is resized on a thread of
     * its own beside the other two: the decode's tiles ran on as many, and
     * the resize would otherwise be the one part of it on one core. */
    plane_resize jobs[3];
    for (int c = 0; c < 3; c++)
        jobs[c] = (plane_resize) {image, channels[c], w, h, planes + area * (size_t) c, ow, oh, -1};
    GThread *helper = threads > 1 ? g_thread_try_new("heif-resize", run_plane_resize, &jobs[0], NULL) : NULL;
    for (int c = helper ? 1 : 0; c < 3; c++)
        run_plane_resize(&jobs[c]);
    if (helper)
        g_thread_join(helper);
    for (int c = 0; c < 3; c++) {
        if (jobs[c].status != 0) {
            if (error && error_len)
                snprintf(error, error_len, "cannot resize the %dx%d HEIF image to %dx%d", w, h, ow, oh);
            status = -1;
            goto done;
        }
    }
    /* The full-size planes go before the interleaved copy is made. */
    heif_image_release(image);
    image = NULL;
    unsigned char *pixels = malloc(area * 3);
    if (!pixels) {
        if (error && error_len)
            snprintf(error, error_len, "out of memory for a %dx%d image", ow, oh);
        status = -1;
        goto done;
    }
    const uint8_t *r = planes, *g = planes + area, *b = planes + 2 * area;
    if (angle <= 0) {
        for (size_t i = 0; i < area; i++) {
            pixels[3 * i] = r[i];
            pixels[3 * i + 1] = g[i];
            pixels[3 * i + 2] = b[i];
        }
    } else {
        interleave_turned(r, g, b, ow, oh, angle, pixels);
        if (turned) {
            int swap = ow;
            ow = oh;
            oh = swap;
        }
    }
    size_t icc_length = 0;
    unsigned char *icc = heif_raw_icc(primary, &icc_length);
    if (!icc)
        icc = heif_nclx_icc(primary, &icc_length);
    heif_fill_pixels(out, pixels, ow, oh, 3, icc, icc_length);
    status = 0;
done:
    heif_ffmpeg_picture_threads(1);
    free(planes);
    if (image)
        heif_image_release(image);
    heif_image_handle_release(primary);
    heif_context_free(ctx);
    return status;
}

int shim_heif_decode_primary_reduced(shim_heif_input *input, int target_width, int target_height, int threads,
                                     int hevc_decoder, shim_jpeg_pixels *out, char *error, size_t error_len) {
    int status = DECODE_FAILED;
    if (hevc_decoder != SHIM_HEIF_HEVC_LIBDE265)
        status = decode_primary_reduced(input, target_width, target_height, threads, hevc_decoder, out, error, error_len);
    if (status == DECODE_FAILED)
        status = decode_primary_reduced(input, target_width, target_height, threads, SHIM_HEIF_HEVC_LIBDE265, out, error,
                                        error_len);
    return status == DECODE_FAILED ? -1 : status;
}
