/* Off CI. libFuzzer harness for the direct JPEG path (jpeg_direct.c and the
 * DC decode, jpeg_dc.c): probe, then decode at 1/8 (the DC path) and 1/4
 * (the DC entry's 2 x 2 decode for baseline files, else libjpeg), with a
 * small memory budget so that huge headers are refused rather than
 * allocated. Build and run: see build.sh.
 *
 * Besides the sanitizers, a differential oracle: when the DC decode makes
 * the pixels, libjpeg's own decode of the file at the same scale must
 * succeed without a warning (except for progressive files, whose AC scans
 * the DC decode does not read) with the same size and, at 1/8 where no
 * chroma upsampling is involved (grey, 4:4:4), give the same bytes (the 1/4
 * decode is close to libjpeg's, not equal: jpeg_dc.c, QUARTER). */
#include "CVipsShim.h"
#include "decode_to.h"

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    int warnings;
} ref_error;

static void ref_exit(j_common_ptr c) { longjmp(((ref_error *) c->err)->jump, 1); }
static void ref_message(j_common_ptr c, int level) {
    if (level < 0)
        ((ref_error *) c->err)->warnings++;
}
static void ref_output(j_common_ptr c) { (void) c; }

/* libjpeg's 1/shrink decode as libvips runs it, cropped to
 * floor(size / shrink). Returns the pixels (NULL on error), *warnings, and
 * whether all components share one sampling (no upsampling). */
static unsigned char *reference(const uint8_t *buf, size_t len, int shrink, size_t *w, size_t *h,
                                int *warnings, int *uniform) {
    struct jpeg_decompress_struct cinfo;
    ref_error err;
    unsigned char *volatile pixels = NULL;
    cinfo.err = jpeg_std_error(&err.pub);
    err.pub.error_exit = ref_exit;
    err.pub.emit_message = ref_message;
    err.pub.output_message = ref_output;
    err.warnings = 0;
    jpeg_create_decompress(&cinfo);
    if (setjmp(err.jump)) {
        jpeg_destroy_decompress(&cinfo);
        free(pixels);
        return NULL;
    }
    jpeg_mem_src(&cinfo, buf, (unsigned long) len);
    jpeg_read_header(&cinfo, TRUE);
    *uniform = 1;
    for (int c = 1; c < cinfo.num_components; c++)
        if (cinfo.comp_info[c].h_samp_factor != cinfo.comp_info[0].h_samp_factor ||
            cinfo.comp_info[c].v_samp_factor != cinfo.comp_info[0].v_samp_factor)
            *uniform = 0;
    cinfo.out_color_space = cinfo.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    cinfo.scale_num = 1;
    cinfo.scale_denom = (unsigned int) shrink;
    jpeg_start_decompress(&cinfo);
    size_t ow = cinfo.output_width, oh = cinfo.output_height;
    int nb = cinfo.output_components;
    pixels = malloc(ow * oh * nb);
    while (cinfo.output_scanline < oh) {
        JSAMPROW row = pixels + cinfo.output_scanline * ow * nb;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    size_t kw = cinfo.image_width / (size_t) shrink, kh = cinfo.image_height / (size_t) shrink;
    kw = kw < 1 ? 1 : kw > ow ? ow : kw;
    kh = kh < 1 ? 1 : kh > oh ? oh : kh;
    for (size_t y = 0; y < kh; y++)
        memmove(pixels + y * kw * nb, pixels + y * ow * nb, kw * nb);
    jpeg_destroy_decompress(&cinfo);
    *w = kw;
    *h = kh;
    *warnings = err.warnings;
    return pixels;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    shim_jpeg_header header;
    if (shim_jpeg_direct_probe(data, size, &header) != 0)
        return 0;
    shim_jpeg_pixels pixels;
    for (int shrink = 8; shrink >= 4; shrink /= 2) {
        if (shim_jpeg_direct_decode_to(data, size, shrink, 0, 0, (size_t) 64 << 20, &pixels) != 0)
            continue;
        /* Touch every byte: the sanitizers see any short buffer. */
        size_t n = pixels.width * pixels.height * (size_t) pixels.bands;
        volatile unsigned sum = 0;
        for (size_t i = 0; i < n; i++)
            sum += pixels.pixels[i];
        if (pixels.decoder < 0 || pixels.decoder > 3 || pixels.bands != header.components)
            __builtin_trap();
        if (pixels.decoder == 1 || pixels.decoder == 2) { /* the DC decode (3: prog_fuzzer.c) */
            size_t w, h;
            int warnings, uniform;
            unsigned char *ref = reference(data, size, shrink, &w, &h, &warnings, &uniform);
            if (!ref)
                __builtin_trap(); /* the DC decode took a file libjpeg rejects */
            if (warnings && pixels.decoder == 1)
                __builtin_trap(); /* a baseline file libjpeg warns about */
            if (!warnings && (w != pixels.width || h != pixels.height ||
                              (shrink == 8 && uniform && memcmp(ref, pixels.pixels, n) != 0)))
                __builtin_trap(); /* not libjpeg's pixels */
            free(ref);
        }
        shim_jpeg_pixels_free(&pixels);
    }
    return 0;
}
