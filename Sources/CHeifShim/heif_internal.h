// What the HEIF decodes of CHeifShim share (heif_thumbnail.c, heif_hdr.c).
#ifndef HEIF_INTERNAL_H
#define HEIF_INTERNAL_H

#include "CHeifShim.h"
#include "heif_library.h"

/// Has libheif read `ctx` from `input` (heif_input.c). `input` must
/// outlive the context: libheif reads the coded data through it as it
/// decodes.
struct heif_error heif_read_input(struct heif_context *ctx, shim_heif_input *input);

/// `what: libheif's message` into `error`.
void heif_say(char *error, size_t error_len, const char *what, struct heif_error err);

/// The context and primary image handle of `input`, for a decode: `out`
/// emptied, libheif given `threads`. 0, or -1 with a message.
int heif_open_for_decode(shim_heif_input *input, int threads, shim_jpeg_pixels *out,
                         struct heif_context **ctx, struct heif_image_handle **primary,
                         char *error, size_t error_len);

/// Thumbnail `index` of `primary` (as shim_heif_probe lists them) in
/// `*thumb`, to release. 0, or -1 with a message.
int heif_thumbnail_handle(const struct heif_image_handle *primary, int index, struct heif_image_handle **thumb,
                          char *error, size_t error_len);

/// Hands `pixels` (packed, `bands` of 8 bits, upright) and `icc` to `out`.
void heif_fill_pixels(shim_jpeg_pixels *out, unsigned char *pixels, int width, int height, int bands,
                      unsigned char *icc, size_t icc_length);

/// The raw ICC profile of `handle`, malloc'd, or NULL.
unsigned char *heif_raw_icc(const struct heif_image_handle *handle, size_t *length);

/// An ICC profile made from the nclx box of `handle` (not plain sRGB), or NULL.
unsigned char *heif_nclx_icc(const struct heif_image_handle *handle, size_t *length);

/// The largest whole factor that keeps a `width` × `height` image at least
/// twice `need_width` × `need_height`: the final Lanczos step makes the
/// exact size from there, as libvips's shrink + reduce. At least 1.
int heif_shrink_factor(int width, int height, int need_width, int need_height);

/// How the primary image of `input` turns, read from its boxes (meta,
/// pitm, iprp): the angle of its irot property (0, 90, 180 or 270,
/// counter-clockwise; 0 without one), or -1 when it also mirrors (imir) or
/// crops (clap), or its boxes cannot be read that far: libheif then applies
/// the transformations itself (heif_input.c).
int heif_primary_rotation(shim_heif_input *input);

/// Whether the primary image of `input` is a grid of coded images (a
/// phone's tiles), read from its boxes (pitm, iinf): 1, 0, or -1 when they
/// cannot be read that far (heif_input.c).
int heif_primary_is_grid(shim_heif_input *input);

#endif
