/* Off CI. libFuzzer harness for the compact progressive decode (jpeg_prog.c)
 * at 1/2 and 1/4, called directly after libjpeg's jpeg_read_header (as
 * jpeg_direct.c does), with a small memory budget. Build and run: see
 * build.sh (`prog-run`).
 *
 * Besides the sanitizers, a differential oracle: when the compact decode
 * makes the pixels, libjpeg's own decode of the file at the same scale must
 * succeed without a warning and give the same size. (Pixels may differ: the
 * compact decode keeps 4x4 coefficients, and clamps where libjpeg's
 * range-limit table wraps on corrupt data.) */
#include "jpeg_prog.h"

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
} fuzz_error;

static void on_exit_(j_common_ptr c) { longjmp(((fuzz_error *) c->err)->jump, 1); }
static void on_message(j_common_ptr c, int level) {
    if (level < 0)
        ((fuzz_error *) c->err)->warnings++;
}
static void on_output(j_common_ptr c) { (void) c; }

static void begin(j_decompress_ptr cinfo, fuzz_error *err) {
    cinfo->err = jpeg_std_error(&err->pub);
    err->pub.error_exit = on_exit_;
    err->pub.emit_message = on_message;
    err->pub.output_message = on_output;
    err->warnings = 0;
    jpeg_create_decompress(cinfo);
}

/* libjpeg's decode at 1/shrink: 0 when it succeeds without a warning, with
 * the cropped size libvips's loader would keep. */
static int reference(const uint8_t *data, size_t size, int shrink, size_t *w, size_t *h) {
    struct jpeg_decompress_struct cinfo;
    fuzz_error err;
    unsigned char *volatile row = NULL;
    begin(&cinfo, &err);
    if (setjmp(err.jump)) {
        jpeg_destroy_decompress(&cinfo);
        free(row);
        return -1;
    }
    jpeg_mem_src(&cinfo, data, (unsigned long) size);
    jpeg_read_header(&cinfo, TRUE);
    cinfo.out_color_space = cinfo.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    cinfo.scale_num = 1;
    cinfo.scale_denom = (unsigned) shrink;
    jpeg_start_decompress(&cinfo);
    row = malloc((size_t) cinfo.output_width * (size_t) cinfo.output_components);
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW r = row;
        jpeg_read_scanlines(&cinfo, &r, 1);
    }
    jpeg_finish_decompress(&cinfo);
    *w = cinfo.image_width / (size_t) shrink;
    *h = cinfo.image_height / (size_t) shrink;
    *w = *w ? *w : 1;
    *h = *h ? *h : 1;
    jpeg_destroy_decompress(&cinfo);
    free(row);
    return err.warnings ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 4 || data[0] != 0xFF || data[1] != 0xD8)
        return 0;
    /* 1/1 twice: the banded decode into a full image, and streamed into a
     * resize to a third of each side. */
    static const int shrinks[] = { 1, 1, 2, 4 };
    for (int pass = 0; pass < 4; pass++) {
        int shrink = shrinks[pass], streamed = pass == 0;
        struct jpeg_decompress_struct cinfo;
        fuzz_error err;
        begin(&cinfo, &err);
        if (setjmp(err.jump)) {
            jpeg_destroy_decompress(&cinfo);
            return 0;
        }
        jpeg_mem_src(&cinfo, data, (unsigned long) size);
        if (jpeg_read_header(&cinfo, TRUE) != JPEG_HEADER_OK || err.warnings) {
            jpeg_destroy_decompress(&cinfo);
            return 0;
        }
        uint8_t *pixels = NULL;
        size_t w = 0, h = 0;
        int bands = 0;
        int tw = streamed ? (int) (cinfo.image_width / 3) : 0, th = streamed ? (int) (cinfo.image_height / 3) : 0;
        int status = jpeg_prog_decode(&cinfo, data + size, shrink, tw, th, (size_t) 32 << 20,
                                      &pixels, &w, &h, &bands);
        int components = cinfo.num_components;
        jpeg_destroy_decompress(&cinfo);
        if (status != 0)
            continue;
        /* Touch every byte: the sanitizers see any short buffer. */
        volatile unsigned sum = 0;
        for (size_t i = 0; i < w * h * (size_t) bands; i++)
            sum += pixels[i];
        free(pixels);
        if (bands != components)
            __builtin_trap();
        size_t rw, rh;
        if (reference(data, size, shrink, &rw, &rh) != 0)
            __builtin_trap(); /* decoded a file libjpeg rejects or warns about */
        if (streamed && tw > 0 && th > 0 && (size_t) tw < rw && (size_t) th < rh) {
            if (w != (size_t) tw || h != (size_t) th)
                __builtin_trap();
        } else if (rw != w || rh != h) {
            __builtin_trap();
        }
    }
    return 0;
}
