/* Off CI. libFuzzer harness for the embedded-picture parser
 * (embedded_pictures.c) under ASan and UBSan. libFuzzer hands over an
 * allocation of exactly the input's size, so a read past its end is a
 * report. Each input is read:
 * - as a JPEG (when it starts with SOI) or a TIFF, whole, with its own size
 *   as the file's size;
 * - the same from its first half only, the file's size still the whole
 *   one's (a header read before the rest of the file);
 * - each picture listed, probed again from a copy of exactly its bytes.
 * A TIFF's `wanted` lies in the file, and is 0 when the whole was given.
 * Every listing must keep its promises (pictures inside the file, counts
 * within the caps, strings terminated): a broken one traps.
 * Build and run: fuzz/embedded.sh. */
#include "CVipsEmbeddedPictures.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check(const shim_embedded_listing *l, uint64_t file_size) {
    if (l->count < 0 || l->count > SHIM_EP_MAX_PICTURES || l->refused < 0)
        __builtin_trap();
    /* What more bytes would reach lies in the file. */
    if (l->wanted > file_size)
        __builtin_trap();
    const char *strings[] = { l->make, l->model, l->software, l->modify_date, l->date_original, l->creator_tool };
    const size_t sizes[] = { sizeof l->make, sizeof l->model, sizeof l->software, sizeof l->modify_date,
                             sizeof l->date_original, sizeof l->creator_tool };
    for (int i = 0; i < 6; i++)
        if (!memchr(strings[i], 0, sizes[i]))
            __builtin_trap();
    for (int i = 0; i < l->count; i++) {
        const shim_embedded_picture *p = &l->pictures[i];
        if (p->length < 4 || p->offset > file_size || p->length > file_size - p->offset)
            __builtin_trap();
        if (p->width < 0 || p->height < 0 || p->width > 0xFFFFFF || p->height > 0xFFFFFF)
            __builtin_trap();
    }
}

static void list(const uint8_t *data, size_t size, uint64_t file_size) {
    shim_embedded_listing listing;
    int jpeg = size >= 2 && data[0] == 0xFF && data[1] == 0xD8;
    int status = jpeg ? shim_embedded_pictures_jpeg(data, size, file_size, &listing)
                      : shim_embedded_pictures_tiff(data, size, file_size, &listing);
    if (status != 0)
        return;
    check(&listing, file_size);
    /* Given the whole file, nothing is wanted past it. */
    if (size == file_size && listing.wanted != 0)
        __builtin_trap();
    for (int i = 0; i < listing.count; i++) {
        shim_embedded_picture p = listing.pictures[i];
        if (p.offset >= size)
            continue;
        size_t given = size - p.offset < p.length ? size - (size_t) p.offset : (size_t) p.length;
        uint8_t *copy = malloc(given ? given : 1);
        if (!copy)
            return;
        memcpy(copy, data + p.offset, given);
        shim_embedded_probe(copy, given, &p);
        free(copy);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    list(data, size, size);
    if (size > 8) {
        size_t half = size / 2;
        uint8_t *prefix = malloc(half);
        if (!prefix)
            return 0;
        memcpy(prefix, data, half);
        list(prefix, half, size);
        free(prefix);
    }
    return 0;
}
