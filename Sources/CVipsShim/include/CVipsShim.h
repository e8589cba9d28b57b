// Thin, non-variadic wrappers around the libvips calls that Swift cannot make
// directly: variadic operations with optional arguments, and macros.
// Every function returns 0 on success and -1 on failure, leaving the reason in
// the libvips error buffer (read it with vips_error_buffer_copy).
#ifndef CVIPSSHIM_H
#define CVIPSSHIM_H

#include <stdint.h>
#include <vips/vips.h>

#include "CVipsResample.h"
#include "CVipsICCFacts.h"
#include "CVipsCompare.h"
#include "CVipsEmbeddedPictures.h"

/// vips_init() through the VIPS_INIT macro. Call once per process.
int shim_init(const char *argv0);

/// Turns the libvips operation cache off: in a batch every file is new, so the
/// cache (keyed on file names and arguments) only holds memory.
void shim_cache_off(void);

/// Silences libvips warnings printed through glib (failures are reported
/// by thumbs itself).
void shim_quiet_warnings(void);

/// Blocks (or unblocks) every loader that libvips marks untrusted, and those
/// of modules loaded later (vips_modules.c).
void shim_block_untrusted(int block);

/// Before shim_init: makes vips_init() leave libvips' loadable modules
/// (HEIF, JPEG XL, ImageMagick, PDF, OpenSlide) for shim_modules_load.
/// Returns 1 when it did; 0 (modules loaded at init, as libvips does) when
/// VIPSHOME is set or the module directory is not beside libvips.
int shim_modules_defer(void);

/// Loads the deferred modules, once per process (any thread; later callers
/// wait for the first). Returns 1 when modules were deferred, so that a
/// lookup that failed before may succeed now; 0 when libvips loaded them.
int shim_modules_load(void);

/// Opens an image from memory, reading only its header (sequential access).
/// `fail_on` is a VipsFailOn value. `loader` receives the loader's nickname
/// (e.g. "jpegload_buffer"); it points into libvips's type system and lives
/// for the whole process.
int shim_header_from_buffer(const void *buf, size_t len, int fail_on,
                            VipsImage **out, const char **loader);

/// Opens an image from memory for decoding. `jpeg_shrink` (1, 2, 4, 8) asks a
/// JPEG loader to decode at reduced size; `scale` (1.0 for none) asks WebP,
/// SVG and PDF loaders to render at a scale. Multi-page formats load their
/// first page.
int shim_load_from_buffer(const void *buf, size_t len, const char *loader,
                          int jpeg_shrink, double scale, int fail_on,
                          VipsImage **out);

/// A libvips source whose reads and seeks are `pread`s on `fd` (thumbs'
/// own descriptor, held open by SourceFile for as long as the image lives):
/// libvips reads a file by ranges and never maps it (a mapped file that is
/// truncated kills the process with SIGBUS). Unref it when done.
VipsSource *shim_source_from_descriptor(int fd, gint64 size);

/// 1 when one of libvips' loaders reads the source's format from a source.
int shim_source_has_loader(VipsSource *source);

/// shim_header_from_buffer over a source: the loader's nickname (e.g.
/// "tiffload_source"), or -1 with *loader NULL when no loader reads it
/// from a source.
int shim_header_from_source(VipsSource *source, int fail_on, VipsImage **out, const char **loader);

/// shim_load_from_buffer over a source.
int shim_load_from_source(VipsSource *source, const char *loader, int jpeg_shrink, double scale,
                          int fail_on, VipsImage **out);

/// Resizes with Lanczos3 by separate horizontal and vertical factors.
int shim_resize(VipsImage *in, VipsImage **out, double hscale, double vscale);

/// Imports with the embedded profile (or the built-in fallback for CMYK) and
/// exports to sRGB, 8 bit.
int shim_icc_to_srgb(VipsImage *in, VipsImage **out, int is_cmyk);

/// Converts to the given interpretation (e.g. VIPS_INTERPRETATION_sRGB).
int shim_colourspace(VipsImage *in, VipsImage **out, VipsInterpretation space);

/// Casts to another band format, shifting 16-bit values down when asked.
int shim_cast(VipsImage *in, VipsImage **out, VipsBandFormat format, int shift);

/// Flattens alpha against a grey level (255 for white).
int shim_flatten(VipsImage *in, VipsImage **out, double background);

int shim_premultiply(VipsImage *in, VipsImage **out);
int shim_unpremultiply(VipsImage *in, VipsImage **out);

/// Applies the EXIF orientation and removes the tag.
int shim_autorot(VipsImage *in, VipsImage **out);

/// Crops to width x height; `interesting` is a VipsInteresting value.
int shim_smartcrop(VipsImage *in, VipsImage **out, int width, int height,
                   int interesting);

/// Plain crop.
int shim_extract_area(VipsImage *in, VipsImage **out, int left, int top,
                      int width, int height);

