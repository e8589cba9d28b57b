#include "CVipsShim.h"
#include <string.h>
#include <malloc.h>
#include <errno.h>
#include <unistd.h>
#include <vips/vector.h>

int shim_init(const char *argv0) {
    return VIPS_INIT(argv0);
}

void shim_cache_off(void) {
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
}

static void drop_log(const gchar *domain, GLogLevelFlags level,
                     const gchar *message, gpointer user_data) {
    (void) domain; (void) level; (void) message; (void) user_data;
}

void shim_quiet_warnings(void) {
    /* Damaged images make libvips print "error in tile" warnings through
     * glib; thumbs reports each failure itself, once, as a readable line. */
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO,
                      drop_log, NULL);
}

int shim_header_from_buffer(const void *buf, size_t len, int fail_on,
                            VipsImage **out, const char **loader) {
    const char *name = vips_foreign_find_load_buffer(buf, len);
    if (!name && shim_modules_load())
        name = vips_foreign_find_load_buffer(buf, len);
    if (!name)
        return -1;
    /* find_load gives the class name (VipsForeignLoadJpegBuffer); callers
     * want the operation's nickname (jpegload_buffer). */
    const char *nick = vips_nickname_find(g_type_from_name(name));
    *loader = nick ? nick : name;
    *out = vips_image_new_from_buffer(buf, len, "",
                                      "access", VIPS_ACCESS_SEQUENTIAL,
                                      "fail_on", fail_on,
                                      NULL);
    return *out ? 0 : -1;
}

static int is_loader(const char *loader, const char *prefix) {
    return loader && strncmp(loader, prefix, strlen(prefix)) == 0;
}

/* How a loader shrinks on load: JPEG by an integer "shrink", WebP, SVG and
 * PDF by a "scale"; any other loader not at all. The one rule for a buffer
 * and a source alike. */
typedef enum { LOAD_PLAIN, LOAD_SHRINK, LOAD_SCALE } load_reduction;

static load_reduction reduction_of(const char *loader, int jpeg_shrink, double scale) {
    if (jpeg_shrink > 1 && is_loader(loader, "jpegload"))
        return LOAD_SHRINK;
    if (scale != 1.0 && (is_loader(loader, "webpload") || is_loader(loader, "svgload") ||
                         is_loader(loader, "pdfload")))
        return LOAD_SCALE;
    return LOAD_PLAIN;
}

int shim_load_from_buffer(const void *buf, size_t len, const char *loader,
                          int jpeg_shrink, double scale, int fail_on,
                          VipsImage **out) {
    switch (reduction_of(loader, jpeg_shrink, scale)) {
    case LOAD_SHRINK:
        *out = vips_image_new_from_buffer(buf, len, "", "access", VIPS_ACCESS_SEQUENTIAL,
                                          "fail_on", fail_on, "shrink", jpeg_shrink, NULL);
        break;
    case LOAD_SCALE:
        *out = vips_image_new_from_buffer(buf, len, "", "access", VIPS_ACCESS_SEQUENTIAL,
                                          "fail_on", fail_on, "scale", scale, NULL);
        break;
    default:
        *out = vips_image_new_from_buffer(buf, len, "", "access", VIPS_ACCESS_SEQUENTIAL,
                                          "fail_on", fail_on, NULL);
    }
    return *out ? 0 : -1;
}

/* The position of one source's reads, served by pread on thumbs' own
 * descriptor: libvips reads and seeks, the file offset is never touched. */
typedef struct {
    int fd;
    gint64 position;
    gint64 size;
} descriptor_reader;

static gint64 descriptor_read(VipsSourceCustom *custom, void *buffer, gint64 length,
                              descriptor_reader *reader) {
    (void) custom;
    if (length <= 0 || reader->position >= reader->size)
        return 0;
    ssize_t n;
    do
        n = pread(reader->fd, buffer, (size_t) length, (off_t) reader->position);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return -1;
    reader->position += n;
    return n;
}

static gint64 descriptor_seek(VipsSourceCustom *custom, gint64 offset, int whence,
                              descriptor_reader *reader) {
    (void) custom;
    gint64 base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? reader->position
                : whence == SEEK_END ? reader->size : -1;
    if (base < 0 || base + offset < 0)
        return -1;
    reader->position = base + offset;
    return reader->position;
}

