/* Internal to CVipsShim: the compact decode of progressive JPEGs at 1/1,
 * 1/2 and 1/4 (jpeg_prog.c). */
#ifndef JPEG_PROG_H
#define JPEG_PROG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jpeglib.h>

/* Decodes a progressive (SOF2), 8-bit, Huffman-coded file at 1/shrink scale
 * (shrink 1, 2 or 4). At 1/2 and 1/4 it keeps per block only the
 * coefficients the reduced IDCT reads instead of all 64; at 1/1 it parses
 * the scans once, then replays them a band of rows at a time. With a
 * target (target_w x target_h, both smaller than the decoded size; 0 x 0
 * for none) it streams the rows into resample.c's Lanczos3, so the decoded
 * image is never held whole. `cinfo` has read the header with jpeg_read_header
 * (up to the first SOS); `end` is the end of the file in memory. The result
 * is an 8-bit image of floor(width / shrink) x floor(height / shrink)
 * pixels (at least 1), or of the target: grey, or RGB for three
 * components. Returns 0 with a malloc'd buffer, or -1 when the file is not
 * one this decoder takes, is damaged or doubtful, or the decode would need
 * more than `max_bytes` in all. */
int jpeg_prog_decode(j_decompress_ptr cinfo, const uint8_t *end, int shrink, int target_w, int target_h,
                     size_t max_bytes, uint8_t **pixels, size_t *width, size_t *height, int *bands);

/* The memory jpeg_prog_decode needs for this frame at 1/shrink and that
 * target (its `max_bytes` check), or 0 when the frame is not one it
 * decodes. `cinfo` has read the header. */
size_t jpeg_prog_peak_bytes(j_decompress_ptr cinfo, int shrink, int target_w, int target_h);

#endif
