/* Off CI. Byte-identity check for refactors of the direct JPEG path: decodes
 * each file through shim_jpeg_direct_decode_to at 1/8 (the DC decode, or
 * libjpeg when it refuses), 1/4, 1/2 and 1/1 (libjpeg, or the compact
 * progressive decode), and 1/1 streamed into a resize to a third of each
 * side, and prints one line per
 * file and shrink: the result, the decoder, the size and an FNV-1a 64 hash
 * of the pixels. Run it over the same files before and after a change and
 * diff the outputs:
 *
 *   dchash FILE... > before.txt   (then change, rebuild)
 *   dchash FILE... > after.txt && diff before.txt after.txt
 *
 * fuzz/identity.sh does all of it against a git revision.
 *
 * Build: see build.sh (target dchash).
 */
#include "CVipsShim.h"
#include "decode_to.h"
#include "slurp.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t fnv1a(const unsigned char *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: dchash FILE...\n");
        return 2;
    }
    /* The fuzzer's budget by default (huge headers are refused, not
     * allocated); DCHASH_BUDGET_MB for large photos. */
    const char *mb = getenv("DCHASH_BUDGET_MB");
    size_t budget = (size_t) (mb ? atol(mb) : 64) << 20;
    for (int i = 1; i < argc; i++) {
        size_t len;
        unsigned char *buf = slurp(argv[i], &len);
        if (!buf) { printf("%s unreadable\n", argv[i]); continue; }
        /* Every shrink, then 1/1 streamed into a resize to a third of each
         * side (the compact progressive decode's target). */
        static const int shrinks[] = { 8, 4, 2, 1, 1 };
        for (int pass = 0; pass < 5; pass++) {
            int shrink = shrinks[pass], streamed = pass == 4;
            shim_jpeg_header header;
            int tw = 0, th = 0;
            if (streamed && shim_jpeg_direct_probe(buf, len, &header) == 0) {
                tw = header.width / 3;
                th = header.height / 3;
            }
            shim_jpeg_pixels px;
            if (shim_jpeg_direct_decode_to(buf, len, shrink, tw, th, budget, &px) != 0) {
                printf("%s 1/%d%s refused\n", argv[i], shrink, streamed ? " streamed" : "");
                continue;
            }
            size_t n = px.width * px.height * (size_t) px.bands;
            printf("%s 1/%d%s decoder %d %zux%zux%d orientation %d icc %zu pixels %016llx\n", argv[i], shrink,
                   streamed ? " streamed" : "", px.decoder, px.width, px.height, px.bands, px.orientation,
                   px.icc_length, (unsigned long long) fnv1a(px.pixels, n));
            shim_jpeg_pixels_free(&px);
        }
        free(buf);
    }
    return 0;
}