VipsSource *shim_source_from_descriptor(int fd, gint64 size) {
    VipsSourceCustom *custom = vips_source_custom_new();
    if (!custom)
        return NULL;
    descriptor_reader *reader = g_new0(descriptor_reader, 1);
    reader->fd = fd;
    reader->size = size;
    /* Freed with the source. */
    g_object_set_data_full(G_OBJECT(custom), "thumbs-reader", reader, g_free);
    g_signal_connect(custom, "read", G_CALLBACK(descriptor_read), reader);
    g_signal_connect(custom, "seek", G_CALLBACK(descriptor_seek), reader);
    return VIPS_SOURCE(custom);
}

int shim_source_has_loader(VipsSource *source) {
    if (vips_foreign_find_load_source(source))
        return 1;
    return shim_modules_load() && vips_foreign_find_load_source(source) ? 1 : 0;
}

int shim_header_from_source(VipsSource *source, int fail_on, VipsImage **out, const char **loader) {
    *out = NULL;
    *loader = NULL;
    const char *name = vips_foreign_find_load_source(source);
    if (!name && shim_modules_load())
        name = vips_foreign_find_load_source(source);
    if (!name)
        return -1;
    const char *nick = vips_nickname_find(g_type_from_name(name));
    *loader = nick ? nick : name;
    *out = vips_image_new_from_source(source, "",
                                      "access", VIPS_ACCESS_SEQUENTIAL,
                                      "fail_on", fail_on,
                                      NULL);
    return *out ? 0 : -1;
}

int shim_load_from_source(VipsSource *source, const char *loader, int jpeg_shrink, double scale,
                          int fail_on, VipsImage **out) {
    switch (reduction_of(loader, jpeg_shrink, scale)) {
    case LOAD_SHRINK:
        *out = vips_image_new_from_source(source, "", "access", VIPS_ACCESS_SEQUENTIAL,
                                          "fail_on", fail_on, "shrink", jpeg_shrink, NULL);
        break;
    case LOAD_SCALE:
        *out = vips_image_new_from_source(source, "", "access", VIPS_ACCESS_SEQUENTIAL,
                                          "fail_on", fail_on, "scale", scale, NULL);
        break;
    default:
        *out = vips_image_new_from_source(source, "", "access", VIPS_ACCESS_SEQUENTIAL,
                                          "fail_on", fail_on, NULL);
    }
    return *out ? 0 : -1;
}

int shim_resize(VipsImage *in, VipsImage **out, double hscale, double vscale) {
    return vips_resize(in, out, hscale, "vscale", vscale,
                       "kernel", VIPS_KERNEL_LANCZOS3, NULL);
}

int shim_icc_to_srgb(VipsImage *in, VipsImage **out, int is_cmyk) {
    return vips_icc_transform(in, out, "srgb",
                              "input_profile", is_cmyk ? "cmyk" : "srgb",
                              "embedded", TRUE,
                              "intent", VIPS_INTENT_RELATIVE,
                              "depth", 8,
                              NULL);
}

int shim_colourspace(VipsImage *in, VipsImage **out, VipsInterpretation space) {
    return vips_colourspace(in, out, space, NULL);
}

int shim_cast(VipsImage *in, VipsImage **out, VipsBandFormat format, int shift) {
    return vips_cast(in, out, format, "shift", shift ? TRUE : FALSE, NULL);
}

int shim_flatten(VipsImage *in, VipsImage **out, double background) {
    VipsArrayDouble *bg = vips_array_double_newv(1, background);
    int result = vips_flatten(in, out, "background", bg, NULL);
    vips_area_unref(VIPS_AREA(bg));
    return result;
}

int shim_premultiply(VipsImage *in, VipsImage **out) {
    return vips_premultiply(in, out, NULL);
}

int shim_unpremultiply(VipsImage *in, VipsImage **out) {
    return vips_unpremultiply(in, out, NULL);
}

/* autorot of an 8-bit image held in memory (a thumbnail-sized rendition),
 * done here: vips_autorot's result is a lazy image, and writing or keeping
 * it runs libvips' sink threads (about 0.3 ms an item). The same pixels,
 * the same metadata without the orientation, the same resolution, as
 * vips_autorot gives (ShimAutorotTests). Returns 1 for an
 * image it leaves to libvips. */
