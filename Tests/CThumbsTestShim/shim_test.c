#include "CThumbsTestShim.h"
/* A private header of CVipsShim (not in its include/): the parser itself. */
#include "../../Sources/CVipsShim/jpeg_exif.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int shim_save_file(VipsImage *in, const char *path_and_options) {
    return vips_image_write_to_file(in, path_and_options, NULL);
}

int shim_open_file(const char *path, VipsImage **out) {
    *out = vips_image_new_from_file(path, "access", VIPS_ACCESS_RANDOM, NULL);
    return *out ? 0 : -1;
}

int shim_image_avg(VipsImage *in, double *out) {
    return vips_avg(in, out, NULL);
}

int shim_jpeg_direct_decode(const void *buf, size_t len, int shrink,
                            size_t max_bytes, shim_jpeg_pixels *out) {
    return shim_jpeg_direct_decode_to(buf, len, shrink, 0, 0, max_bytes, out);
}

int test_exif_orientation_guarded(const unsigned char *payload, size_t length) {
    size_t page = (size_t) sysconf(_SC_PAGESIZE);
    size_t data_pages = (length + page - 1) / page;
    if (data_pages == 0)
        data_pages = 1;
    size_t total = (data_pages + 1) * page;
    unsigned char *map = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED)
        return -1;
    unsigned char *guard = map + data_pages * page;
    if (mprotect(guard, page, PROT_NONE) != 0) {
        munmap(map, total);
        return -1;
    }
    unsigned char *copy = guard - length;
    if (length)
        memcpy(copy, payload, length);
    int orientation = jpeg_exif_orientation(copy, length);
    munmap(map, total);
    return orientation;
}
