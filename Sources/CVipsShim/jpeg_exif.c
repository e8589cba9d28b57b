/* The Exif orientation of a JPEG, read from its APP1 payload (untrusted
 * bytes, straight from the file).
 *
 * The payload is "Exif\0\0" and a TIFF structure: a byte-order mark (II or
 * MM), 42, the offset of IFD0, then at that offset a count of 12-byte
 * entries. Every read is bounds-checked as `offset + length > size`, with
 * offsets and sizes in 64 bits, so no check can wrap: an earlier version
 * wrote `ifd > size - 2` and `entry > size - 12`, which wrap for a TIFF part
 * shorter than 12 bytes and let a 14...17-byte payload be read up to 12
 * bytes past its end. libexif would do the same job; this is one tag of
 * IFD0 and costs nothing to read (see jpeg_direct.c's probe).
 */
#include "jpeg_exif.h"

#include <stdint.h>
#include <string.h>

/* "Exif\0\0", then the TIFF header: byte order (2), 42 (2), IFD0 offset (4). */
#define EXIF_PREFIX 6
#define TIFF_HEADER 8
#define IFD_COUNT 2
#define IFD_ENTRY 12
#define TAG_ORIENTATION 0x0112
#define TYPE_SHORT 3
#define TYPE_LONG 4
/* An entry: tag (2), type (2), count (4), then the value (or its offset). */
#define ENTRY_TYPE 2
#define ENTRY_VALUE 8

static uint32_t read16(const unsigned char *p, int big) {
    return big ? (uint32_t) (p[0] << 8 | p[1]) : (uint32_t) (p[1] << 8 | p[0]);
}

static uint32_t read32(const unsigned char *p, int big) {
    return big ? ((uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3])
               : ((uint32_t) p[3] << 24 | (uint32_t) p[2] << 16 | (uint32_t) p[1] << 8 | p[0]);
}

int jpeg_exif_orientation(const unsigned char *data, size_t length) {
    if (!data || EXIF_PREFIX + TIFF_HEADER > length || memcmp(data, "Exif\0\0", EXIF_PREFIX) != 0)
        return 1;
    const unsigned char *tiff = data + EXIF_PREFIX;
    uint64_t size = (uint64_t) length - EXIF_PREFIX; /* >= TIFF_HEADER, checked above */
    int big;
    if (tiff[0] == 'M' && tiff[1] == 'M')
        big = 1;
    else if (tiff[0] == 'I' && tiff[1] == 'I')
        big = 0;
    else
        return 1;
    if (read16(tiff + 2, big) != 42)
        return 1;
    uint64_t ifd = read32(tiff + 4, big); /* < 2^32: the sums below cannot wrap */
    if (ifd + IFD_COUNT > size)
        return 1;
    uint64_t count = read16(tiff + ifd, big);
    for (uint64_t i = 0; i < count; i++) {
        uint64_t entry = ifd + IFD_COUNT + IFD_ENTRY * i;
        if (entry + IFD_ENTRY > size)
            return 1;
        if (read16(tiff + entry, big) != TAG_ORIENTATION)
            continue;
        uint32_t type = read16(tiff + entry + ENTRY_TYPE, big);
        uint32_t value;
        if (type == TYPE_SHORT)
            value = read16(tiff + entry + ENTRY_VALUE, big);
        else if (type == TYPE_LONG)
            value = read32(tiff + entry + ENTRY_VALUE, big);
        else
            return 1;
        return value >= 1 && value <= 8 ? (int) value : 1;
    }
    return 1;
}
