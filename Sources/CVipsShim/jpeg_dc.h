/* Internal to CVipsShim: the DC-only 1/8-scale JPEG decode (jpeg_dc.c). */
#ifndef JPEG_DC_H
#define JPEG_DC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jpeglib.h>

/* Which decode produced the pixels (shim_jpeg_pixels.decoder). */
#define JPEG_DECODER_LIBJPEG 0
#define JPEG_DC_BASELINE 1
#define JPEG_DC_PROGRESSIVE 2
#define JPEG_DECODER_PROGRESSIVE_COMPACT 3 /* jpeg_prog.c */

/* Decodes the file from the DC coefficients alone at 1/8 (`shrink` 8):
 * baseline (sequential) scans with their AC coefficients skipped, or a
 * progressive file's DC scans with its AC scans skipped. At 1/4 (`shrink`
 * 4; sequential files only) each block keeps its three lowest AC
 * coefficients too and becomes 2 x 2 pixels (see QUARTER in jpeg_dc.c).
 * `cinfo` has read the header with jpeg_read_header (up to the first SOS);
 * `end` is the end of the file in memory. The result is an 8-bit image of
 * floor(width / shrink) x floor(height / shrink) pixels (at least 1): grey,
 * or RGB for three components. Returns 0 with a malloc'd buffer and
 * *decoder set to JPEG_DC_BASELINE or JPEG_DC_PROGRESSIVE, or -1 when the
 * file is not one this decoder takes, is damaged or doubtful, or the decode
 * would need more than `max_bytes`. */
int jpeg_dc_decode(j_decompress_ptr cinfo, const uint8_t *end, int shrink, size_t max_bytes,
                   uint8_t **pixels, size_t *width, size_t *height, int *bands,
                   int *decoder);

/* Whether the frame alone allows the DC decode (8-bit Huffman, grey or
 * YCbCr/RGB, sampling it handles); the scans may still refuse it. */
int jpeg_dc_capable(j_decompress_ptr cinfo);

#endif