/// Takes bands [first, first + n).
int shim_extract_band(VipsImage *in, VipsImage **out, int first, int n);

/// Copies the image so that metadata may be changed safely.
int shim_copy(VipsImage *in, VipsImage **out);

/// The pixels of an image already held in one buffer (`*length` bytes,
/// band-packed rows), or NULL for one that is not (a lazy pipeline), which
/// reading would have to compute through libvips' sink.
const void *shim_image_memory(VipsImage *image, size_t *length);

/// Savers writing to memory. `strip` drops metadata.
int shim_jpegsave(VipsImage *in, void **buf, size_t *len, int quality, int strip);
int shim_webpsave(VipsImage *in, void **buf, size_t *len, int quality, int strip);
int shim_avifsave(VipsImage *in, void **buf, size_t *len, int quality, int strip);
int shim_pngsave(VipsImage *in, void **buf, size_t *len, int strip);

/// The placeholders' box reduction of a W×H image of `bands` 8-bit bands to
/// w×h (box_reduce.c): each output pixel the rounded (half up) mean of the
/// source pixels that land on it, colour weighted by alpha. `out` holds
/// w·h·3 bytes (RGB), or w·h·4 (RGBA) when `bands` is 2 or 4. 0, or -1
/// for bad arguments (W < w, H < h, H > 2^24) or no memory.
int shim_box_reduce(const uint8_t *src, int W, int H, int bands, int w, int h, uint8_t *out);

/// What shim_jpeg_encode_memory returns for an image it leaves to libvips.
#define SHIM_JPEG_ENCODE_NOT_MINE 1

/// The JPEG of an 8-bit sRGB (3 bands) or grey (1 band) image held in
/// memory, encoded by libjpeg as jpegsave with "strip" would (same bytes),
/// without libvips' sink threads (jpeg_encode.c). 0: `*buf` (free() it)
/// holds `*len` bytes; SHIM_JPEG_ENCODE_NOT_MINE: save it with libvips;
/// -1: failed, `message` says why.
int shim_jpeg_encode_memory(VipsImage *in, int quality, unsigned char **buf, size_t *len,
                            char *message, size_t message_size);

/// Frees a buffer returned by a saver.
void shim_free(void *buf);

/// Drops a reference (g_object_unref, a macro-like call Swift sees untyped).
void shim_unref(VipsImage *image);

/// glibc's malloc_trim(0): returns free heap pages to the system (not
/// exported to Swift by the Glibc module).
void shim_malloc_trim(void);

/// glibc's mallopt(M_MMAP_THRESHOLD, bytes): blocks of `bytes` or more get
/// their own mapping, returned to the system the moment they are freed.
void shim_malloc_map_above(size_t bytes);

/// mallopt(M_TRIM_THRESHOLD): free memory at the top of a heap is handed
/// back to the system only past `bytes`.
void shim_malloc_keep_top(size_t bytes);

/// Turns libvips's liborc vectorisation on or off (vips/vector.h is not part
/// of the umbrella header).
void shim_vector_set_enabled(int enabled);

/// Direct JPEG decoding through libjpeg, for 8-bit RGB/YCbCr and greyscale
/// files (see jpeg_direct.c for why). Both return 0 on success and -1 when
/// the direct path does not apply (CMYK, 12-bit, any libjpeg error, any
/// libjpeg warning but one about bytes after a picture already whole,
/// over budget); the caller then uses libvips's loader. Neither touches
/// the libvips error buffer.
///
/// A JPEG header as the probe reads it.
typedef struct {
    /// Stored size (before orientation).
    int width, height;
    /// EXIF orientation, 1 when absent or invalid.
    int orientation;
    /// 1 for a progressive file.
    int progressive;
    /// 1 (grey) or 3 (YCbCr or RGB).
    int components;
    /// 1 when the frame allows the DC-only decode at 1/8 (8-bit Huffman,
    /// luma at full sampling); its scans may still make it fall back.
    int dc_capable;
    /// What libjpeg holds to decode the file at 1/2, 1/4 or 1/1 when it must
    /// buffer the whole image's coefficients (progressive, or a sequential
    /// file in several scans): 128 bytes a block, blocks padded to whole
    /// MCUs per component. 0 when libjpeg streams the file.
    size_t coefficient_bytes;
    /// What the compact progressive decode (jpeg_prog.c) holds at 1/2 and
    /// at 1/4: the coefficients its reduced IDCT reads, a bit for each
    /// other one, and the output. 0 when its frame rules do not take the file.
    size_t compact_bytes_half, compact_bytes_quarter;
    /// The same at 1/1, where it decodes a band of rows at a time: a bit
    /// for every coefficient while it parses, then two bands of
    /// coefficients and the output.
    size_t compact_bytes_full;
} shim_jpeg_header;

