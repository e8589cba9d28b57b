#ifndef CVIPS_COMPARE_H
#define CVIPS_COMPARE_H

#include <stddef.h>
#include <stdint.h>

/// How two thumbnails differ to the eye (image_compare.c), for
/// `thumbs verify --against`: SSIM on luma and the CIEDE2000 colour
/// difference, both on 8-bit sRGB pixels of the same size.

/// An image decoded by libvips to packed 8-bit sRGB (3 bands, rows of
/// width * 3 bytes). Free with shim_srgb8_free.
typedef struct {
    uint8_t *pixels;
    int width;
    int height;
} shim_srgb8;

/// Decodes an encoded image (any format libvips loads) to sRGB: an embedded
/// ICC profile is applied, other colour spaces are converted by libvips,
/// alpha is flattened over white. Returns 0, or -1 with libvips' error
/// buffer saying why.
int shim_decode_srgb8(const void *buf, size_t len, shim_srgb8 *out);

void shim_srgb8_free(shim_srgb8 *image);

typedef struct {
    /// Mean SSIM of the luma planes (Y' = 0.299 R + 0.587 G + 0.114 B, range
    /// 0..255), 11 x 11 Gaussian window of sigma 1.5, K1 0.01, K2 0.03, the
    /// population covariance, over the pixels at least 5 from the border
    /// (scikit-image's structural_similarity with gaussian_weights=True,
    /// sigma=1.5, use_sample_covariance=False, data_range=255). An image
    /// narrower or lower than 11 pixels gets one window over all of it.
    double ssim;
    /// Mean and 99th percentile (linear interpolation between ranks, as
    /// numpy's percentile) of the per-pixel CIEDE2000 difference (kL = kC =
    /// kH = 1), Lab from sRGB with the D65 white (as scikit-image's rgb2lab).
    double mean_delta_e;
    double p99_delta_e;
} shim_image_difference;

/// Compares two packed sRGB images of width x height. When `delta_e_map` is
/// not NULL it receives each pixel's CIEDE2000 difference (width * height
/// floats), for a heat map. Returns 0, or -1 for bad arguments or no memory.
int shim_compare_srgb8(const uint8_t *a, const uint8_t *b, int width, int height,
                       float *delta_e_map, shim_image_difference *out);

/// One PNG of baseline | new | heat map side by side, for `verify --diff`:
/// the heat map shows each pixel's ΔE from black (none) through red to
/// yellow (20 or more), over a dimmed grey copy of the new image. Returns 0
/// with the PNG in *png (free with g_free), or -1 (libvips' error buffer).
int shim_diff_strip_png(const uint8_t *baseline, const uint8_t *current, const float *delta_e_map,
                        int width, int height, void **png, size_t *png_len);

#endif
