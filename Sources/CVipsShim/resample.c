/* Lanczos3 resampling of 8-bit pixels in memory.
 *
 * The filter is the usual separable one (as Pillow's and libvips' reduce):
 * each output sample is a weighted sum of the input samples within three
 * filter widths of its centre, the filter widened by the scale when
 * shrinking, the window cut at the image's edges and its weights
 * renormalised there. Weights are fixed point (14 bits) and sum to exactly
 * one, so a flat area stays flat.
 *
 * Both passes are vertical: the rows pass sums whole input rows into a row
 * of int32 accumulators, a loop the compiler vectorises. The columns pass
 * runs the same code on a transposed copy and transposes back, which costs
 * less than a horizontal pass's per-pixel gathers. The rows pass goes first,
 * so the transposes move the smaller intermediate image.
 */
#include "CVipsResample.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define WEIGHT_BITS 14
#define WEIGHT_ONE (1 << WEIGHT_BITS)
/* Lanczos3: the filter reaches 3 input samples either side at scale 1. */
#define LOBES 3.0

/* Which input samples make each output sample, and with what weights. */
typedef struct {
    int *first;        /* first input sample of output i */
    int *count;        /* how many input samples, from `first` on */
    int32_t *weights;  /* count[i] weights of output i, at i * stride */
    int stride;        /* the most taps any output has */
} taps;

static void taps_free(taps *t) {
    free(t->first);
    free(t->count);
    free(t->weights);
}

static double lanczos3(double x) {
    x = fabs(x);
    if (x < 1e-9)
        return 1.0;
    if (x >= LOBES)
        return 0.0;
    double px = M_PI * x;
    return LOBES * sin(px) * sin(px / LOBES) / (px * px);
}

/* The taps from the window [start, start + span) of in_size samples (in
 * input samples; it may reach past either edge, where the filter is cut
 * and renormalised as at any edge) to out_size; 0, or -1 without memory. */
static int taps_compute_window(taps *t, int in_size, double start, double span, int out_size) {
    double scale = span / out_size;
    double filter_scale = scale < 1.0 ? 1.0 : scale;
    double support = LOBES * filter_scale;
    int stride = (int) ceil(support) * 2 + 1;
    t->first = malloc(sizeof(int) * (size_t) out_size);
    t->count = malloc(sizeof(int) * (size_t) out_size);
    t->weights = malloc(sizeof(int32_t) * (size_t) out_size * (size_t) stride);
    t->stride = stride;
    double *exact = malloc(sizeof(double) * (size_t) stride);
    if (!t->first || !t->count || !t->weights || !exact) {
        free(exact);
        taps_free(t);
        return -1;
    }
    for (int i = 0; i < out_size; i++) {
        /* A centre past an edge (a window that reaches past it) is taken
         * at the edge: past it, the cut filter could keep only lobes that
         * sum to about zero, and renormalising them would blow the weights
         * up (and the 32-bit sums over). At the edge, the half of the
         * filter that is kept sums to about half. A whole-image window's
         * centres are all inside: the same taps as before. */
        double centre = start + (i + 0.5) * scale;
        if (centre < 0)
            centre = 0;
        if (centre > in_size)
            centre = in_size;
        int lo = (int) floor(centre - support + 0.5);
        int hi = (int) floor(centre + support + 0.5);
        if (lo < 0)
            lo = 0;
        if (hi > in_size)
            hi = in_size;
        if (hi - lo > stride)
            hi = lo + stride;
        if (hi <= lo) {
            /* Cannot happen for a centre inside the image; keep one tap. */
            lo = (int) centre < in_size ? (int) centre : in_size - 1;
            hi = lo + 1;
        }
        int n = hi - lo;
        double total = 0;
        for (int k = 0; k < n; k++) {
            exact[k] = lanczos3((lo + k - centre + 0.5) / filter_scale);
            total += exact[k];
        }
        int32_t *w = t->weights + (size_t) i * (size_t) stride;
        int32_t sum = 0;
        int largest = 0;
        for (int k = 0; k < n; k++) {
            w[k] = (int32_t) lrint(total != 0 ? exact[k] / total * WEIGHT_ONE : (k == 0 ? WEIGHT_ONE : 0));
            sum += w[k];
            if (w[k] > w[largest])
                largest = k;
        }
        /* The rounding error goes to the largest weight: they sum to one. */
        w[largest] += WEIGHT_ONE - sum;
        t->first[i] = lo;
        t->count[i] = n;
    }
    free(exact);
    return 0;
}

