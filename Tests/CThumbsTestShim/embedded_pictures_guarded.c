/* The embedded-picture parser (embedded_pictures.c) run on bytes placed
 * right before a PROT_NONE page, so that a read past their end faults in the
 * tests instead of passing unseen. */
#include "CThumbsTestShim.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct {
    unsigned char *map, *copy;
    size_t total;
} guarded;

/* A copy of `length` bytes that ends where a PROT_NONE page begins. */
static int guard_copy(const unsigned char *bytes, size_t length, guarded *g) {
    size_t page = (size_t) sysconf(_SC_PAGESIZE);
    size_t data_pages = (length + page - 1) / page;
    if (data_pages == 0)
        data_pages = 1;
    g->total = (data_pages + 1) * page;
    g->map = mmap(NULL, g->total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g->map == MAP_FAILED)
        return -1;
    unsigned char *guard = g->map + data_pages * page;
    if (mprotect(guard, page, PROT_NONE) != 0) {
        munmap(g->map, g->total);
        return -1;
    }
    g->copy = guard - length;
    if (length)
        memcpy(g->copy, bytes, length);
    return 0;
}

int test_embedded_pictures_guarded(const unsigned char *bytes, size_t length, uint64_t file_size, int tiff,
                                   shim_embedded_listing *out) {
    guarded whole;
    if (guard_copy(bytes, length, &whole) != 0)
        return -2;
    int status = tiff ? shim_embedded_pictures_tiff(whole.copy, length, file_size, out)
                      : shim_embedded_pictures_jpeg(whole.copy, length, file_size, out);
    munmap(whole.map, whole.total);
    /* Each picture whose bytes were given, probed again from a guarded copy
     * of exactly those bytes (the listing keeps its own results). */
    for (int i = 0; status == 0 && i < out->count; i++) {
        shim_embedded_picture p = out->pictures[i];
        if (p.offset >= length)
            continue;
        size_t given = length - p.offset < p.length ? length - (size_t) p.offset : (size_t) p.length;
        guarded part;
        if (guard_copy(bytes + p.offset, given, &part) != 0)
            return -2;
        shim_embedded_probe(part.copy, given, &p);
        munmap(part.map, part.total);
    }
    return status;
}