static int turn_in_memory(VipsImage *in, int orientation, VipsImage **out) {
    if (in->Coding != VIPS_CODING_NONE || in->BandFmt != VIPS_FORMAT_UCHAR || in->Bands < 1 || in->Bands > 4)
        return 1;
    if (!shim_image_in_memory(in))
        return 1;
    if (orientation < 2 || orientation > 8)
        return 1;
    const int W = in->Xsize, H = in->Ysize, b = in->Bands;
    const int swap = orientation >= 5;
    const int ow = swap ? H : W, oh = swap ? W : H;
    size_t bytes = (size_t) W * (size_t) H * (size_t) b;
    uint8_t *pixels = g_try_malloc(bytes);
    if (!pixels) {
        vips_error("autorot", "out of memory for a %d×%d image", ow, oh);
        return -1;
    }
    const uint8_t *src = (const uint8_t *) in->data;
    for (int y = 0; y < oh; y++) {
        uint8_t *row = pixels + (size_t) y * ow * b;
        for (int x = 0; x < ow; x++) {
            /* The stored pixel shown at (x, y). */
            int sx, sy;
            switch (orientation) {
            case 2: sx = W - 1 - x; sy = y; break;
            case 3: sx = W - 1 - x; sy = H - 1 - y; break;
            case 4: sx = x; sy = H - 1 - y; break;
            case 5: sx = y; sy = x; break;
            case 6: sx = y; sy = H - 1 - x; break;
            case 7: sx = W - 1 - y; sy = H - 1 - x; break;
            default: sx = W - 1 - y; sy = x; break; /* 8 */
            }
            memcpy(row + (size_t) x * b, src + ((size_t) sy * W + sx) * b, (size_t) b);
        }
    }
    /* vips_autorot keeps the resolution as it was, turned or not. */
    VipsImage *image = shim_image_over_pixels(in, pixels, ow, oh);
    if (!image)
        return -1;
    /* What vips_autorot removes: the orientation, and Exif's copy of it. */
    vips_image_remove(image, VIPS_META_ORIENTATION);
    vips_image_remove(image, "exif-ifd0-Orientation");
    *out = image;
    return 0;
}

int shim_autorot(VipsImage *in, VipsImage **out) {
    int turned = turn_in_memory(in, vips_image_get_orientation(in), out);
    if (turned <= 0)
        return turned;
    return vips_autorot(in, out, NULL);
}

int shim_smartcrop(VipsImage *in, VipsImage **out, int width, int height,
                   int interesting) {
    return vips_smartcrop(in, out, width, height, "interesting", interesting, NULL);
}

int shim_extract_area(VipsImage *in, VipsImage **out, int left, int top,
                      int width, int height) {
    return vips_extract_area(in, out, left, top, width, height, NULL);
}

int shim_extract_band(VipsImage *in, VipsImage **out, int first, int n) {
    return vips_extract_band(in, out, first, "n", n, NULL);
}

int shim_copy(VipsImage *in, VipsImage **out) {
    return vips_copy(in, out, NULL);
}

const void *shim_image_memory(VipsImage *image, size_t *length) {
    *length = 0;
    if (!shim_image_in_memory(image))
        return NULL;
    *length = VIPS_IMAGE_SIZEOF_IMAGE(image);
    return image->data;
}

int shim_jpegsave(VipsImage *in, void **buf, size_t *len, int quality, int strip) {
    return vips_jpegsave_buffer(in, buf, len, "Q", quality, "strip", strip ? TRUE : FALSE, NULL);
}

int shim_webpsave(VipsImage *in, void **buf, size_t *len, int quality, int strip) {
    return vips_webpsave_buffer(in, buf, len, "Q", quality, "strip", strip ? TRUE : FALSE, NULL);
}

int shim_avifsave(VipsImage *in, void **buf, size_t *len, int quality, int strip) {
    shim_modules_load(); /* heifsave is vips-heif's */
    return vips_heifsave_buffer(in, buf, len, "Q", quality,
                                "compression", VIPS_FOREIGN_HEIF_COMPRESSION_AV1,
                                "strip", strip ? TRUE : FALSE, NULL);
}

int shim_pngsave(VipsImage *in, void **buf, size_t *len, int strip) {
    return vips_pngsave_buffer(in, buf, len, "strip", strip ? TRUE : FALSE, NULL);
}

void shim_free(void *buf) {
    g_free(buf);
}

void shim_unref(VipsImage *image) {
    if (image)
        g_object_unref(image);
}

void shim_malloc_trim(void) {
    malloc_trim(0);
}

void shim_malloc_map_above(size_t bytes) {
    mallopt(M_MMAP_THRESHOLD, (int) bytes);
}

void shim_malloc_keep_top(size_t bytes) {
    mallopt(M_TRIM_THRESHOLD, (int) bytes);
}

void shim_vector_set_enabled(int enabled) {
    vips_vector_set_enabled(enabled ? TRUE : FALSE);
}
