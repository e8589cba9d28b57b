/* The whole of a file in a malloc'd buffer (the off-CI tools of fuzz/), or
 * NULL when it cannot be read; *len is its size. */
#ifndef THUMBS_FUZZ_SLURP_H
#define THUMBS_FUZZ_SLURP_H

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

#endif
