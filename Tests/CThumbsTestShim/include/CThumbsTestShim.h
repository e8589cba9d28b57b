// C helpers for the tests only (not part of the product): files written and
// read through libvips, pixel means, the direct JPEG decode without a
// target, and entry points into CVipsShim's parsers of untrusted bytes with
// those bytes placed right before an unmapped page, so that a read past
// their end faults instead of passing unseen.
#ifndef CTHUMBSTESTSHIM_H
#define CTHUMBSTESTSHIM_H

#include <vips/vips.h>

#include "CVipsShim.h"
#include "CVipsEmbeddedPictures.h"

/// Saves to a file; options may follow the name, e.g. "a.jpg[Q=90]".
int shim_save_file(VipsImage *in, const char *path_and_options);

/// libvips' own autorot (the reference for shim_autorot's in-memory turn).
int test_vips_autorot(VipsImage *in, VipsImage **out);

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

/// The embedded-picture parser (embedded_pictures.c: the JPEG listing, or
/// the TIFF one when `tiff`) on a copy of `length` bytes that ends exactly
/// where a PROT_NONE page begins, then each listed picture probed again
/// from a copy of exactly its bytes so placed: any read past them kills the
/// process with SIGSEGV. Returns the parser's status, or -2 when the pages
/// cannot be mapped.
int test_embedded_pictures_guarded(const unsigned char *bytes, size_t length, uint64_t file_size, int tiff,
                                   shim_embedded_listing *out);

/// Writes a HEIC (HEVC, quality 90) of `rgb` (`width` × `height`, 8-bit
/// RGB, as stored) with libheif's encoder, stored turned by EXIF-style
/// `orientation` (irot/imir boxes; 1 for none). With `thumb_rgb`, a
/// `thumb_width` × `thumb_height` thumbnail with its own
/// `thumb_orientation` is attached to it. `nclx_p3`: colour described by an
/// nclx box as Display P3 (primaries 12, sRGB transfer) instead of nothing.
/// 0, or -1.
int test_write_heic(const char *path, const unsigned char *rgb, int width, int height, int orientation,
                    const unsigned char *thumb_rgb, int thumb_width, int thumb_height, int thumb_orientation,
                    int nclx_p3);

/// Writes an HDR HEIC (HEVC 4:4:4, or AVIF with `avif`; quality 95) of
/// `rgb10` (`width` × `height`, three 10-bit R'G'B' values 0…1023 a pixel)
/// with an nclx box naming H.273 `primaries` and `transfer` (16 PQ, 18
/// HLG), BT.2020 matrix, full range. With `thumb_rgb10`, a `thumb_width` ×
/// `thumb_height` thumbnail in the same colour is attached. 0, or -1.
int test_write_hdr_heif(const char *path, const uint16_t *rgb10, int width, int height, int primaries,
                        int transfer, int avif, const uint16_t *thumb_rgb10, int thumb_width, int thumb_height);

// MARK: - verify --against: the changes a baseline must catch (visual_changes.c)

/// Saves packed 8-bit RGB pixels to `path_and_options` (`a.jpg[Q=80,strip]`). 0, or -1.
int test_write_rgb8(const char *path_and_options, const unsigned char *rgb, int width, int height);

/// libvips' own thumbnail of `source` (vips_thumbnail, `width` x `height`,
/// centre crop when `crop`), saved to `path_and_options`. 0, or -1.
int test_vips_thumbnail(const char *source, const char *path_and_options, int width, int height, int crop);

/// `source` (sRGB) converted to Display P3 (primaries of DCI-P3, D65
/// white, the sRGB curve; profile made by lcms2), saved as a JPEG at
/// quality 95 with the P3 profile embedded, or, when `keep_profile` is 0,
/// without it: the P3 numbers then read as sRGB (colour management lost).
int test_write_display_p3(const char *source, const char *path, int keep_profile);

#endif