/* The taps from in_size samples to out_size: the window of them all. */
static int taps_compute(taps *t, int in_size, int out_size) {
    return taps_compute_window(t, in_size, 0, in_size, out_size);
}

/* The last taps each thread made, by sizes. A folder of photos of one size
 * asks for the same ones for every item (the thumbnail's, the 32x32 hash
 * source's), and each costs two sin() per weight: about 12,000 for
 * 500x375 -> 32x32. Callers get their own copy and free it as before; the
 * copy holds the same weights, so the same pixels. */
#define TAPS_CACHED 4
/* Larger taps (outputs x stride) are made afresh each time. */
#define TAPS_CACHE_MAX_WEIGHTS (64 * 1024)

typedef struct {
    int in_size, out_size;
    taps t;
} cached_taps;

typedef struct {
    cached_taps entries[TAPS_CACHED];
    int next;
} taps_cache;

static pthread_key_t taps_cache_key;
static pthread_once_t taps_cache_once = PTHREAD_ONCE_INIT;

static void taps_cache_free(void *p) {
    taps_cache *cache = p;
    for (int i = 0; i < TAPS_CACHED; i++)
        taps_free(&cache->entries[i].t);
    free(cache);
}

static void taps_cache_key_make(void) {
    (void) pthread_key_create(&taps_cache_key, taps_cache_free);
}

static taps_cache *taps_cache_get(void) {
    pthread_once(&taps_cache_once, taps_cache_key_make);
    taps_cache *cache = pthread_getspecific(taps_cache_key);
    if (!cache && (cache = calloc(1, sizeof *cache)) && pthread_setspecific(taps_cache_key, cache)) {
        free(cache);
        cache = NULL;
    }
    return cache;
}

static int taps_copy(taps *to, const taps *from, int out_size) {
    to->stride = from->stride;
    to->first = malloc(sizeof(int) * (size_t) out_size);
    to->count = malloc(sizeof(int) * (size_t) out_size);
    to->weights = malloc(sizeof(int32_t) * (size_t) out_size * (size_t) from->stride);
    if (!to->first || !to->count || !to->weights) {
        taps_free(to);
        *to = (taps) {0};
        return -1;
    }
    memcpy(to->first, from->first, sizeof(int) * (size_t) out_size);
    memcpy(to->count, from->count, sizeof(int) * (size_t) out_size);
    memcpy(to->weights, from->weights, sizeof(int32_t) * (size_t) out_size * (size_t) from->stride);
    return 0;
}

/* The taps from in_size samples to out_size (taps_compute's), from this
 * thread's cache when it has them; 0, or -1 without memory. */
static int taps_make(taps *t, int in_size, int out_size) {
    taps_cache *cache = taps_cache_get();
    if (cache) {
        for (int i = 0; i < TAPS_CACHED; i++) {
            cached_taps *e = &cache->entries[i];
            if (e->t.weights && e->in_size == in_size && e->out_size == out_size)
                return taps_copy(t, &e->t, out_size);
        }
    }
    if (taps_compute(t, in_size, out_size))
        return -1;
    if (cache && (size_t) out_size * (size_t) t->stride <= TAPS_CACHE_MAX_WEIGHTS) {
        cached_taps *e = &cache->entries[cache->next];
        taps_free(&e->t);
        e->t = (taps) {0};
        if (taps_copy(&e->t, t, out_size) == 0) {
            e->in_size = in_size;
            e->out_size = out_size;
            cache->next = (cache->next + 1) % TAPS_CACHED;
        }
    }
    return 0;
}

