/* Off CI. Byte-identity check for refactors of the direct JPEG path: decodes
 * each file through shim_jpeg_direct_decode at 1/8 (the DC decode, or
 * libjpeg when it refuses) and at 1/2 (libjpeg), and prints one line per
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

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc(size > 0 ? (size_t) size : 1);
    *len = size > 0 ? (size_t) size : 0;
    if (b && fread(b, 1, *len, f) != *len) { free(b); b = NULL; }
    fclose(f);
    return b;
}

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
    for (int i = 1; i < argc; i++) {
        size_t len;
        unsigned char *buf = slurp(argv[i], &len);
        if (!buf) { printf("%s unreadable\n", argv[i]); continue; }
        for (int shrink = 8; shrink >= 2; shrink /= 4) {
            shim_jpeg_pixels px;
            /* The fuzzer's budget: huge headers are refused, not allocated. */
            if (shim_jpeg_direct_decode(buf, len, shrink, (size_t) 64 << 20, &px) != 0) {
                printf("%s 1/%d refused\n", argv[i], shrink);
                continue;
            }
            size_t n = px.width * px.height * (size_t) px.bands;
            printf("%s 1/%d decoder %d %zux%zux%d orientation %d icc %zu pixels %016llx\n", argv[i], shrink,
                   px.decoder, px.width, px.height, px.bands, px.orientation, px.icc_length,
                   (unsigned long long) fnv1a(px.pixels, n));
            shim_jpeg_pixels_free(&px);
        }
        free(buf);
    }
    return 0;
}
