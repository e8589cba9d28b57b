/* Direct JPEG decoding through libjpeg(-turbo), for the common case only.
 *
 * libvips's JPEG loader feeds libjpeg through its own source manager, 4 KB at
 * a time. libjpeg-turbo decodes Huffman data on a fast path only while at
 * least 512 bytes per block of an MCU are buffered, so with 4 KB buffers
 * most MCUs of a photo take the slow path. Here the whole file is already in
 * memory: jpeg_mem_src gives libjpeg all of it at once, and the pixels are
 * decoded straight into one buffer that becomes a libvips memory image.
 * The markers are still parsed twice per image, by the probe (size and
 * orientation, to check limits and choose the shrink) and by the decode; that
 * costs microseconds against milliseconds of entropy decoding.
 *
 * Anything unusual is left to libvips: CMYK and YCCK, 12-bit data, any
 * libjpeg warning (corrupt or truncated data) but bytes after a picture
 * already whole (direct_warning_spares_picture), and decodes larger than the
 * caller's memory budget (the pixels, plus the whole image's coefficients
 * when libjpeg must buffer them: progressive files at 1/1, 1/2, 1/4, or when
 * the DC decode at 1/8 refuses them). The direct path gives up on any doubtful
 * data; the caller then takes the libvips path, which decides under fail_on
 * (--fail-on) and gives its own messages.
 */
#include "CVipsShim.h"
#include "CVipsResample.h"
#include "jpeg_dc.h"
#include "jpeg_exif.h"
#include "jpeg_prog.h"

#include <limits.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
} direct_error;

static void direct_error_exit(j_common_ptr cinfo) {
    direct_error *err = (direct_error *) cinfo->err;
    longjmp(err->jump, 1);
}

/* Whether a warning leaves the picture whole: bytes between the end of the
 * last scan's entropy data and the EOI (JWRN_EXTRANEOUS_DATA), met by
 * jpeg_finish_decompress after every row is out. Every MCU was decoded from
 * data before them, so the pixels are those of the file without them.
 * Some cameras write a preview so: a Minolta DiMAGE A1's maker-note preview
 * holds 2,703 such bytes, and refusing them cost that photo its preview and
 * a DC decode of the photo instead. The same warning earlier (a progressive
 * file reads all its scans before its first row) is still refused. */
static int direct_warning_spares_picture(j_common_ptr cinfo) {
    if (!cinfo->is_decompressor || cinfo->err->msg_code != JWRN_EXTRANEOUS_DATA)
        return 0;
    j_decompress_ptr d = (j_decompress_ptr) cinfo;
    return d->output_height > 0 && d->output_scanline >= d->output_height;
}

static void direct_emit_message(j_common_ptr cinfo, int level) {
    /* level < 0 is a warning: corrupt or truncated data. Give up and let
     * libvips decide (it may accept the file, fail it, or stop at
     * truncation, depending on --fail-on), unless the picture is whole
     * already. Trace messages are ignored. */
    if (level < 0 && !direct_warning_spares_picture(cinfo))
        direct_error_exit(cinfo);
}

static void direct_output_message(j_common_ptr cinfo) {
    (void) cinfo;
}

/* Whether libjpeg can give 8-bit RGB or grey for this file directly. */
static int direct_supported(j_decompress_ptr cinfo) {
    if (cinfo->data_precision != 8)
        return 0;
    if (cinfo->num_components == 1)
        return cinfo->jpeg_color_space == JCS_GRAYSCALE;
    if (cinfo->num_components == 3)
        return cinfo->jpeg_color_space == JCS_YCbCr || cinfo->jpeg_color_space == JCS_RGB;
    return 0;
}

static void direct_begin(j_decompress_ptr cinfo, direct_error *err,
                         const void *buf, size_t len) {
    cinfo->err = jpeg_std_error(&err->pub);
    err->pub.error_exit = direct_error_exit;
    err->pub.emit_message = direct_emit_message;
    err->pub.output_message = direct_output_message;
    jpeg_create_decompress(cinfo);
    jpeg_mem_src(cinfo, (const unsigned char *) buf, (unsigned long) len);
}

static int find_orientation(j_decompress_ptr cinfo) {
    for (jpeg_saved_marker_ptr m = cinfo->marker_list; m; m = m->next)
        if (m->marker == JPEG_APP0 + 1 && m->data_length >= 6 &&
            memcmp(m->data, "Exif\0\0", 6) == 0)
            return jpeg_exif_orientation(m->data, m->data_length);
    return 1;
}