static inline uint8_t clamp_u8(int32_t v) {
    return v < 0 ? 0 : v > 255 ? 255 : (uint8_t) v;
}

/* Whether a weight fits 16 bits: a shrink's weights are at most one
 * (WEIGHT_ONE, 2^14) but for the renormalised ones at the edges. */
static inline int fits_i16(int32_t w) {
    return w >= INT16_MIN && w <= INT16_MAX;
}

/* AVX2 doubles the speed of the passes; the baseline x86-64 build cannot
 * assume it, so the hot loops are compiled twice and picked at load time. */
#if defined(__x86_64__) && defined(__clang__) && defined(__ELF__)
#define HOT_LOOP __attribute__((target_clones("avx2", "default")))
#else
#define HOT_LOOP
#endif

/* acc += w0 * r0 + w1 * r1, for weights that fit 16 bits: the compiler
 * then multiplies with pmaddwd (one uop) instead of pmulld (two; SSE2 has
 * none), 1.3x on this loop. The products and sums are the same whole
 * numbers as rows_pass's 32-bit loop, so the same pixels. A function of
 * its own (clones are called, not inlined): inlined, the optimiser proves
 * the two loops equal and keeps the slower one. */
HOT_LOOP static void
add_rows_i16(int32_t *restrict acc, const uint8_t *restrict r0, const uint8_t *restrict r1,
             int16_t w0, int16_t w1, size_t n) {
    for (size_t x = 0; x < n; x++)
        acc[x] += (int32_t) w0 * (int32_t) r0[x] + (int32_t) w1 * (int32_t) r1[x];
}

/* Rows pass: out row j = the weighted sum of input rows first[j]…, each
 * `row_bytes` long. `acc` holds row_bytes int32. */
HOT_LOOP static void rows_pass(const uint8_t *restrict in, size_t row_bytes,
                      uint8_t *restrict out, int out_rows, const taps *t,
                      int32_t *restrict acc) {
    for (int j = 0; j < out_rows; j++) {
        const int32_t *w = t->weights + (size_t) j * (size_t) t->stride;
        const uint8_t *src = in + (size_t) t->first[j] * row_bytes;
        for (size_t x = 0; x < row_bytes; x++)
            acc[x] = WEIGHT_ONE / 2;
        int k = 0;
        /* Two rows at a time: half the passes over the accumulators. */
        for (; k + 1 < t->count[j]; k += 2) {
            const int32_t w0 = w[k], w1 = w[k + 1];
            const uint8_t *restrict r0 = src + (size_t) k * row_bytes;
            const uint8_t *restrict r1 = r0 + row_bytes;
            if (fits_i16(w0) && fits_i16(w1)) {
                add_rows_i16(acc, r0, r1, (int16_t) w0, (int16_t) w1, row_bytes);
            } else {
                for (size_t x = 0; x < row_bytes; x++)
                    acc[x] += w0 * r0[x] + w1 * r1[x];
            }
        }
        if (k < t->count[j]) {
            const int32_t w0 = w[k];
            const uint8_t *restrict r0 = src + (size_t) k * row_bytes;
            for (size_t x = 0; x < row_bytes; x++)
                acc[x] += w0 * r0[x];
        }
        uint8_t *dst = out + (size_t) j * row_bytes;
        for (size_t x = 0; x < row_bytes; x++)
            dst[x] = clamp_u8(acc[x] >> WEIGHT_BITS);
    }
}

/* out (h wide, w tall) = in (w wide, h tall) transposed, pixel by pixel,
 * in tiles that stay in cache. */
