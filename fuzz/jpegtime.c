/* Off CI. CPU time of the direct JPEG path per image: decodes each file N
 * times at each shrink through shim_jpeg_direct_decode_to and prints the
 * least CPU milliseconds per decode (the least of N is steadiest on a
 * shared machine), with the decoder that ran.
 *
 *   jpegtime N FILE...
 *
 * Build against two trees and compare (see build.sh `time`):
 *   cc -O2 -ISources/CVipsShim/include $(pkg-config --cflags vips) \
 *      fuzz/jpegtime.c Sources/CVipsShim/\*.c $(pkg-config --libs vips lcms2) -ljpeg -lm
 */
#include "CVipsShim.h"
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
    static const int shrinks[] = { 8, 4, 2, 1 };
    for (int i = 2; i < argc; i++) {
        size_t len;
        unsigned char *buf = slurp(argv[i], &len);
        if (!buf) { printf("%s unreadable\n", argv[i]); continue; }
        printf("%s", argv[i]);
        for (int s = 0; s < 4; s++) {
            double best = 1e30;
            int decoder = -1;
            for (int r = 0; r < runs; r++) {
                shim_jpeg_pixels px;
                double start = cpu_ms();
                int status = shim_jpeg_direct_decode_to(buf, len, shrinks[s], 0, 0, (size_t) 1 << 30, &px);
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
