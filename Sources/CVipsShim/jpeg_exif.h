/* Internal to CVipsShim: the Exif orientation of a JPEG's APP1 payload
 * (jpeg_exif.c). Not in include/, so Swift does not see it; the C test
 * support target (Tests/CThumbsTestShim) calls it on payloads it places
 * before an unmapped page. */
#ifndef JPEG_EXIF_H
#define JPEG_EXIF_H

#include <stddef.h>

/* The Orientation tag (0x0112) of IFD0 in an APP1 payload that starts with
 * "Exif\0\0" (`length` bytes from `data`, untrusted), or 1 when absent,
 * malformed or outside 1...8 (what vips_image_get_orientation reports for
 * such files). Reads nothing outside data[0, length). */
int jpeg_exif_orientation(const unsigned char *data, size_t length);

#endif
