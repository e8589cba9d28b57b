// C helpers for the tests only (not part of the product): files written and
// read through libvips, pixel means, the direct JPEG decode without a
// target, and entry points into CVipsShim's parsers of untrusted bytes with
// those bytes placed right before an unmapped page, so that a read past
// their end faults instead of passing unseen.
#ifndef CTHUMBSTESTSHIM_H
#define CTHUMBSTESTSHIM_H

#include <vips/vips.h>

#include "CVipsShim.h"

/// Saves to a file; options may follow the name, e.g. "a.jpg[Q=90]".
int shim_save_file(VipsImage *in, const char *path_and_options);

/// Opens a file (random access), header first; pixels decode on demand.
int shim_open_file(const char *path, VipsImage **out);

/// The mean of every pixel over all bands (vips_avg), which decodes the
/// whole image.
int shim_image_avg(VipsImage *in, double *out);

/// shim_jpeg_direct_decode_to without a target (0 x 0).
int shim_jpeg_direct_decode(const void *buf, size_t len, int shrink,
                            size_t max_bytes, shim_jpeg_pixels *out);

/// The Exif orientation parser of the direct JPEG path (jpeg_exif.c) run on
/// a copy of the `length` bytes of an APP1 payload that ends exactly where
/// a PROT_NONE page begins: any read past the payload kills the process
/// with SIGSEGV. Returns the orientation, or -1 when the pages cannot be
/// mapped.
int test_exif_orientation_guarded(const unsigned char *payload, size_t length);

#endif
