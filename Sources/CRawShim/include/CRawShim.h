#ifndef CRAWSHIM_H
#define CRAWSHIM_H

// Camera RAWs through LibRaw (raw_shim.cpp), from bytes in memory or from an
// open file read by ranges: what a RAW holds without decoding a pixel, and
// its development into 8-bit sRGB pixels. LibRaw is kept quiet (its data and memory error callbacks
// record the first message instead of printing it) and within a thread count.

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What LibRaw says of a RAW after opening it (no pixel decoded).
typedef struct {
    /// The photo's size as LibRaw develops it (after the camera's crop, a
    /// Fuji sensor turned, pixel aspect), before the flip: as stored.
    int width, height;
    /// The sensor data's size (what unpacking allocates, 2 bytes a pixel).
    int raw_width, raw_height;
    /// The flip as an EXIF orientation, 1 to 8.
    int orientation;
    char make[64], model[64];
    /// LibRaw's thumbnail: 0 none/unknown, 1 JPEG, 2 8-bit bitmap, 3 16-bit bitmap, 4 layer, 5 Rollei.
    int thumb_format;
    int thumb_width, thumb_height;
    /// Where the thumbnail's bytes are in the file (-1 if not known) and how many.
    long long thumb_offset;
    size_t thumb_length;
    /// Colours of the raw data (3 for a Bayer sensor as LibRaw counts them).
    int colors;
} shim_raw_facts;

/// Where LibRaw reads the RAW: `buf` (`len` bytes) when not NULL; else the
/// open file `fd` (`len` bytes, as fstat said), read with pread through a
/// small window and never closed here, so that a 25 MB RAW whose preview is
/// all thumbs needs is never held whole.
typedef struct {
    const void *buf;
    size_t len;
    int fd;
} shim_raw_input;

/// 8-bit pixels from a development: malloc'd, rows packed, `bands` 3 (RGB).
typedef struct {
    unsigned char *pixels;
    size_t width, height;
    int bands;
} shim_raw_image;

/// Opens the RAW and fills `facts`. 0, or LibRaw's error code with
/// a message in `message` (NUL-terminated, at most `message_length` bytes).
int shim_raw_facts_read(shim_raw_input input, shim_raw_facts *facts, char *message, size_t message_length);

/// Develops the RAW: camera white balance, sRGB, 8 bits, no flip applied
/// (the caller tags the orientation), at half size when `half_size`, using
/// at most `threads` OpenMP threads. Refuses sensor data over `max_raw_pixels`
/// before unpacking it. 0, or LibRaw's error code with a message.
int shim_raw_develop(shim_raw_input input, int half_size, int threads, long long max_raw_pixels,
                     shim_raw_image *out, char *message, size_t message_length);

#ifdef __cplusplus
}
#endif

#endif
