/* Off CI. The 1/4 decodes side by side: for each file, the planned 1/4 path
 * (the DC entry's 2 x 2 decode of a baseline file, jpeg_dc.c, or the compact
 * progressive decode, jpeg_prog.c) against libjpeg's own 1/4 decode (its
 * 2 x 2 reduced IDCT): the least CPU milliseconds of N decodes of each, and
 * the PSNR of the first against the second over every RGB (or grey) byte.
 *
 *   quartercheck N FILE...
 *
 * Build: as jpegtime.c.
 */
#include "CVipsShim.h"
#include "decode_to.h"
#include "slurp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* The least CPU time of `runs` decodes on `path`; the last decode in *px
 * (its status returned). */
static int timed(const unsigned char *buf, size_t len, int path, int runs, double *best, shim_jpeg_pixels *px) {
    int status = -1;
    *best = 1e30;
    for (int r = 0; r < runs; r++) {
        if (r)
            shim_jpeg_pixels_free(px);
        double start = cpu_ms();
        status = shim_jpeg_direct_decode_path(buf, len, path, 4, 0, 0, (size_t) 1 << 30, px);
        double ms = cpu_ms() - start;
        *best = ms < *best ? ms : *best;
    }
    return status;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: quartercheck N FILE...\n");
        return 2;
    }
    int runs = atoi(argv[1]);
    for (int i = 2; i < argc; i++) {
        size_t len;
        unsigned char *buf = slurp(argv[i], &len);
        shim_jpeg_header header;
        if (!buf || shim_jpeg_direct_probe(buf, len, &header) != 0) {
            printf("%s unreadable\n", argv[i]);
            free(buf);
            continue;
        }
        int path = header.progressive ? SHIM_JPEG_PATH_COMPACT : SHIM_JPEG_PATH_DC;
        shim_jpeg_pixels fast, ref;
        double fast_ms, ref_ms;
        int fs = timed(buf, len, path, runs, &fast_ms, &fast);
        int rs = timed(buf, len, SHIM_JPEG_PATH_LIBJPEG, runs, &ref_ms, &ref);
        if (fs || rs || fast.width != ref.width || fast.height != ref.height || fast.bands != ref.bands) {
            printf("%s path %d: %s\n", argv[i], path, fs ? "refused" : rs ? "libjpeg refused" : "sizes differ");
        } else {
            size_t n = fast.width * fast.height * (size_t) fast.bands;
            double se = 0;
            for (size_t k = 0; k < n; k++) {
                double d = (double) fast.pixels[k] - ref.pixels[k];
                se += d * d;
            }
            double psnr = se ? 10 * log10(255.0 * 255.0 * (double) n / se) : INFINITY;
            printf("%s %zux%zu path %d (decoder %d): %.1f ms, libjpeg %.1f ms, PSNR %.2f dB\n", argv[i], fast.width,
                   fast.height, path, fast.decoder, fast_ms, ref_ms, psnr);
        }
        if (!fs)
            shim_jpeg_pixels_free(&fast);
        if (!rs)
            shim_jpeg_pixels_free(&ref);
        free(buf);
    }
    return 0;
}