/// Fills `header`; 0, or -1 when the direct path does not take the file.
int shim_jpeg_direct_probe(const void *buf, size_t len, shim_jpeg_header *header);

/// Decoded pixels (8-bit grey or RGB, rows packed) and what travels with
/// them. Plain memory, no libvips object: it may move between threads.
typedef struct {
    unsigned char *pixels;
    size_t width, height;
    int bands;
    double xres, yres;
    int orientation;
    unsigned char *icc;
    size_t icc_length;
    /// Which decode made the pixels: 0 libjpeg's scaled decode, 1 the DC
    /// decode of a baseline file, 2 the DC decode of a progressive file,
    /// 3 the compact decode of a progressive file at 1/1, 1/2 or 1/4
    /// (jpeg_prog.c).
    int decoder;
} shim_jpeg_pixels;

/// The JPEG paths of shim_jpeg_direct_decode_path: which one is Swift's
/// choice (JPEGPathRule), made once there and never again here.
enum {
    /// DC coefficients only, at 1/8 (jpeg_dc.c; baseline or progressive).
    SHIM_JPEG_PATH_DC = 1,
    /// A progressive file's compact decode at 1/1, 1/2 or 1/4 (jpeg_prog.c).
    SHIM_JPEG_PATH_COMPACT = 3,
    /// libjpeg itself, scaled on load.
    SHIM_JPEG_PATH_LIBJPEG = 4,
};

/// Decodes at 1/`shrink` (1, 2, 4 or 8) on `path` alone (SHIM_JPEG_PATH_…):
/// a path that cannot take the file fails, and the caller decides what comes
/// next. Fails when the decode would take
/// more than `max_bytes`: the pixels, plus the whole image's coefficients
/// when libjpeg must buffer them (see coefficient_bytes). Free the result with
/// shim_jpeg_pixels_free (also after shim_jpeg_pixels_image).
///
/// With a target (0 x 0 for none), a progressive file decoded by
/// jpeg_prog.c (1/1, 1/2, 1/4) comes out already resized to target_w ×
/// target_h (Lanczos3, resample.c; both sides smaller than the decoded
/// size): its rows stream into the resize, so the decoded image is never
/// held whole. Every other decode ignores the target; the caller looks at
/// the size it got.
int shim_jpeg_direct_decode_path(const void *buf, size_t len, int path, int shrink, int target_w, int target_h,
                                 size_t max_bytes, shim_jpeg_pixels *out);

/// What shim_jpeg_direct_decode_path holds at its peak for a progressive file
/// at 1/`shrink` streamed to target_w × target_h; 0 when jpeg_prog.c does
/// not take the file that way.
size_t shim_jpeg_streamed_bytes(const void *buf, size_t len, int shrink, int target_w, int target_h);

/// A libvips memory image of the pixels, with the orientation and ICC
/// profile attached. The image takes the pixels over (they are freed when
/// it closes); NULL if they were taken already.
VipsImage *shim_jpeg_pixels_image(shim_jpeg_pixels *decoded);

/// Frees what the decode allocated and the image did not take.
void shim_jpeg_pixels_free(shim_jpeg_pixels *decoded);

/// Replaces `decoded`'s pixels with the window [x0, x1) × [y0, y1) of them
/// resampled to their own size (shim_resample_window_u8): a camera
/// preview's known crop undone (JPEGPreviewCrops). Returns 0, or -1 with
/// the pixels left as they were (a window refused, no memory).
int shim_jpeg_pixels_resample_window(shim_jpeg_pixels *decoded, double x0, double y0, double x1, double y1);

// MARK: - Colour profiles: cached ICC -> sRGB transform (icc_fast.c)

/// Transforms 8-bit interleaved pixels in place from the colour space of the
/// ICC profile `icc` to sRGB, rendering intent relative colorimetric (as
/// shim_icc_to_srgb). `bands`: 3 (RGB) or 4 (RGB + alpha, the alpha left as
/// is) for an RGB profile; 1 or 2 (grey, grey + alpha) for a grey profile,
/// whose output is grey with the sRGB curve (libvips's B_W). Rows are packed
/// (`width * bands` bytes each). The transform is built once per distinct
/// profile and band count and cached (16 entries, process-wide, thread-safe).
/// Returns 0, or -1 when lcms2 cannot open the profile, the profile does not
/// match the bands (e.g. CMYK), or it is a device link or abstract profile;
/// the pixels are then untouched and the caller keeps the libvips path.
/// Never touches the libvips error buffer.
/// 1 when shim_icc_to_srgb8 can transform pixels of `bands` bands with this
/// profile, else 0: builds (and caches) the transform without any pixels,
/// so that a caller renders its image only when it will be transformed.
int shim_icc_srgb8_available(const void *icc, size_t icc_length, int bands);

int shim_icc_to_srgb8(unsigned char *pixels, size_t width, size_t height, int bands,
                      const void *icc, size_t icc_length);

#endif
