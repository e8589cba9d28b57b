// Tone mapping of HDR pixels (PQ or HLG) to SDR sRGB, shared by the video
// poster frames (CVideoShim) and HEIF/AVIF stills (CHeifShim).
#ifndef CVIPSHDR_H
#define CVIPSHDR_H

#include <stddef.h>
#include <stdint.h>

/// Transfer functions thumbs tone-maps (their H.273 codes are 16 and 18).
#define SHIM_HDR_PQ 1
#define SHIM_HDR_HLG 2

/// Colour primaries, by their H.273 codes; any other is taken as BT.2020.
#define SHIM_HDR_PRIMARIES_BT709 1
#define SHIM_HDR_PRIMARIES_BT2020 9
#define SHIM_HDR_PRIMARIES_P3 12

/// Tone-maps `count` pixels of 16-bit R'G'B' (full scale 65535; PQ when
/// `transfer` is SHIM_HDR_PQ, HLG when SHIM_HDR_HLG) in `primaries` to
/// 8-bit sRGB.
void shim_hdr_tonemap_rows(const uint16_t *wide, unsigned char *rgb, size_t count, int transfer, int primaries);

/// Tone-maps one linear BT.2020 pixel (1.0 = 203 nits, reference white) to
/// 8-bit sRGB; exposed for the tests.
void shim_hdr_tonemap_linear(const double rgb2020[3], unsigned char out[3]);

/// The PQ and HLG signal to display light in nits (HLG: 1000-nit display),
/// per channel; exposed for the tests.
void shim_hdr_pq_to_nits(const double signal[3], double nits[3]);
void shim_hdr_hlg_to_nits(const double signal[3], double nits[3]);

#endif