static inline __attribute__((always_inline)) void
transpose_bands(const uint8_t *restrict in, int w, int h, uint8_t *restrict out, const int bands) {
    enum { TILE = 32 };
    for (int y0 = 0; y0 < h; y0 += TILE) {
        int y1 = y0 + TILE < h ? y0 + TILE : h;
        for (int x0 = 0; x0 < w; x0 += TILE) {
            int x1 = x0 + TILE < w ? x0 + TILE : w;
            for (int x = x0; x < x1; x++) {
                uint8_t *d = out + ((size_t) x * (size_t) h + (size_t) y0) * (size_t) bands;
                const uint8_t *s = in + ((size_t) y0 * (size_t) w + (size_t) x) * (size_t) bands;
                for (int y = y0; y < y1; y++) {
                    for (int c = 0; c < bands; c++)
                        d[c] = s[c];
                    d += bands;
                    s += (size_t) w * (size_t) bands;
                }
            }
        }
    }
}

HOT_LOOP static void transpose(const uint8_t *in, int w, int h, int bands, uint8_t *out) {
    switch (bands) {
    case 1: transpose_bands(in, w, h, out, 1); break;
    case 2: transpose_bands(in, w, h, out, 2); break;
    case 3: transpose_bands(in, w, h, out, 3); break;
    default: transpose_bands(in, w, h, out, 4); break;
    }
}

/* Output rows made at a time. The passes work on strips of this many rows,
 * so their scratch is a few hundred kilobytes that malloc reuses from image
 * to image, not whole intermediate images (4.6 MB each for 2000x1500 ->
 * 1024x768) that the allocator maps and the kernel zero-fills every time. */
#define STRIP_ROWS 64

/* `t` from output sample `from` on: the same arrays, offset. */
static taps taps_from(const taps *t, int from) {
    taps view = *t;
    view.first += from;
    view.count += from;
    view.weights += (size_t) from * (size_t) t->stride;
    return view;
}

/* Both passes of shim_resample_u8 and shim_resample_window_u8, with the
 * caller's taps; a side whose taps are NULL keeps every input sample as it
 * is, and its pass is left out. */
static int resample_passes(const uint8_t *in, int in_w, int in_h, int bands, uint8_t *out, int out_w,
                           int out_h, const taps *rows, const taps *columns) {
    const size_t b = (size_t) bands;
    if (!rows && !columns) {
        memcpy(out, in, (size_t) in_w * (size_t) in_h * b);
        return 0;
    }
    int status = -1;
    const int strip = out_h < STRIP_ROWS ? out_h : STRIP_ROWS;
    uint8_t *tall = NULL, *turned = NULL, *narrowed = NULL;
    /* Accumulators for the longer of the two passes' rows. */
    size_t acc_len = (size_t) (in_w > strip ? in_w : strip) * b;
    int32_t *acc = malloc(sizeof(int32_t) * acc_len);
    if (!acc)
        goto done;
    if (!columns) {
        /* Rows only, straight into `out`. */
        rows_pass(in, (size_t) in_w * b, out, out_h, rows, acc);
        status = 0;
        goto done;
    }
    /* Per strip of output rows: the rows pass gives in_w x n, a transpose
     * n x in_w, the rows pass over that n x out_w, and a transpose back
     * puts out_w x n in place in `out`. The same sums in the same order
     * as whole-image passes, so the same pixels. */
    tall = malloc((size_t) in_w * (size_t) strip * b);
    turned = malloc((size_t) in_w * (size_t) strip * b);
    narrowed = malloc((size_t) out_w * (size_t) strip * b);
    if (!tall || !turned || !narrowed)
        goto done;
    for (int r0 = 0; r0 < out_h; r0 += strip) {
        int n = out_h - r0 < strip ? out_h - r0 : strip;
        const uint8_t *source = in;
        if (rows) {
            taps part = taps_from(rows, r0);
            rows_pass(in, (size_t) in_w * b, tall, n, &part, acc);
        } else {
            source = in + (size_t) r0 * (size_t) in_w * b;
        }
        transpose(rows ? tall : source, in_w, n, bands, turned);
        rows_pass(turned, (size_t) n * b, narrowed, out_w, columns, acc);
        transpose(narrowed, n, out_w, bands, out + (size_t) r0 * (size_t) out_w * b);
    }
    status = 0;

done:
    free(acc);
    free(tall);
    free(turned);
    free(narrowed);
    return status;
}

