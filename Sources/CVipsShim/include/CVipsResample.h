#ifndef CVIPS_RESAMPLE_H
#define CVIPS_RESAMPLE_H

#include <stddef.h>
#include <stdint.h>
#include <vips/vips.h>

/// Lanczos3 resampling of 8-bit pixels held in memory (resample.c).
///
/// libvips' reduce runs without liborc here (see VipsRuntime) and costs more
/// than the JPEG decode at --size 1024. Both passes of this one are vertical
/// (the horizontal one runs on a transposed copy), so each is a plain loop
/// over contiguous bytes that the compiler vectorises.

/// Resizes interleaved 8-bit pixels (`bands` of 1 to 4, rows packed) from
/// in_w × in_h to exactly out_w × out_h, downscaling or keeping each side
/// (never enlarging). Returns 0, or -1 for bad arguments or no memory.
int shim_resample_u8(const uint8_t *in, int in_w, int in_h, int bands,
                     uint8_t *out, int out_w, int out_h);

/// The window [x0, x1) × [y0, y1) of interleaved 8-bit pixels (in input
/// pixels, fractional, reaching at most the image's own size past an edge;
/// past one, the filter is cut and renormalised as at any edge) resampled
/// to exactly out_w × out_h (at most twice in_w × in_h). Both passes always
/// run; the window of the whole image gives shim_resample_u8's pixels.
/// Undoes a camera preview's known crop (JPEGPreviewCrops). Returns 0, or
/// -1 for bad arguments or no memory.
int shim_resample_window_u8(const uint8_t *in, int in_w, int in_h, int bands, double x0, double y0,
                            double x1, double y1, uint8_t *out, int out_w, int out_h);

/// Whether `image`'s pixels are held in one buffer of its own (band-packed
/// rows at `image->data`), so that C code may read them without running a
/// libvips pipeline: what resample.c, jpeg_encode.c and the in-memory
/// autorot take.
int shim_image_in_memory(const VipsImage *image);

/// A new image over `pixels` (width × height, like's bands, 8-bit, a
/// g_malloc'd buffer it frees when it closes), with `like`'s
/// interpretation, resolution and metadata. NULL on failure, with the
/// pixels freed.
VipsImage *shim_image_over_pixels(VipsImage *like, uint8_t *pixels, int width, int height);

/// `in` resized to out_w × out_h by shim_resample_u8, with its metadata
/// (profile, orientation, resolution, interpretation) carried over.
/// Returns 1, touching nothing, when the fast path does not apply: not an
/// uncoded 8-bit image of 1 or 3 bands held in memory, or a side that would
/// grow. Returns 0 on success and -1 on failure (libvips' error buffer says
/// why).
int shim_resample_image(VipsImage *in, VipsImage **out, int out_w, int out_h);

#endif
