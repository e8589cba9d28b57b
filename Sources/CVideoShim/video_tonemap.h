#ifndef VIDEO_TONEMAP_H
#define VIDEO_TONEMAP_H

#include <stddef.h>
#include <stdint.h>

/// Tone-maps `count` pixels of 16-bit BT.2020 R'G'B' (PQ when `hdr` is 1,
/// HLG when 2) to 8-bit sRGB.
void shim_video_tonemap_rows(const uint16_t *wide, unsigned char *rgb, size_t count, int hdr);

#endif
