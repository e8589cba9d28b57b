/* Off CI. Checks and times the direct JPEG path against libjpeg itself.
 *
 *   dccheck cmp FILE...        1/8 decode: shim vs libjpeg (ISLOW, fancy
 *                              upsampling, as libvips's loader), per file:
 *                              decoder, max difference, PSNR; "ref-warns"
 *                              when libjpeg warns about the file.
 *   dccheck time N FILE        CPU ms per decode at 1/8, N runs each: the shim
 *                              (DC path) and libjpeg's own 1/8 decode.
 *   dccheck rss dc|libjpeg N FILE   decodes N times one way, then prints the
 *                              peak RSS (run once per way: RSS is per process).
 *
 * Build: see build.sh (target dccheck).
 */
#include "CVipsShim.h"
#include "decode_to.h"
#include "slurp.h"

#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
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

/* libjpeg's 1/8 decode, cropped to floor(size / 8) like libvips. */
static unsigned char *ref_decode(const unsigned char *buf, size_t len, size_t *w, size_t *h,
                                 int *bands, int *warnings) {
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
        *warnings = -1;
        return NULL;
    }
    jpeg_mem_src(&cinfo, buf, (unsigned long) len);
    jpeg_read_header(&cinfo, TRUE);
    cinfo.out_color_space = cinfo.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    cinfo.scale_num = 1;
    cinfo.scale_denom = 8;
    jpeg_start_decompress(&cinfo);
    size_t ow = cinfo.output_width, oh = cinfo.output_height;
    int nb = cinfo.output_components;
    pixels = malloc(ow * oh * nb);
    while (cinfo.output_scanline < oh) {
        JSAMPROW row = pixels + cinfo.output_scanline * ow * nb;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    size_t kw = cinfo.image_width / 8, kh = cinfo.image_height / 8;
    kw = kw < 1 ? 1 : kw > ow ? ow : kw;
    kh = kh < 1 ? 1 : kh > oh ? oh : kh;
    for (size_t y = 0; y < kh; y++)
        memmove(pixels + y * kw * nb, pixels + y * ow * nb, kw * nb);
    jpeg_destroy_decompress(&cinfo);
    *w = kw;
    *h = kh;
    *bands = nb;
    *warnings = err.warnings;
    return pixels;
}

/* CPU time of this process: steadier than wall time on a shared machine. */
static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    if (argc >= 3 && !strcmp(argv[1], "cmp")) {
        int bad = 0;
        for (int i = 2; i < argc; i++) {
            size_t len;
            unsigned char *buf = slurp(argv[i], &len);
            if (!buf) { printf("%s: unreadable\n", argv[i]); continue; }
            shim_jpeg_header header;
            int probed = shim_jpeg_direct_probe(buf, len, &header);
            shim_jpeg_pixels px;
            int r = shim_jpeg_direct_decode_to(buf, len, 8, 0, 0, (size_t) 1 << 30, &px);
            size_t w, h;
            int nb, warnings;
            unsigned char *ref = ref_decode(buf, len, &w, &h, &nb, &warnings);
            printf("%s: probe %d prog %d dc_capable %d coef %zu | ", argv[i], probed,
                   header.progressive, header.dc_capable, header.coefficient_bytes);
            if (r) {
                printf("direct -1 | ref %s\n", !ref ? "error" : warnings ? "warns" : "ok");
            } else if (!ref || warnings) {
                printf("decoder %d BUT ref %s\n", px.decoder, !ref ? "error" : "warns");
                bad++;
            } else if (px.width != w || px.height != h || px.bands != nb) {
                printf("decoder %d SIZE %zux%zu vs %zux%zu\n", px.decoder, px.width, px.height, w, h);
                bad++;
            } else {
                double sum = 0;
                int maxd = 0;
                size_t n = w * h * nb;
                for (size_t k = 0; k < n; k++) {
                    int d = abs((int) px.pixels[k] - (int) ref[k]);
                    if (d > maxd) maxd = d;
                    sum += (double) d * d;
                }
                double psnr = sum == 0 ? 100 : 10 * log10(255.0 * 255 / (sum / n));
                printf("decoder %d %zux%zux%d maxdiff %d psnr %.1f\n", px.decoder, w, h, nb, maxd, psnr);
            }
            if (!r) shim_jpeg_pixels_free(&px);
            free(ref);
            free(buf);
        }
        return bad ? 1 : 0;
    }
    if (argc == 4 && !strcmp(argv[1], "time")) {
        int n = atoi(argv[2]);
        size_t len;
        unsigned char *buf = slurp(argv[3], &len);
        if (!buf) return 2;
        double t0 = now_ms();
        int decoder = -1;
        for (int i = 0; i < n; i++) {
            shim_jpeg_pixels px;
            if (shim_jpeg_direct_decode_to(buf, len, 8, 0, 0, (size_t) 1 << 30, &px)) { printf("dc refused\n"); return 1; }
            decoder = px.decoder;
            shim_jpeg_pixels_free(&px);
        }
        double t1 = now_ms();
        for (int i = 0; i < n; i++) {
            size_t w, h;
            int nb, warnings;
            free(ref_decode(buf, len, &w, &h, &nb, &warnings));
        }
        double t2 = now_ms();
        printf("%s: shim 1/8 (decoder %d) %.2f CPU ms, libjpeg 1/8 %.2f CPU ms\n", argv[3], decoder,
               (t1 - t0) / n, (t2 - t1) / n);
        return 0;
    }
    if (argc == 5 && !strcmp(argv[1], "rss")) {
        int n = atoi(argv[3]);
        size_t len;
        unsigned char *buf = slurp(argv[4], &len);
        if (!buf) return 2;
        for (int i = 0; i < n; i++) {
            if (!strcmp(argv[2], "dc")) {
                shim_jpeg_pixels px;
                if (!shim_jpeg_direct_decode_to(buf, len, 8, 0, 0, (size_t) 1 << 30, &px))
                    shim_jpeg_pixels_free(&px);
            } else {
                size_t w, h;
                int nb, warnings;
                free(ref_decode(buf, len, &w, &h, &nb, &warnings));
            }
        }
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        printf("%s %s: peak RSS %ld KB (file %zu KB)\n", argv[2], argv[4], ru.ru_maxrss, len / 1024);
        return 0;
    }
    fprintf(stderr, "usage: dccheck cmp FILE... | time N FILE | rss dc|libjpeg N FILE\n");
    return 2;
}