int shim_resample_u8(const uint8_t *in, int in_w, int in_h, int bands,
                     uint8_t *out, int out_w, int out_h) {
    if (!in || !out || bands < 1 || bands > 4 || in_w < 1 || in_h < 1 || out_w < 1 ||
        out_h < 1 || out_w > in_w || out_h > in_h)
        return -1;
    int status = -1;
    taps rows = {0}, columns = {0};
    if ((out_h != in_h && taps_make(&rows, in_h, out_h)) || (out_w != in_w && taps_make(&columns, in_w, out_w)))
        goto done;
    status = resample_passes(in, in_w, in_h, bands, out, out_w, out_h, out_h != in_h ? &rows : NULL,
                             out_w != in_w ? &columns : NULL);
done:
    taps_free(&rows);
    taps_free(&columns);
    return status;
}

/* A window at most this many times the image's side on each side of it:
 * a registration moves a picture by a few per cent, not by its size. */
#define WINDOW_REACH 1.0

int shim_resample_window_u8(const uint8_t *in, int in_w, int in_h, int bands, double x0, double y0,
                            double x1, double y1, uint8_t *out, int out_w, int out_h) {
    if (!in || !out || bands < 1 || bands > 4 || in_w < 1 || in_h < 1 || out_w < 1 || out_h < 1 ||
        out_w > 2 * in_w || out_h > 2 * in_h)
        return -1;
    if (!isfinite(x0) || !isfinite(y0) || !isfinite(x1) || !isfinite(y1) || x1 - x0 < 1 || y1 - y0 < 1 ||
        x0 < -WINDOW_REACH * in_w || y0 < -WINDOW_REACH * in_h || x1 > (1 + WINDOW_REACH) * in_w ||
        y1 > (1 + WINDOW_REACH) * in_h)
        return -1;
    int status = -1;
    taps rows = {0}, columns = {0};
    if (taps_compute_window(&rows, in_h, y0, y1 - y0, out_h) || taps_compute_window(&columns, in_w, x0, x1 - x0, out_w))
        goto done;
    status = resample_passes(in, in_w, in_h, bands, out, out_w, out_h, &rows, &columns);
done:
    taps_free(&rows);
    taps_free(&columns);
    return status;
}

static void free_pixels(VipsImage *image, void *pixels) {
    (void) image;
    g_free(pixels);
}

/* Copies one metadata item (not the header fields vips_image_map also lists). */
static void *copy_meta(VipsImage *from, const char *name, GValue *value, void *to) {
    if (from->meta && g_hash_table_contains(from->meta, name))
        vips_image_set((VipsImage *) to, name, value);
    return NULL;
}

int shim_image_in_memory(const VipsImage *image) {
    return (image->dtype == VIPS_IMAGE_SETBUF || image->dtype == VIPS_IMAGE_SETBUF_FOREIGN) && image->data;
}

VipsImage *shim_image_over_pixels(VipsImage *like, uint8_t *pixels, int width, int height) {
    size_t bytes = (size_t) width * (size_t) height * (size_t) like->Bands;
    VipsImage *image = vips_image_new_from_memory(pixels, bytes, width, height, like->Bands, VIPS_FORMAT_UCHAR);
    if (!image) {
        g_free(pixels);
        return NULL;
    }
    g_signal_connect(image, "postclose", G_CALLBACK(free_pixels), pixels);
    image->Type = like->Type;
    image->Xres = like->Xres;
    image->Yres = like->Yres;
    vips_image_map(like, copy_meta, image);
    return image;
}

