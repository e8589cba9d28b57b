// HEIF, HEIC and AVIF through libheif, for what libvips's heifload does not
// give thumbs: the embedded thumbnails (a 12 MP iPhone photo carries a
// 320 px one), and a colour profile for files that describe their colour by
// an nclx box instead of an ICC profile (libvips 8.14 reads only the latter).
// Every function reads the file through a shim_heif_input (bytes in memory,
// or thumbs' descriptor read by pread); nothing is kept between calls.
#ifndef CHEIFSHIM_H
#define CHEIFSHIM_H

#include <stddef.h>
#include <stdint.h>
#include "CVipsShim.h"

/// Where libheif reads a file from: `buf` (`len` bytes) when it is in
/// memory, else the descriptor `fd` of a file of `len` bytes, which libheif
/// reads through a heif_reader whose reads are `pread`s: the boxes it
/// parses and the coded data of the images it decodes, never the rest (a
/// motion photo's video, the mdat of images it does not decode). `fd` is
/// neither closed nor moved.
typedef struct {
    const void *buf;
    size_t len;
    int fd;
    /// The reader's position (the descriptor's own offset is not used).
    int64_t position;
    /// Bytes libheif has read through the descriptor so far: all it can
    /// hold of the file (what the tests measure).
    size_t bytes_read;
} shim_heif_input;

/// At most this many thumbnails are described by shim_heif_probe.
#define SHIM_HEIF_MAX_THUMBNAILS 4

/// The primary image and its thumbnails, sizes as displayed: libheif applies
/// each image's own rotation, mirroring and crop (irot, imir, clap) when it
/// decodes it, and reports sizes after them.
typedef struct {
    int width, height;
    int has_alpha;
    /// Bits per luma sample of the primary image (8, 10, 12), -1 unknown.
    int luma_bits;
    int thumbnail_count;
    int thumbnail_width[SHIM_HEIF_MAX_THUMBNAILS];
    int thumbnail_height[SHIM_HEIF_MAX_THUMBNAILS];
    /// The primary image carries an ICC profile.
    int has_icc;
    /// Its nclx box, or -1 each when it has none.
    int nclx_primaries, nclx_transfer;
    /// The primary image is a grid of coded images (a phone's tiles), not
    /// one picture: libheif 1.15 then pastes them into full-size planar RGB.
    int primary_grid;
} shim_heif_info;

/// Loads libheif if it is not yet (CLoadOnUse): 0, or -1 with the loader's
/// message in `error` ("libheif could not be loaded: …").
int shim_heif_library_load(char *error, size_t error_len);

/// Reads the file's boxes (no pixel is decoded). 0, or -1 with a message
/// in `error`.
int shim_heif_probe(shim_heif_input *input, shim_heif_info *info, char *error, size_t error_len);

/// Decodes thumbnail `index` (as listed by shim_heif_probe) of the primary
/// image into 8-bit RGB (RGBA with alpha) with `threads` decoding threads.
/// The colour profile that goes with it: the thumbnail's own ICC profile,
/// else the primary's, else one made from an nclx box (shim_heif_nclx_icc).
/// 0, or -1 with a message in `error`. Free with shim_jpeg_pixels_free.
int shim_heif_decode_thumbnail(shim_heif_input *input, int index, int threads, shim_jpeg_pixels *out,
                               char *error, size_t error_len);

/// Decodes the primary image into libheif's 8-bit planar RGB and resizes
/// each plane with Lanczos3 (resample.c) to `target_width` × `target_height`
/// (as displayed; the decoded size when 0 or not smaller both ways) before
/// the planes become one interleaved RGB image. libheif 1.15 assembles a
/// grid's tiles in planar RGB and converts every decode to it, so asking for
/// these planes costs no conversion, and no full-size interleaved copy is
/// made. The ICC profile goes with it as for a thumbnail. The HEVC images
/// (a grid's tiles) are decoded by `hevc_decoder`: SHIM_HEIF_HEVC_FFMPEG
/// (libavcodec, and libde265 again if that decode fails) or
/// SHIM_HEIF_HEVC_LIBDE265 (libheif's own). 0; -2 when the image is not
/// 8-bit or has alpha (the caller uses libvips); -1 with a message.
int shim_heif_decode_primary_reduced(shim_heif_input *input, int target_width, int target_height, int threads,
                                     int hevc_decoder, shim_jpeg_pixels *out, char *error, size_t error_len);

/// The HEVC decoders shim_heif_decode_primary_reduced can use.
/// SHIM_HEIF_HEVC_FFMPEG_FAILING is for tests: an FFmpeg plugin whose every
/// decode fails, as on a tile libavcodec refuses, so libde265's retry runs.
enum { SHIM_HEIF_HEVC_FFMPEG = 0, SHIM_HEIF_HEVC_LIBDE265 = 1, SHIM_HEIF_HEVC_FFMPEG_FAILING = 2 };

/// How many HEVC pictures (a grid's tiles, or single images) FFmpeg's
/// decoder has given libheif in this process so far: what shows that a
/// decode went through it.
unsigned long shim_heif_ffmpeg_pictures_decoded(void);

/// Rewrites `length` bytes of HEVC NAL units, each behind a 4-byte
/// big-endian length (as libheif hands them to a decoder plugin), into
/// Annex B in place: each length becomes the start code 00 00 00 01, which
/// FFmpeg's decoder reads. 0, or -1 when a length is 0 or runs past the end
/// (the bytes are then partly rewritten and not to be used).
int shim_hevc_length_prefixed_to_annexb(uint8_t *data, size_t length);

/// SHIM_HDR_PQ or SHIM_HDR_HLG (CVipsHDR.h) when an nclx transfer code
/// (shim_heif_info.nclx_transfer) names an HDR signal thumbs tone-maps, else 0.
int shim_heif_hdr_transfer(int transfer);

/// Decodes an HDR image, PQ or HLG by its nclx box (thumbnail `index`, or
/// the primary image when `index` < 0) into its R'G'B' signal, box-shrinks
/// it by the largest whole factor that keeps at least twice `need_width` ×
/// `need_height`, and tone-maps it to 8-bit sRGB (no profile goes with it).
/// 0; -2 when the image is not HDR; -1 with a message. Free with
/// shim_jpeg_pixels_free.
int shim_heif_decode_hdr(shim_heif_input *input, int index, int need_width, int need_height, int threads,
                         shim_jpeg_pixels *out, char *error, size_t error_len);

/// An ICC profile (malloc'd, in `*icc`) for the primary image's nclx colour
/// description, when it is not plain sRGB (Display P3, BT.2020…) and the
/// file carries no ICC profile. 1 when a profile was made, 0 when none is
/// needed, -1 when the file cannot be read.
int shim_heif_nclx_icc(shim_heif_input *input, unsigned char **icc, size_t *icc_length);

#endif