/* What libjpeg's coefficient controller allocates when it buffers the whole
 * image (jdcoefct.c, jinit_d_coef_controller with a full buffer): one JBLOCK
 * (64 16-bit coefficients) per block, each component's blocks rounded up to
 * whole MCUs. It does so for progressive files and for sequential files
 * whose first scan lacks a component (jdinput.c, has_multiple_scans);
 * otherwise it decodes one MCU row at a time and this is 0. Valid after
 * jpeg_read_header (which sets width_in_blocks). */
static size_t coefficient_bytes(j_decompress_ptr cinfo) {
    if (!cinfo->progressive_mode && cinfo->comps_in_scan >= cinfo->num_components)
        return 0;
    size_t total = 0;
    for (int c = 0; c < cinfo->num_components; c++) {
        jpeg_component_info *comp = &cinfo->comp_info[c];
        size_t h = (size_t) comp->h_samp_factor, v = (size_t) comp->v_samp_factor;
        size_t bw = ((size_t) comp->width_in_blocks + h - 1) / h * h;
        size_t bh = ((size_t) comp->height_in_blocks + v - 1) / v * v;
        total += bw * bh * sizeof(JBLOCK);
    }
    return total;
}

int shim_jpeg_direct_probe(const void *buf, size_t len, shim_jpeg_header *header) {
    memset(header, 0, sizeof *header);
    if (!buf || len < 4 || len > (size_t) 0xFFFFFFFFu)
        return -1;
    const unsigned char *bytes = buf;
    if (bytes[0] != 0xFF || bytes[1] != 0xD8 || bytes[2] != 0xFF)
        return -1;

    struct jpeg_decompress_struct cinfo;
    direct_error err;
    volatile int result = -1;
    direct_begin(&cinfo, &err, buf, len);
    /* A libjpeg error or warning jumps back here with result still -1. */
    if (setjmp(err.jump) == 0) {
        jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xFFFF);
        if (jpeg_read_header(&cinfo, TRUE) == JPEG_HEADER_OK && direct_supported(&cinfo)) {
            header->width = (int) cinfo.image_width;
            header->height = (int) cinfo.image_height;
            header->orientation = find_orientation(&cinfo);
            header->progressive = cinfo.progressive_mode ? 1 : 0;
            header->components = cinfo.num_components;
            header->dc_capable = jpeg_dc_capable(&cinfo);
            header->coefficient_bytes = coefficient_bytes(&cinfo);
            if (cinfo.progressive_mode) {
                header->compact_bytes_half = jpeg_prog_peak_bytes(&cinfo, 2, 0, 0);
                header->compact_bytes_quarter = jpeg_prog_peak_bytes(&cinfo, 4, 0, 0);
                header->compact_bytes_full = jpeg_prog_peak_bytes(&cinfo, 1, 0, 0);
            }
            result = 0;
        }
    }
    jpeg_destroy_decompress(&cinfo);
    return result;
}

void shim_jpeg_pixels_free(shim_jpeg_pixels *decoded) {
    free(decoded->pixels);
    free(decoded->icc);
    decoded->pixels = NULL;
    decoded->icc = NULL;
}

int shim_jpeg_pixels_resample_window(shim_jpeg_pixels *decoded, double x0, double y0, double x1, double y1) {
    if (!decoded || !decoded->pixels || decoded->width < 1 || decoded->height < 1 ||
        decoded->width > INT_MAX || decoded->height > INT_MAX || decoded->bands < 1)
        return -1;
    int w = (int) decoded->width, h = (int) decoded->height;
    unsigned char *out = malloc(decoded->width * decoded->height * (size_t) decoded->bands);
    if (!out)
        return -1;
    if (shim_resample_window_u8(decoded->pixels, w, h, decoded->bands, x0, y0, x1, y1, out, w, h)) {
        free(out);
        return -1;
    }
    free(decoded->pixels);
    decoded->pixels = out;
    return 0;
}

static void free_pixels(VipsObject *object, void *pixels) {
    (void) object;
    free(pixels);
}

