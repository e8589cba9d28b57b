/* The off-CI tools' one call into the direct JPEG paths: the chain of paths
 * Swift's JPEGPathRule plans (Sources/ThumbsKit/Imaging/JPEGPathRule.swift),
 * tried in its order, each path alone through shim_jpeg_direct_decode_path.
 * The tools predate the rule's move to Swift and called one C function that
 * chose the path itself; this keeps them running the same chain:
 *
 *   1/8: the DC decode when the frame allows it, then libjpeg;
 *   1/4 of a baseline file: the DC entry's 2 x 2 decode when the frame
 *   allows it, then libjpeg;
 *   1/4, 1/2, 1/1 of a progressive file: the compact decode, then libjpeg;
 *   otherwise libjpeg.
 *
 * (The rule's pixel budget, which sends large baseline decodes to libvips,
 * is the caller's `max_bytes` here.) */
#ifndef THUMBS_FUZZ_DECODE_TO_H
#define THUMBS_FUZZ_DECODE_TO_H

#include "CVipsShim.h"

#include <string.h>

/* The path the rule plans first for a probed header at 1/shrink. */
static int fuzz_first_path(const shim_jpeg_header *header, int shrink) {
    if ((shrink == 8 || (shrink == 4 && !header->progressive)) && header->dc_capable)
        return SHIM_JPEG_PATH_DC;
    if (shrink != 8 && header->progressive)
        return SHIM_JPEG_PATH_COMPACT;
    return SHIM_JPEG_PATH_LIBJPEG;
}

/* The planned path, then libjpeg when it declines. */
static int fuzz_decode_planned(const void *buf, size_t len, int first, int shrink, int target_w, int target_h,
                               size_t max_bytes, shim_jpeg_pixels *out) {
    if (shim_jpeg_direct_decode_path(buf, len, first, shrink, target_w, target_h, max_bytes, out) == 0)
        return 0;
    if (first == SHIM_JPEG_PATH_LIBJPEG)
        return -1;
    return shim_jpeg_direct_decode_path(buf, len, SHIM_JPEG_PATH_LIBJPEG, shrink, target_w, target_h, max_bytes, out);
}

static int shim_jpeg_direct_decode_to(const void *buf, size_t len, int shrink, int target_w, int target_h,
                                      size_t max_bytes, shim_jpeg_pixels *out) {
    shim_jpeg_header header;
    if (shim_jpeg_direct_probe(buf, len, &header) != 0) {
        memset(out, 0, sizeof *out);
        return -1;
    }
    return fuzz_decode_planned(buf, len, fuzz_first_path(&header, shrink), shrink, target_w, target_h, max_bytes,
                               out);
}

#endif
