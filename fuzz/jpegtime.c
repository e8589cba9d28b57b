/* Off CI. CPU time of the direct JPEG path per image: decodes each file N
 * times at each shrink on the path the rule plans (decode_to.h; the probe
 * that plans it is not timed, the fallback to libjpeg is) and prints the
 * least CPU milliseconds per decode (the least of N is steadiest on a
 * shared machine), with the decoder that ran.
 *
 *   jpegtime N FILE...
 *
 * JPEGTIME_SHRINKS=8,4 times only those shrinks (default 8,4,2,1).
 *
 * Build against two trees and compare (see build.sh `time`):
 *   cc -O2 -ISources/CVipsShim/include $(pkg-config --cflags vips) \
 *      fuzz/jpegtime.c Sources/CVipsShim/\*.c $(pkg-config --libs vips lcms2) -ljpeg -lm
 */
#include "CVipsShim.h"
#include "decode_to.h"
#include "slurp.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: jpegtime N FILE...\n");
        return 2;
    }
    int runs = atoi(argv[1]);
    int shrinks[4] = { 8, 4, 2, 1 }, nshrinks = 4;
    const char *only = getenv("JPEGTIME_SHRINKS");
    if (only) {
        nshrinks = 0;
        for (const char *p = only; *p && nshrinks < 4; p++)
            if (*p == '1' || *p == '2' || *p == '4' || *p == '8')
                shrinks[nshrinks++] = *p - '0';
    }
    for (int i = 2; i < argc; i++) {
        size_t len;
        unsigned char *buf = slurp(argv[i], &len);
        if (!buf) { printf("%s unreadable\n", argv[i]); continue; }
        printf("%s", argv[i]);
        shim_jpeg_header header;
        if (shim_jpeg_direct_probe(buf, len, &header) != 0) { printf(" not a direct JPEG\n"); free(buf); continue; }
        for (int s = 0; s < nshrinks; s++) {
            int first = fuzz_first_path(&header, shrinks[s]);
            double best = 1e30;
            int decoder = -1;
            for (int r = 0; r < runs; r++) {
                shim_jpeg_pixels px;
                double start = cpu_ms();
                int status = fuzz_decode_planned(buf, len, first, shrinks[s], 0, 0, (size_t) 1 << 30, &px);
                double ms = cpu_ms() - start;
                if (status == 0) {
                    decoder = px.decoder;
                    shim_jpeg_pixels_free(&px);
                }
                best = ms < best ? ms : best;
            }
            printf("  1/%d: %.1f ms (decoder %d)", shrinks[s], best, decoder);
        }
        printf("\n");
        free(buf);
    }
    return 0;
}