VipsImage *shim_jpeg_pixels_image(shim_jpeg_pixels *decoded) {
    if (!decoded->pixels)
        return NULL;
    size_t bands = (size_t) decoded->bands;
    VipsImage *image = vips_image_new_from_memory(decoded->pixels,
                                                  decoded->width * decoded->height * bands,
                                                  (int) decoded->width, (int) decoded->height,
                                                  decoded->bands, VIPS_FORMAT_UCHAR);
    if (!image)
        return NULL;
    /* The image owns the pixels from here on. */
    g_signal_connect(image, "postclose", G_CALLBACK(free_pixels), decoded->pixels);
    decoded->pixels = NULL;
    image->Type = bands == 1 ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB;
    image->Xres = decoded->xres;
    image->Yres = decoded->yres;
    if (decoded->orientation != 1)
        vips_image_set_int(image, VIPS_META_ORIENTATION, decoded->orientation);
    if (decoded->icc)
        vips_image_set_blob_copy(image, VIPS_META_ICC_NAME, decoded->icc, decoded->icc_length);
    return image;
}

/* Hands the decoded pixels and what travels with them to `out`. */
static void fill_result(shim_jpeg_pixels *out, unsigned char *pixels, size_t width,
                        size_t height, int bands, double xres, double yres,
                        int orientation, JOCTET *icc, unsigned int icc_length,
                        int decoder) {
    out->decoder = decoder;
    out->pixels = pixels;
    out->width = width;
    out->height = height;
    out->bands = bands;
    out->xres = xres;
    out->yres = yres;
    out->orientation = orientation;
    out->icc = icc;
    out->icc_length = icc ? icc_length : 0;
}

size_t shim_jpeg_streamed_bytes(const void *buf, size_t len, int shrink, int target_w, int target_h) {
    if (!buf || len < 4 || len > (size_t) 0xFFFFFFFFu)
        return 0;
    struct jpeg_decompress_struct cinfo;
    direct_error err;
    volatile size_t bytes = 0;
    direct_begin(&cinfo, &err, buf, len);
    if (setjmp(err.jump) == 0 && jpeg_read_header(&cinfo, TRUE) == JPEG_HEADER_OK &&
        direct_supported(&cinfo) && cinfo.progressive_mode)
        bytes = jpeg_prog_peak_bytes(&cinfo, shrink, target_w, target_h);
    jpeg_destroy_decompress(&cinfo);
    return bytes;
}

/* One exit for every outcome (done:): libjpeg's error or warning jumps
 * there through setjmp, refusals go there directly, and the buffers the
 * result took over are set to NULL first so that only the rest is freed. */