int shim_resample_image(VipsImage *in, VipsImage **out, int out_w, int out_h) {
    if (in->Coding != VIPS_CODING_NONE || in->BandFmt != VIPS_FORMAT_UCHAR ||
        (in->Bands != 1 && in->Bands != 3))
        return 1;
    if (out_w < 1 || out_h < 1 || out_w > in->Xsize || out_h > in->Ysize)
        return 1;
    if (!shim_image_in_memory(in))
        return 1;
    size_t bytes = (size_t) out_w * (size_t) out_h * (size_t) in->Bands;
    uint8_t *pixels = g_try_malloc(bytes);
    if (!pixels) {
        vips_error("resample", "out of memory for a %d×%d image", out_w, out_h);
        return -1;
    }
    if (shim_resample_u8((const uint8_t *) in->data, in->Xsize, in->Ysize, in->Bands,
                         pixels, out_w, out_h)) {
        g_free(pixels);
        vips_error("resample", "out of memory resizing %d×%d to %d×%d", in->Xsize, in->Ysize, out_w, out_h);
        return -1;
    }
    VipsImage *image = shim_image_over_pixels(in, pixels, out_w, out_h);
    if (!image)
        return -1;
    *out = image;
    return 0;
}

/* ---------------------------------------------------------------------------
 * Streaming (resample_stream.h): the same strips as shim_resample_u8, each
 * made as soon as the input rows it reads have arrived. The rows are kept
 * in a buffer of the most any strip reads; when it is full, the rows no
 * strip still needs are dropped from its front. Same sums, same pixels.
 */
#include "resample_stream.h"

struct resample_stream {
    int in_w, in_h, out_w, out_h, bands, strip;
    size_t row_bytes;
    uint8_t *out;
    taps rows, columns;
    uint8_t *ring;  /* input rows base ... base + held - 1 */
    int cap, base, held;
    uint8_t *tall, *turned, *narrowed;
    int32_t *acc;
    int r0;         /* the next strip's first output row */
    int first[STRIP_ROWS];
};

/* One past the last input row that the strip from output row r0 reads. */
static int strip_end(const taps *rows, int r0, int n) {
    int end = 0;
    for (int i = r0; i < r0 + n; i++)
        if (rows->first[i] + rows->count[i] > end)
            end = rows->first[i] + rows->count[i];
    return end;
}

/* The most input rows one strip reads. */
static int strip_span(const taps *rows, int out_h, int strip) {
    int span = 1;
    for (int r0 = 0; r0 < out_h; r0 += strip) {
        int n = out_h - r0 < strip ? out_h - r0 : strip;
        int rows_read = strip_end(rows, r0, n) - rows->first[r0];
        if (rows_read > span)
            span = rows_read;
    }
    return span;
}

static int stream_args_ok(int in_w, int in_h, int bands, int out_w, int out_h) {
    return bands >= 1 && bands <= 4 && out_w >= 1 && out_h >= 1 && out_w < in_w && out_h < in_h;
}

size_t resample_stream_bytes(int in_w, int in_h, int bands, int out_w, int out_h) {
    if (!stream_args_ok(in_w, in_h, bands, out_w, out_h))
        return 0;
    taps rows = {0}, columns = {0};
    if (taps_make(&rows, in_h, out_h) || taps_make(&columns, in_w, out_w)) {
        taps_free(&rows);
        return 0;
    }
    const size_t b = (size_t) bands;
    const int strip = out_h < STRIP_ROWS ? out_h : STRIP_ROWS;
    size_t total = (size_t) strip_span(&rows, out_h, strip) * (size_t) in_w * b;
    total += 2 * (size_t) in_w * (size_t) strip * b + (size_t) out_w * (size_t) strip * b;
    total += sizeof(int32_t) * (size_t) (in_w > strip ? in_w : strip) * b;
    total += (size_t) out_h * (2 * sizeof(int) + sizeof(int32_t) * (size_t) rows.stride);
    total += (size_t) out_w * (2 * sizeof(int) + sizeof(int32_t) * (size_t) columns.stride);
    total += sizeof(resample_stream);
    taps_free(&rows);
    taps_free(&columns);
    return total;
}

