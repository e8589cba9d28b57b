/* Internal to CVipsShim: the DC-only 1/8-scale JPEG decode (jpeg_dc.c). */
#ifndef JPEG_DC_H
#define JPEG_DC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jpeglib.h>

/* Decodes the entropy data after the first SOS (cinfo has read the header
 * with jpeg_read_header; `end` is the end of the file in memory) into an
 * 8-bit image of floor(width / 8) x floor(height / 8) pixels (at least 1): grey, or RGB for
 * three components. Returns 0 with a malloc'd buffer, or -1 when the file is
 * not one this decoder takes, is damaged, or the result would need more
 * than `max_bytes`. */
int jpeg_dc_decode(j_decompress_ptr cinfo, const uint8_t *end, size_t max_bytes,
                   uint8_t **pixels, size_t *width, size_t *height, int *bands);

#endif