int shim_jpeg_direct_decode_path(const void *buf, size_t len, int path, int shrink, int target_w, int target_h,
                                 size_t max_bytes, shim_jpeg_pixels *out) {
    memset(out, 0, sizeof *out);
    if (!buf || len < 4 || len > (size_t) 0xFFFFFFFFu)
        return -1;
    if (shrink != 1 && shrink != 2 && shrink != 4 && shrink != 8)
        return -1;
    if (path != SHIM_JPEG_PATH_DC && path != SHIM_JPEG_PATH_COMPACT && path != SHIM_JPEG_PATH_LIBJPEG)
        return -1;

    struct jpeg_decompress_struct cinfo;
    direct_error err;
    /* Changed after setjmp and read after a longjmp: volatile. */
    unsigned char *volatile pixels = NULL;
    JSAMPROW *volatile rows = NULL;
    JOCTET *volatile icc = NULL;
    volatile int result = -1;
    direct_begin(&cinfo, &err, buf, len);
    if (setjmp(err.jump))
        goto done; /* a libjpeg error or warning */
    jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 2, 0xFFFF);
    if (jpeg_read_header(&cinfo, TRUE) != JPEG_HEADER_OK || !direct_supported(&cinfo))
        goto done;
    int orientation = find_orientation(&cinfo);
    JOCTET *profile = NULL;
    unsigned int profile_length = 0;
    if (jpeg_read_icc_profile(&cinfo, &profile, &profile_length))
        icc = profile;

    /* Resolution as libvips's loader reads it from a JFIF header (pixels per
     * millimetre; 1.0 when unknown). */
    double xres = 1.0, yres = 1.0;
    if (cinfo.saw_JFIF_marker && cinfo.X_density != 1 && cinfo.Y_density != 1) {
        if (cinfo.density_unit == 1) {
            xres = cinfo.X_density / 25.4;
            yres = cinfo.Y_density / 25.4;
        } else if (cinfo.density_unit == 2) {
            xres = cinfo.X_density / 10.0;
            yres = cinfo.Y_density / 10.0;
        }
    }

    size_t width, height;
    int bands;
    /* Only the path the caller chose (Swift's JPEGPathRule): a path that
     * declines fails here, and the caller plans the next one. */
    if (path == SHIM_JPEG_PATH_DC) {
        if (shrink != 8 && shrink != 4)
            goto done;
        /* DC coefficients alone make the 1/8 image, and with the three
         * lowest AC coefficients a baseline file's 1/4 image (jpeg_dc.c). */
        uint8_t *dc = NULL;
        int decoder;
        if (jpeg_dc_decode(&cinfo, (const uint8_t *) buf + len, shrink, max_bytes,
                           &dc, &width, &height, &bands, &decoder) == 0) {
            fill_result(out, dc, width, height, bands, xres, yres, orientation,
                        icc, profile_length, decoder);
            icc = NULL; /* `out` owns it */
            result = 0;
        }
        goto done;
    }
    if (path == SHIM_JPEG_PATH_COMPACT) {
        if (!cinfo.progressive_mode || shrink == 8)
            goto done;
        /* Only the coefficients the reduced IDCT reads, or at 1/1 a band of
         * them at a time (jpeg_prog.c). */
        uint8_t *reduced = NULL;
        if (jpeg_prog_decode(&cinfo, (const uint8_t *) buf + len, shrink, target_w, target_h, max_bytes,
                             &reduced, &width, &height, &bands) == 0) {
            fill_result(out, reduced, width, height, bands, xres, yres, orientation,
                        icc, profile_length, JPEG_DECODER_PROGRESSIVE_COMPACT);
            icc = NULL; /* `out` owns it */
            result = 0;
        }
        goto done;
    }

    /* Same choices as libvips's loader: default (ISLOW) IDCT and fancy
     * upsampling, so both paths give the same pixels. */
    cinfo.out_color_space = cinfo.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    cinfo.scale_num = 1;
    cinfo.scale_denom = (unsigned int) shrink;
    jpeg_calc_output_dimensions(&cinfo);
    width = cinfo.output_width;
    height = cinfo.output_height;
    bands = cinfo.output_components;
    size_t stride = width * (size_t) bands;
    /* A progressive (or multi-scan) file has libjpeg hold every coefficient
     * of the image as well as the pixels. */
    size_t coefficients = coefficient_bytes(&cinfo);
    if (width == 0 || height == 0 || coefficients > max_bytes ||
        height > (max_bytes - coefficients) / stride)
        goto done;
    pixels = malloc(stride * height);
    rows = malloc(sizeof(JSAMPROW) * height);
    if (!pixels || !rows)
        goto done;
    for (size_t y = 0; y < height; y++)
        rows[y] = pixels + y * stride;

    jpeg_start_decompress(&cinfo);
    while (cinfo.output_scanline < cinfo.output_height)
        jpeg_read_scanlines(&cinfo, rows + cinfo.output_scanline,
                            cinfo.output_height - cinfo.output_scanline);
    jpeg_finish_decompress(&cinfo);

    /* libvips's loader drops the last, partial pixel of a shrunk JPEG
     * (floor(width / shrink), never below 1); so does this path. */
    size_t kept_width = cinfo.image_width / (size_t) shrink;
    size_t kept_height = cinfo.image_height / (size_t) shrink;
    kept_width = kept_width < 1 ? 1 : kept_width > width ? width : kept_width;
    kept_height = kept_height < 1 ? 1 : kept_height > height ? height : kept_height;
    if (kept_width != width)
        for (size_t y = 1; y < kept_height; y++)
            memmove(pixels + y * kept_width * (size_t) bands, pixels + y * stride,
                    kept_width * (size_t) bands);

    fill_result(out, pixels, kept_width, kept_height, bands, xres, yres, orientation,
                icc, profile_length, JPEG_DECODER_LIBJPEG);
    pixels = NULL; /* `out` owns them */
    icc = NULL;
    result = 0;
done:
    jpeg_destroy_decompress(&cinfo);
    free(pixels);
    free(rows);
    free(icc);
    return result;
}