void resample_stream_free(resample_stream *s) {
    if (!s)
        return;
    taps_free(&s->rows);
    taps_free(&s->columns);
    free(s->ring);
    free(s->tall);
    free(s->turned);
    free(s->narrowed);
    free(s->acc);
    free(s);
}

resample_stream *resample_stream_new(int in_w, int in_h, int bands, uint8_t *out, int out_w, int out_h) {
    if (!out || !stream_args_ok(in_w, in_h, bands, out_w, out_h))
        return NULL;
    resample_stream *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    const size_t b = (size_t) bands;
    s->in_w = in_w;
    s->in_h = in_h;
    s->out_w = out_w;
    s->out_h = out_h;
    s->bands = bands;
    s->out = out;
    s->row_bytes = (size_t) in_w * b;
    s->strip = out_h < STRIP_ROWS ? out_h : STRIP_ROWS;
    if (taps_make(&s->rows, in_h, out_h) || taps_make(&s->columns, in_w, out_w)) {
        resample_stream_free(s);
        return NULL;
    }
    s->cap = strip_span(&s->rows, out_h, s->strip);
    s->ring = malloc((size_t) s->cap * s->row_bytes);
    s->tall = malloc((size_t) in_w * (size_t) s->strip * b);
    s->turned = malloc((size_t) in_w * (size_t) s->strip * b);
    s->narrowed = malloc((size_t) out_w * (size_t) s->strip * b);
    s->acc = malloc(sizeof(int32_t) * (size_t) (in_w > s->strip ? in_w : s->strip) * b);
    if (!s->ring || !s->tall || !s->turned || !s->narrowed || !s->acc) {
        resample_stream_free(s);
        return NULL;
    }
    return s;
}

uint8_t *resample_stream_row(resample_stream *s) {
    if (s->held == s->cap) {
        /* The strip waiting reads fewer than `cap` rows and needs one not
         * yet here, so it starts past `base`: drop the rows before it (all
         * of them once every strip is made). */
        int drop = s->r0 < s->out_h ? s->rows.first[s->r0] - s->base : s->held;
        memmove(s->ring, s->ring + (size_t) drop * s->row_bytes, (size_t) (s->held - drop) * s->row_bytes);
        s->base += drop;
        s->held -= drop;
    }
    return s->ring + (size_t) s->held * s->row_bytes;
}

void resample_stream_push(resample_stream *s) {
    s->held++;
    const size_t b = (size_t) s->bands;
    while (s->r0 < s->out_h) {
        int n = s->out_h - s->r0 < s->strip ? s->out_h - s->r0 : s->strip;
        if (strip_end(&s->rows, s->r0, n) > s->base + s->held)
            return;
        taps part = taps_from(&s->rows, s->r0);
        for (int i = 0; i < n; i++)
            s->first[i] = part.first[i] - s->base;
        part.first = s->first;
        rows_pass(s->ring, s->row_bytes, s->tall, n, &part, s->acc);
        transpose(s->tall, s->in_w, n, s->bands, s->turned);
        rows_pass(s->turned, (size_t) n * b, s->narrowed, s->out_w, &s->columns, s->acc);
        transpose(s->narrowed, n, s->out_w, s->bands, s->out + (size_t) s->r0 * (size_t) s->out_w * b);
        s->r0 += n;
    }
}

int resample_stream_done(const resample_stream *s) {
    return s->r0 == s->out_h;
}
