// Off CI. Differential fuzzer for CRawShim's BoundedStream (raw_shim.cpp):
// the same bytes opened by LibRaw from memory and from a file
// descriptor (pread through a window) must give the same
// return code and the same facts, and, for small sensors, the same
// development (code, size, pixels). Built with ASan + UBSan by fuzz/raw.sh.
#include "CRawShim.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

static int file_of(const uint8_t *data, size_t size) {
    int fd = memfd_create("raw", 0);
    if (fd < 0)
        abort();
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, data + done, size - done);
        if (n <= 0)
            abort();
        done += (size_t) n;
    }
    return fd;
}

static void same(bool equal, const char *what) {
    if (!equal) {
        fprintf(stderr, "memory and descriptor differ: %s\n", what);
        abort();
    }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    // LibRaw only reads the buffer; a copy of its own so ASan sees overruns.
    uint8_t *copy = static_cast<uint8_t *>(malloc(size ? size : 1));
    memcpy(copy, data, size);
    int fd = file_of(data, size);
    shim_raw_input memory = {copy, size, -1};
    shim_raw_input file = {nullptr, size, fd};
    shim_raw_facts a, b;
    char ma[256], mb[256];
    int ca = shim_raw_facts_read(memory, &a, ma, sizeof ma);
    int cb = shim_raw_facts_read(file, &b, mb, sizeof mb);
    same(ca == cb, "open code");
    if (ca == 0) {
        same(a.width == b.width && a.height == b.height && a.raw_width == b.raw_width && a.raw_height == b.raw_height,
             "sizes");
        same(a.orientation == b.orientation && a.colors == b.colors, "orientation, colours");
        same(strcmp(a.make, b.make) == 0 && strcmp(a.model, b.model) == 0, "make, model");
        same(a.thumb_format == b.thumb_format && a.thumb_offset == b.thumb_offset && a.thumb_length == b.thumb_length &&
                 a.thumb_width == b.thumb_width && a.thumb_height == b.thumb_height,
             "thumbnail");
        // Developments of small sensors only (fast enough to fuzz).
        if ((long long) a.raw_width * a.raw_height <= 256 * 256) {
            shim_raw_image ia, ib;
            int da = shim_raw_develop(memory, 1, 1, 256 * 256, &ia, ma, sizeof ma);
            int db = shim_raw_develop(file, 1, 1, 256 * 256, &ib, mb, sizeof mb);
            same(da == db, "develop code");
            if (da == 0) {
                same(ia.width == ib.width && ia.height == ib.height && ia.bands == ib.bands, "developed size");
                same(memcmp(ia.pixels, ib.pixels, ia.width * ia.height * (size_t) ia.bands) == 0, "developed pixels");
            }
            free(ia.pixels);
            free(ib.pixels);
        }
    }
    close(fd);
    free(copy);
    return 0;
}
