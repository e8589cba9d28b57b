/* Progressive JPEGs at 1/2 and 1/4 scale in a third of libjpeg's memory,
 * and at 1/1 in about a tenth.
 *
 * libjpeg decodes a progressive file by buffering every coefficient of the
 * image (64 16-bit values a block, 72 MB for a 12 MP 4:4:4 photo) until the
 * last scan, then running its reduced IDCT, which at 1/2 and 1/4 reads only
 * low frequencies. This decoder keeps, per block, only the low 4x4
 * coefficients, plus one bit per coefficient saying whether it is nonzero
 * (an AC refinement scan's syntax depends on that): 32 + 8 = 40 bytes a
 * block at 1/2 and 1/4 (all 64 + 8 for chroma that libjpeg decodes with an
 * 8x8 IDCT). The pixels are made a block row at a time from those, so the
 * peak is the kept coefficients and the output image.
 *
 * At 1/1 every coefficient is needed, so it decodes in two passes instead
 * (the "banded" decode). The first parses every scan keeping only the
 * nonzero bits (8 bytes a block) and notes, at the first row of each band
 * of 32 pixel rows, where each scan's decode stands: bit position, EOB
 * run, DC predictions, restart count (pg_cursor), with the scan's tables.
 * The second replays every scan over one band at a time, from those
 * cursors, into two bands of coefficients (the band being rendered and the
 * next, which upsampling reads into). Each scan is Huffman-decoded twice;
 * a 12 MP 4:4:4 photo holds 4.5 MB, then 1.5 MB, instead of 72 MB.
 *
 * With a target size, the rows go straight into resample.c's Lanczos3
 * (resample_stream.h) as they are made, so not even the decoded image is
 * held whole: only the input rows the next strip of output reads.
 *
 * What it matches in libjpeg(-turbo), so both paths give close pixels:
 *  - The scans (jdphuff.c): DC first with point transform, DC refinement,
 *    AC first with EOB runs, AC refinement (G.1.2), restart intervals, and
 *    tables or restart interval redefined between scans.
 *  - Quantisation tables latched at a component's first scan (jdinput.c).
 *  - The IDCT size of each component (jdmaster.c): chroma that is sampled
 *    more coarsely gets a larger IDCT instead of upsampling where the ratio
 *    allows (4:2:0 chroma: 8x8 at 1/2, 4x4 at 1/4), so the planes have
 *    libjpeg's sizes and the same upsampling is left: "fancy" h2v1 (4:2:2),
 *    h1v2 (4:4:0) and h2v2 (4:2:0 at 1/1), bit for bit (jdsample.c).
 *  - The reduced IDCT: libjpeg's 4x4 and 2x2 IDCTs (jidctred.c) equal the
 *    mean of each 2x2 or 4x4 group of the full 8x8 IDCT's pixels (the
 *    frequencies they skip average to zero over a group). This decoder
 *    computes that mean from the low 4x4 coefficients only, in floating
 *    point; it leaves out the high frequencies' aliased share (coefficients
 *    5 to 7 at 1/2, 5 and 7 at 1/4), which is small in photos: mean
 *    difference 0.23 (1/2) and 0.09 (1/4) levels on 12 MP photos, up to
 *    3.5 on noise. Kept at 8x8, the same code gives libjpeg's pixels within
 *    0.03 levels on average, for every sampling below.
 *  - YCbCr -> RGB with jdcolor.c's fixed-point arithmetic.
 *
 * Anything doubtful returns -1 and the caller takes libjpeg: a bad Huffman
 * code or table, data ending early, a missing or misnumbered RSTn, bytes
 * between a scan's data and the next marker, a scan breaking the
 * progression rules (those libjpeg errors or warns about), a component twice
 * in one scan, a component without complete DC, a file whose first nine AC
 * coefficients are not all complete (libjpeg would then smooth the blocks),
 * unknown or misplaced markers, sampling other than the above (and luma
 * sampled below chroma), or more memory than `max_bytes`.
 */
#include "jpeg_prog.h"
#include "jpeg_scan.h"
#include "resample_stream.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef PG_FUZZ_RELEASE
#include <sanitizer/asan_interface.h>
#endif

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* The frame, the markers between scans, the progression checks, Huffman
 * tables and the bit reader are the scan layer this decoder shares with
 * jpeg_dc.c (jpeg_scan.h). */

/* ---------------------------------------------------------------------------
 * Huffman tables
 */

typedef struct {
    js_huff base;
    /* AC tables: a whole coefficient (code and magnitude bits within JS_LOOK
     * bits) at once: value << 16 | run << 8 | bits taken; 0 when it does not
     * fit or is no coefficient (EOBn, ZRL). */
    int32_t fast[1 << JS_LOOK];
} pg_huff;

/* Validates `table` (js_build_huff; DC symbols 0...15 when `dc`) and fills
 * `h`. Returns 0 or -1. */
static int build_huff(const js_raw_huff *table, pg_huff *h, int dc) {
    if (js_build_huff(table, &h->base, dc))
        return -1;
    for (uint32_t j = 0; j < (1u << JS_LOOK); j++) {
        uint16_t e = h->base.look[j];
        int l = e >> 8, r = (e & 0xFF) >> 4, size = e & 15;
        h->fast[j] = 0;
        if (!e || dc || size == 0 || l + size > JS_LOOK)
            continue;
        int32_t m = (int32_t) (j >> (JS_LOOK - l - size)) & ((1 << size) - 1);
        if (m < (1 << (size - 1)))
            m += (int32_t) (~0u << size) + 1;
        h->fast[j] = (int32_t) ((uint32_t) m << 16 | (uint32_t) (r << 8 | (l + size)));
    }
    return 0;
}

/* ---------------------------------------------------------------------------
 * State
 */

/* What this decoder keeps of a component besides its geometry (`g`). */
typedef struct {
    const js_component *g; /* sampling, block grid, progression (the frame's) */
    int n;             /* IDCT size: samples per block side */
    int k;             /* coefficients kept per side (k x k, the low frequencies) */
    int rh, rv;        /* upsampling ratios, 1 or 2 */
    size_t dw, dh;     /* samples holding the image (libjpeg's downsampled size) */
    int16_t *coef;     /* n x n kept coefficients per block, natural order */
    size_t coef_bytes; /* its mapping's length (coef_map); 0 when not mapped */
    size_t nn;         /* coefficients a block in `coef` (k x k; 0 while parsing) */
    uint64_t *nz;      /* per block: bit k (zigzag) set when coefficient k != 0 */
    size_t window;     /* block rows `coef` and `nz` hold: row r at r % window */
    size_t band_rows;  /* block rows a band (the banded decode at 1/1) */
    int8_t slot[64];   /* zigzag k -> index among the kept coefficients, or -1 */
    uint64_t kept;     /* bit k set when slot[k] >= 0 */
    int latched;
    uint16_t q[64];    /* quantisers (natural order) as of the first scan */
} pg_component;

typedef struct {
    js_frame f;        /* the frame and its progression */
    js_stream s;       /* the tables as last defined, the restart interval */
    int shrink;
    pg_component comp[JS_MAX_COMPONENTS];
    pg_huff *derived; /* DC 0...3, AC 0...3 */
    int banded;        /* 1/1: two passes, a band of coefficients at a time */
    size_t band_mcus;  /* MCU rows a band */
    size_t bands;
} pg_state;

enum { SCAN_DC_FIRST, SCAN_DC_REFINE, SCAN_AC_FIRST, SCAN_AC_REFINE };

/* Coefficients kept per block side for an n x n IDCT: the low 4 x 4 at
 * least. A 2-point IDCT needs only frequencies 0 and 1, but libjpeg's
 * (the mean of 4x4 pixel groups) also takes in 3, 5 and 7; keeping 2 and 3
 * brings it from 1.6 to 0.25 levels of mean difference at 1/4 on a
 * detailed photo, for 24 bytes more a block. */
static int keep_side(int n) {
    return n < 4 ? 4 : n;
}

/* The frame (js_frame_init) under this decoder's rules. Returns 0 or -1. */
static int setup_frame(pg_state *st, j_decompress_ptr cinfo, int shrink) {
    if (!cinfo->progressive_mode || (shrink != 1 && shrink != 2 && shrink != 4))
        return -1;
    if (cinfo->num_components == 1 && cinfo->jpeg_color_space != JCS_GRAYSCALE)
        return -1;
    if (js_frame_init(&st->f, cinfo))
        return -1;
    const js_frame *f = &st->f;
    st->shrink = shrink;
    /* Bands of 32 pixel rows (at 1/1, where every coefficient is kept). */
    st->banded = shrink == 1;
    st->band_mcus = f->vmax >= 4 ? 1 : (size_t) (4 / f->vmax);
    st->bands = (f->mcuy + st->band_mcus - 1) / st->band_mcus;
    int n0 = DCTSIZE / shrink;
    for (int c = 0; c < f->nc; c++) {
        pg_component *comp = &st->comp[c];
        const js_component *g = &f->comp[c];
        comp->g = g;
        /* Luma sampled below chroma: libjpeg's larger luma IDCT draws on
         * coefficients 5 to 7 of blocks that span twice the pixels, so
         * leaving them out shows (mean 2.7 levels at 1/4): libjpeg's. */
        if (c == 0 && f->ycc && (g->h != f->hmax || g->v != f->vmax))
            return -1;
        /* jdmaster.c: a larger IDCT instead of upsampling where it divides. */
        int n = n0;
        while (n < DCTSIZE && (f->hmax * n0) % (g->h * n * 2) == 0 &&
               (f->vmax * n0) % (g->v * n * 2) == 0)
            n *= 2;
        comp->n = n;
        comp->k = keep_side(n);
        if ((f->hmax * n0) % (g->h * n) || (f->vmax * n0) % (g->v * n))
            return -1;
        comp->rh = f->hmax * n0 / (g->h * n);
        comp->rv = f->vmax * n0 / (g->v * n);
        /* Only the upsamplings copied from libjpeg: none, h2v1, h1v2, h2v2. */
        if (comp->rh > 2 || comp->rv > 2)
            return -1;
        comp->nn = (size_t) keep_side(n) * (size_t) keep_side(n);
        comp->band_rows = st->band_mcus * (size_t) g->v;
        comp->window = st->banded ? 2 * comp->band_rows : g->ph;
        size_t den_h = (size_t) f->hmax * DCTSIZE, den_v = (size_t) f->vmax * DCTSIZE;
        comp->dw = (f->width * (size_t) g->h * (size_t) n + den_h - 1) / den_h;
        comp->dh = (f->height * (size_t) g->v * (size_t) n + den_v - 1) / den_v;
        comp->kept = 0;
        for (int k = 0; k < DCTSIZE2; k++) {
            int pos = js_natural_order[k], row = pos >> 3, col = pos & 7;
            comp->slot[k] = (int8_t) (row < comp->k && col < comp->k ? row * comp->k + col : -1);
            if (comp->slot[k] >= 0)
                comp->kept |= (uint64_t) 1 << k;
        }
        comp->latched = 0;
        comp->coef = NULL;
        comp->coef_bytes = 0;
        comp->nz = NULL;
    }
    return 0;
}

/* ---------------------------------------------------------------------------
 * Scans
 */

/* Validates a scan (jdphuff.c's errors and warnings), updates the
 * progression, latches quantisers and builds the Huffman tables. Returns
 * the scan's kind or -1. */
static int prepare_scan(pg_state *st, const js_scan *scan) {
    if (!js_mcu_fits(&st->f, scan))
        return -1;
    int dc = js_progression(&st->f, scan);
    if (dc < 0)
        return -1;
    int kind = dc ? (scan->Ah ? SCAN_DC_REFINE : SCAN_DC_FIRST)
                  : (scan->Ah ? SCAN_AC_REFINE : SCAN_AC_FIRST);
    for (int i = 0; i < scan->n; i++) {
        pg_component *comp = &st->comp[scan->comp[i]];
        if (!comp->latched) {
            int table = comp->g->quant_table;
            if (!st->s.quant_defined[table])
                return -1;
            memcpy(comp->q, st->s.quant[table], sizeof comp->q);
            comp->latched = 1;
        }
        int d = scan->dc_table[i], a = scan->ac_table[i];
        if (d >= JS_TABLES || a >= JS_TABLES)
            return -1;
        if (kind == SCAN_DC_FIRST && build_huff(&st->s.dc[d], &st->derived[d], 1))
            return -1;
        if (!dc && build_huff(&st->s.ac[a], &st->derived[JS_TABLES + a], 0))
            return -1;
    }
    return kind;
}

/* Refines a nonzero coefficient as jdphuff.c does, if it is kept. */
static inline void refine_kept(int16_t *coef, int slot, int p1) {
    if (slot < 0)
        return;
    int c = coef[slot];
    if ((c & p1) == 0)
        coef[slot] = (int16_t) (c >= 0 ? c + p1 : c - p1);
}

/* One block of an AC first scan. Returns 0 or -1. */
static inline __attribute__((always_inline)) int ac_first_block(js_bits *b, const pg_huff *h, const js_scan *scan,
                                 unsigned *eobrun, int16_t *coef, uint64_t *nz,
                                 const int8_t *slot) {
    if (*eobrun) {
        (*eobrun)--;
        return 0;
    }
    int Se = scan->Se, Al = scan->Al;
    uint64_t bits = *nz;
    for (int k = scan->Ss; k <= Se; k++) {
        if (b->nbits < 32)
            js_refill(b);
        int32_t e = h->fast[b->acc >> (64 - JS_LOOK)];
        if (e) {
            js_drop(b, e & 0xFF);
            k += (e >> 8) & 0xFF;
            if (k > Se)
                return -1;
            int16_t value = (int16_t) ((uint32_t) (e >> 16) << Al);
            uint64_t bit = (uint64_t) 1 << k;
            bits = value ? bits | bit : bits & ~bit;
            if (slot[k] >= 0)
                coef[slot[k]] = value;
            continue;
        }
        int s = js_symbol(b, &h->base);
        if (s < 0)
            return -1;
        int r = s >> 4;
        s &= 15;
        if (s) {
            k += r;
            if (k > Se)
                return -1; /* libjpeg writes past the band: corrupt */
            int16_t value = (int16_t) ((uint32_t) js_extend(b, s) << Al);
            uint64_t bit = (uint64_t) 1 << k;
            bits = value ? bits | bit : bits & ~bit;
            if (slot[k] >= 0)
                coef[slot[k]] = value;
        } else if (r == 15) {
            k += 15;
        } else {
            unsigned run = 1u << r;
            if (r)
                run += js_get_bits(b, r);
            *eobrun = run - 1;
            break;
        }
    }
    *nz = bits;
    return 0;
}

/* Bits k...Se (k may be 64: none). */
static inline uint64_t band(int k, int Se) {
    uint64_t low = k >= 64 ? 0 : ~(uint64_t) 0 << k;
    uint64_t high = Se >= 63 ? ~(uint64_t) 0 : ((uint64_t) 1 << (Se + 1)) - 1;
    return low & high;
}

/* Reads the correction bits of the nonzero coefficients in `mask`, in order,
 * refining the kept ones (`kept`: their bits); the others' bits are only
 * skipped, in bulk once no kept one is left. */
static inline __attribute__((always_inline)) void correct(js_bits *b, uint64_t mask, uint64_t kept, int16_t *coef,
                           const int8_t *slot, int p1) {
    while (mask & kept) {
        int k = __builtin_ctzll(mask);
        mask &= mask - 1;
        if (js_get_bit(b) && slot[k] >= 0)
            refine_kept(coef, slot[k], p1);
    }
    int rest = __builtin_popcountll(mask);
    while (rest > 0) {
        int n = rest > 16 ? 16 : rest;
        js_get_bits(b, n);
        rest -= n;
    }
}

/* One block of an AC refinement scan (G.1.2.3; jdphuff.c, whose loop over
 * the coefficients this does with bit masks). Returns 0 or -1. */
static inline __attribute__((always_inline)) int ac_refine_block(js_bits *b, const pg_huff *h, const js_scan *scan,
                                  unsigned *eobrun, int16_t *coef, uint64_t *nz,
                                  const int8_t *slot, uint64_t kept) {
    int Se = scan->Se, p1 = 1 << scan->Al;
    uint64_t bits = *nz;
    int k = scan->Ss;
    if (*eobrun == 0) {
        while (k <= Se) {
            int s = js_symbol(b, &h->base);
            if (s < 0)
                return -1;
            int r = s >> 4;
            s &= 15;
            int value = 0;
            if (s) {
                if (s != 1)
                    return -1;
                value = js_get_bit(b) ? p1 : -p1;
            } else if (r != 15) {
                unsigned run = 1u << r;
                if (r)
                    run += js_get_bits(b, r);
                *eobrun = run;
                break;
            }
            /* Past r zero coefficients, to the next zero one; correction
             * bits for the nonzero ones on the way. */
            uint64_t range = band(k, Se), zeros = ~bits & range;
            for (int i = 0; i < r && zeros; i++)
                zeros &= zeros - 1;
            int target = zeros ? __builtin_ctzll(zeros) : Se + 1;
            correct(b, bits & range & ~band(target, 63), kept, coef, slot, p1);
            k = target;
            if (value) {
                if (k > Se)
                    return -1;
                bits |= (uint64_t) 1 << k;
                if (slot[k] >= 0)
                    coef[slot[k]] = (int16_t) value;
            }
            k++;
        }
    }
    if (*eobrun > 0) {
        correct(b, bits & band(k, Se), kept, coef, slot, p1);
        (*eobrun)--;
    }
    *nz = bits;
    return 0;
}

/* Where a scan's decode stands at the start of a row of its MCUs: all it
 * takes to resume there (the banded decode's second pass). */
typedef struct {
    js_bits b;
    unsigned eobrun, left;
    int next_rst;
    int32_t pred[JS_MAX_SCAN_COMPONENTS];
} pg_cursor;

/* Notes where a scan's decode stands (`pred`: a DC scan's predictions, NULL
 * for an AC scan). */
static void mark_cursor(pg_cursor *mark, const js_bits *b, unsigned eobrun, unsigned left, int next_rst,
                        const int32_t *pred) {
    memset(mark, 0, sizeof *mark);
    mark->b = *b;
    mark->eobrun = eobrun;
    mark->left = left;
    mark->next_rst = next_rst;
    if (pred)
        memcpy(mark->pred, pred, sizeof mark->pred);
}

/* A scan's rows of MCUs, and how many of them make a band: a non-interleaved
 * scan (every AC scan) covers its component's real blocks, one a MCU. */
static size_t scan_rows(const pg_state *st, const js_scan *scan, size_t *band) {
    if (scan->n == 1) {
        const pg_component *comp = &st->comp[scan->comp[0]];
        *band = comp->band_rows;
        return comp->g->bh;
    }
    *band = st->band_mcus;
    return st->f.mcuy;
}

/* Rows `from` to `to` of an AC scan, with `refine` a constant so that each
 * kind gets its own loop. At each band's first row, the cursor goes to
 * `marks` when given. Returns 0 or -1. */
static inline __attribute__((always_inline)) int ac_scan(pg_state *st, const js_scan *scan, const pg_huff *ac,
                                                         unsigned restart, pg_cursor *cur, size_t from, size_t to,
                                                         pg_cursor *marks, int refine) {
    pg_component *comp = &st->comp[scan->comp[0]];
    size_t nn = comp->nn, band = comp->band_rows;
    js_bits b = cur->b;
    unsigned eobrun = cur->eobrun, left = cur->left;
    int next_rst = cur->next_rst;
    for (size_t my = from; my < to; my++) {
        if (marks && my % band == 0)
            mark_cursor(&marks[my / band], &b, eobrun, left, next_rst, NULL);
        size_t row = my % comp->window;
        int16_t *coef = comp->coef + row * comp->g->pw * nn;
        uint64_t *nz = comp->nz + row * comp->g->pw;
        for (size_t mx = 0; mx < comp->g->bw; mx++, coef += nn, nz++) {
            int began = js_restart(&b, restart, &left, &next_rst);
            if (began < 0)
                return -1;
            if (began)
                eobrun = 0;
            if (refine ? ac_refine_block(&b, ac, scan, &eobrun, coef, nz, comp->slot, comp->kept)
                       : ac_first_block(&b, ac, scan, &eobrun, coef, nz, comp->slot))
                return -1;
            if (js_overrun(&b))
                return -1; /* bits taken from past the end of the data */
        }
    }
    cur->b = b;
    cur->eobrun = eobrun;
    cur->left = left;
    cur->next_rst = next_rst;
    return 0;
}

/* Rows `from` to `to` of a DC scan, interleaved or not. */
static int dc_scan(pg_state *st, const js_scan *scan, int kind, const pg_huff *const *dc, unsigned restart,
                   pg_cursor *cur, size_t from, size_t to, pg_cursor *marks) {
    int n = scan->n;
    size_t band;
    size_t mcus_x = n == 1 ? st->f.comp[scan->comp[0]].bw : st->f.mcux;
    scan_rows(st, scan, &band);
    int bh[JS_MAX_SCAN_COMPONENTS], bv[JS_MAX_SCAN_COMPONENTS];
    for (int i = 0; i < n; i++) {
        bh[i] = n == 1 ? 1 : st->f.comp[scan->comp[i]].h;
        bv[i] = n == 1 ? 1 : st->f.comp[scan->comp[i]].v;
    }
    int Al = scan->Al;
    js_bits b = cur->b;
    unsigned left = cur->left;
    int next_rst = cur->next_rst;
    int32_t pred[JS_MAX_SCAN_COMPONENTS];
    memcpy(pred, cur->pred, sizeof pred);
    for (size_t my = from; my < to; my++) {
        if (marks && my % band == 0)
            mark_cursor(&marks[my / band], &b, 0, left, next_rst, pred);
        for (size_t mx = 0; mx < mcus_x; mx++) {
            if (js_restart_dc(&b, restart, &left, &next_rst, pred))
                return -1;
            for (int i = 0; i < n; i++) {
                pg_component *comp = &st->comp[scan->comp[i]];
                size_t nn = comp->nn;
                for (int by = 0; by < bv[i]; by++) {
                    size_t row = (my * (size_t) bv[i] + (size_t) by) % comp->window;
                    int16_t *coef = comp->coef + (row * comp->g->pw + mx * (size_t) bh[i]) * nn;
                    for (int bx = 0; bx < bh[i]; bx++, coef += nn) {
                        if (kind == SCAN_DC_FIRST) {
                            int size = js_symbol(&b, &dc[i]->base);
                            if (size < 0)
                                return -1;
                            int64_t sum = (int64_t) pred[i] + js_extend(&b, size);
                            if (sum > INT32_MAX || sum < INT32_MIN)
                                return -1;
                            pred[i] = (int32_t) sum;
                            coef[0] = (int16_t) ((uint32_t) pred[i] << Al);
                        } else if (js_get_bit(&b)) {
                            coef[0] = (int16_t) (coef[0] | (1 << Al));
                        }
                    }
                }
            }
            if (js_overrun(&b))
                return -1; /* bits taken from past the end of the data */
        }
    }
    cur->b = b;
    cur->left = left;
    cur->next_rst = next_rst;
    memcpy(cur->pred, pred, sizeof pred);
    return 0;
}

/* A scan as the banded decode replays it, band by band: its header, the
 * tables and restart interval in force, and its cursor at each band. */
typedef struct {
    js_scan scan;
    int kind;
    unsigned restart;
    pg_huff *tables; /* DC tables of the scan's components, then its AC table */
    pg_cursor *marks;
} pg_replay;

/* Most scans a file may have on the banded path (libjpeg's standard script
 * has 10, mozjpeg's some 20): each holds its tables and a cursor a band. */
#define PG_MAX_SCANS 64

/* Rows `from` to `to` of a scan, from `cur`. */
JS_HOT static int run_scan(pg_state *st, const js_scan *scan, int kind, const pg_huff *const *dc, const pg_huff *ac,
                           unsigned restart, pg_cursor *cur, size_t from, size_t to, pg_cursor *marks) {
    switch (kind) {
    case SCAN_AC_FIRST:
        return ac_scan(st, scan, ac, restart, cur, from, to, marks, 0);
    case SCAN_AC_REFINE:
        return ac_scan(st, scan, ac, restart, cur, from, to, marks, 1);
    default:
        return dc_scan(st, scan, kind, dc, restart, cur, from, to, marks);
    }
}

/* Decodes one whole scan (with its cursor at each band into `marks`, when
 * given). Sets *next to the byte after the scan's data. Returns 0 or -1. */
static int decode_scan(pg_state *st, const js_scan *scan, int kind, pg_cursor *marks, const uint8_t **next) {
    const pg_huff *dc[JS_MAX_SCAN_COMPONENTS];
    for (int i = 0; i < scan->n; i++)
        dc[i] = &st->derived[scan->dc_table[i] & (JS_TABLES - 1)];
    const pg_huff *ac = &st->derived[JS_TABLES + (scan->ac_table[0] & (JS_TABLES - 1))];
    pg_cursor cur;
    memset(&cur, 0, sizeof cur);
    cur.b.p = scan->data;
    cur.b.end = st->s.end;
    cur.left = st->s.restart_interval;
    size_t band, rows = scan_rows(st, scan, &band);
    if (run_scan(st, scan, kind, dc, ac, st->s.restart_interval, &cur, 0, rows, marks))
        return -1;
    if (js_leftover(&cur.b))
        return -1;
    *next = cur.b.p;
    return 0;
}

/* Keeps what replaying `scan` takes (the banded decode's first pass). */
static int keep_replay(const pg_state *st, const js_scan *scan, int kind, pg_replay *replay) {
    memset(replay, 0, sizeof *replay);
    replay->scan = *scan;
    replay->kind = kind;
    replay->restart = st->s.restart_interval;
    int dc = kind == SCAN_DC_FIRST ? scan->n : 0, ac = kind == SCAN_AC_FIRST || kind == SCAN_AC_REFINE;
    replay->tables = malloc(sizeof(pg_huff) * (size_t) (dc + ac + 1));
    replay->marks = calloc(st->bands, sizeof(pg_cursor));
    if (!replay->tables || !replay->marks)
        return -1;
    for (int i = 0; i < dc; i++)
        replay->tables[i] = st->derived[scan->dc_table[i] & (JS_TABLES - 1)];
    if (ac)
        replay->tables[dc] = st->derived[JS_TABLES + (scan->ac_table[0] & (JS_TABLES - 1))];
    return 0;
}

/* Band `index` of every component, all scans replayed over it, into the
 * half of each component's window it maps to. Returns 0 or -1. */
static int decode_band(pg_state *st, const pg_replay *replays, size_t count, size_t index) {
    for (int c = 0; c < st->f.nc; c++) {
        pg_component *comp = &st->comp[c];
        size_t first = (index * comp->band_rows) % comp->window;
        memset(comp->coef + first * comp->g->pw * comp->nn, 0, comp->band_rows * comp->g->pw * comp->nn * sizeof(int16_t));
        memset(comp->nz + first * comp->g->pw, 0, comp->band_rows * comp->g->pw * sizeof(uint64_t));
    }
    for (size_t s = 0; s < count; s++) {
        const pg_replay *r = &replays[s];
        size_t band, rows = scan_rows(st, &r->scan, &band), from = index * band;
        if (from >= rows)
            continue;
        size_t to = from + band < rows ? from + band : rows;
        const pg_huff *dc[JS_MAX_SCAN_COMPONENTS];
        int ndc = r->kind == SCAN_DC_FIRST ? r->scan.n : 0;
        for (int i = 0; i < ndc; i++)
            dc[i] = &r->tables[i];
        pg_cursor cur = r->marks[index];
        if (run_scan(st, &r->scan, r->kind, dc, &r->tables[ndc], r->restart, &cur, from, to, NULL))
            return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------------------
 * Pixels
 */

/* The reduced IDCT as a matrix: sample i of an n-point output from
 * coefficient u (u < n) = the mean of the 8-point IDCT's samples in group i
 * (8 / n samples), which is what jidctred.c computes. Orthonormal scaling:
 * a flat block of DC coefficient F gives F / 8 per sample. */
static void idct_matrix(int n, int kept, float t[8][8]) {
    int group = 8 / n;
    for (int i = 0; i < n; i++)
        for (int u = 0; u < kept; u++) {
            double sum = 0;
            for (int x = i * group; x < (i + 1) * group; x++)
                sum += cos((2 * x + 1) * u * M_PI / 16);
            double scale = u == 0 ? 1 / (2 * sqrt(2.0)) : 0.5;
            t[i][u] = (float) (scale * sum / group);
        }
}

static inline uint8_t to_sample(float v) {
    v += 128.5f;
    if (!(v > 0.0f))
        return 0;
    if (v >= 255.0f)
        return 255;
    return (uint8_t) (int) v;
}

/* The kept coefficients of a component live in a mapping of their own, so
 * that the rows already rendered can go back to the system while the rest
 * are (coef_release): the output grows as the coefficients shrink, and the
 * decode's peak is the coefficients, not the coefficients plus the output
 * (for a 12 MP 4:4:4 photo at 1/2, 18 MB instead of 27). Zero-filled, as
 * calloc would give it. */
static int16_t *coef_map(size_t bytes, size_t *mapped) {
    *mapped = 0;
    if (bytes == 0)
        return NULL;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    *mapped = bytes;
    return p;
}

static void coef_unmap(int16_t *coef, size_t mapped) {
    if (!coef)
        return;
#ifdef PG_FUZZ_RELEASE
    ASAN_UNPOISON_MEMORY_REGION(coef, mapped);
#endif
    munmap(coef, mapped);
}

/* Sample rows of one component, rendered from the coefficients a block
 * row at a time into a ring of three block rows (upsampling reads at most
 * the rows either side), so no whole plane is ever held. */
typedef struct {
    const pg_component *comp;
    float t[8][8];     /* the reduced IDCT matrix */
    float q[64];       /* the kept quantisers, k x k */
    size_t stride;     /* samples a row: pw * n */
    uint8_t *ring;     /* 3 block rows of n sample rows */
    size_t held[3];    /* block row in each slot, SIZE_MAX when none */
    size_t released;   /* bytes of coefficients handed back (coef_release) */
} pg_rows;

static int rows_init(pg_rows *rows, const pg_component *comp) {
    int n = comp->n, kept = comp->k;
    rows->comp = comp;
    idct_matrix(n, kept, rows->t);
    for (int v = 0; v < kept; v++)
        for (int u = 0; u < kept; u++)
            rows->q[v * kept + u] = (float) (int16_t) comp->q[v * 8 + u];
    rows->stride = comp->g->pw * (size_t) n;
    rows->ring = malloc(3 * (size_t) n * rows->stride);
    rows->held[0] = rows->held[1] = rows->held[2] = SIZE_MAX;
    rows->released = 0;
    return rows->ring ? 0 : -1;
}

/* Block row `by` was just rendered. Rows are rendered in order, and a
 * sample row is asked for at most one row behind the newest (upsampling's
 * neighbour), so block rows more than two behind are never rendered again:
 * their whole pages are handed back, a quarter megabyte or more at a time. */
#ifdef PG_FUZZ_RELEASE
/* The fuzz build (fuzz/build.sh) poisons released rows instead, a row at a
 * time, so that AddressSanitizer reports any read of one. */
#define PG_RELEASE_STEP 1
#define PG_PAGE ((size_t) 1)
#define PG_DROP(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#else
#define PG_RELEASE_STEP (256u << 10)
#define PG_PAGE ((size_t) sysconf(_SC_PAGESIZE))
#define PG_DROP(p, n) madvise(p, n, MADV_DONTNEED)
#endif

static void coef_release(pg_rows *rows, size_t by) {
    const pg_component *comp = rows->comp;
    if (by < 3 || comp->coef_bytes == 0)
        return;
    size_t page = PG_PAGE;
    size_t row_bytes = comp->g->pw * (size_t) comp->k * (size_t) comp->k * sizeof(int16_t);
    size_t end = (by - 2) * row_bytes;
    end -= end % page;
    if (end > comp->coef_bytes || end < rows->released + PG_RELEASE_STEP)
        return;
    PG_DROP((char *) comp->coef + rows->released, end - rows->released);
    rows->released = end;
}

typedef float float4 __attribute__((vector_size(16)));

/* The common case, 4x4 coefficients to 4x4 samples (luma at 1/2), with
 * 4-wide vectors: the same sums as the general loop in the same order. */
static void render_block_row_4x4(const pg_rows *rows, size_t by, uint8_t *out) {
    const pg_component *comp = rows->comp;
    size_t stride = rows->stride;
    float4 column[4], q[4]; /* column[u][j] = t[j][u]; q[v][u] */
    for (int u = 0; u < 4; u++)
        for (int j = 0; j < 4; j++) {
            column[u][j] = rows->t[j][u];
            q[u][j] = rows->q[u * 4 + j];
        }
    for (size_t bx = 0; bx < comp->g->pw; bx++) {
        const int16_t *c = comp->coef + (by % comp->window * comp->g->pw + bx) * 16;
        float4 pass[4]; /* pass[v][j] */
        for (int v = 0; v < 4; v++) {
            float4 d = { (float) c[v * 4], (float) c[v * 4 + 1], (float) c[v * 4 + 2], (float) c[v * 4 + 3] };
            d *= q[v];
            float4 sum = { 0, 0, 0, 0 };
            for (int u = 0; u < 4; u++)
                sum += column[u] * d[u];
            pass[v] = sum;
        }
        uint8_t *o = out + bx * 4;
        for (int i = 0; i < 4; i++) {
            float4 sum = { 0, 0, 0, 0 };
            for (int v = 0; v < 4; v++)
                sum += pass[v] * rows->t[i][v];
            for (int j = 0; j < 4; j++)
                o[j] = to_sample(sum[j]);
            o += stride;
        }
    }
}

/* 4x4 coefficients to 2x2 samples (1/4): the same sums as the general
 * loop in the same order, the four samples as one vector. */
static void render_block_row_2x2(const pg_rows *rows, size_t by, uint8_t *out) {
    const pg_component *comp = rows->comp;
    size_t stride = rows->stride;
    /* weight[v][u] over the samples (i, j) = (0,0), (0,1), (1,0), (1,1):
     * t[i][v] * t[j][u]. The general loop sums over u first, then v. */
    float4 row_t[4], col_t[4];
    for (int w = 0; w < 4; w++) {
        float4 r = { rows->t[0][w], rows->t[1][w], rows->t[0][w], rows->t[1][w] }; /* t[j][u] */
        float4 c = { rows->t[0][w], rows->t[0][w], rows->t[1][w], rows->t[1][w] }; /* t[i][v] */
        row_t[w] = r;
        col_t[w] = c;
    }
    for (size_t bx = 0; bx < comp->g->pw; bx++) {
        const int16_t *c = comp->coef + (by % comp->window * comp->g->pw + bx) * 16;
        float4 sum = { 0, 0, 0, 0 };
        for (int v = 0; v < 4; v++) {
            float4 pass = { 0, 0, 0, 0 };
            if (c[v * 4] | c[v * 4 + 1] | c[v * 4 + 2] | c[v * 4 + 3])
                for (int u = 0; u < 4; u++)
                    pass += row_t[u] * ((float) c[v * 4 + u] * rows->q[v * 4 + u]);
            sum += pass * col_t[v];
        }
        uint8_t *o = out + bx * 2;
        o[0] = to_sample(sum[0]);
        o[1] = to_sample(sum[1]);
        o[stride] = to_sample(sum[2]);
        o[stride + 1] = to_sample(sum[3]);
    }
}

typedef float float8 __attribute__((vector_size(32)));

/* All 64 coefficients to 8x8 samples (1/1), a row of eight samples as one
 * vector: the same sums as the general loop in the same order, skipping
 * rows of zero coefficients (most of a photo's high frequencies). */
static void render_block_row_8x8(const pg_rows *rows, size_t by, uint8_t *out) {
    const pg_component *comp = rows->comp;
    size_t stride = rows->stride;
    float8 column[8]; /* column[u][j] = t[j][u] */
    for (int u = 0; u < 8; u++)
        for (int j = 0; j < 8; j++)
            column[u][j] = rows->t[j][u];
    const int16_t *c = comp->coef + by % comp->window * comp->g->pw * 64;
    for (size_t bx = 0; bx < comp->g->pw; bx++, c += 64) {
        float8 pass[8]; /* pass[v][j] */
        int live[8], count = 0;
        for (int v = 0; v < 8; v++) {
            const int16_t *row = c + v * 8;
            float8 sum = { 0, 0, 0, 0, 0, 0, 0, 0 };
            if (row[0] | row[1] | row[2] | row[3] | row[4] | row[5] | row[6] | row[7]) {
                for (int u = 0; u < 8; u++)
                    sum += column[u] * ((float) row[u] * rows->q[v * 8 + u]);
                live[count++] = v;
            }
            pass[v] = sum;
        }
        uint8_t *o = out + bx * 8;
        for (int i = 0; i < 8; i++) {
            float8 sum = { 0, 0, 0, 0, 0, 0, 0, 0 };
            for (int l = 0; l < count; l++)
                sum += pass[live[l]] * rows->t[i][live[l]];
            for (int j = 0; j < 8; j++)
                o[j] = to_sample(sum[j]);
            o += stride;
        }
    }
}

/* IDCTs block row `by` into `out` (n rows of `stride` samples). */
static void render_block_row(const pg_rows *rows, size_t by, uint8_t *out) {
    const pg_component *comp = rows->comp;
    int n = comp->n, kept = comp->k;
    if (n == 8 && kept == 8) {
        render_block_row_8x8(rows, by, out);
        return;
    }
    if (n == 4 && kept == 4) {
        render_block_row_4x4(rows, by, out);
        return;
    }
    if (n == 2 && kept == 4) {
        render_block_row_2x2(rows, by, out);
        return;
    }
    size_t nn = (size_t) kept * kept, stride = rows->stride;
    for (size_t bx = 0; bx < comp->g->pw; bx++) {
        const int16_t *c = comp->coef + (by % comp->window * comp->g->pw + bx) * nn;
        float pass[8][8]; /* pass[v][j]: the row pass over u */
        for (int v = 0; v < kept; v++) {
            float d[8];
            int any = 0;
            for (int u = 0; u < kept; u++) {
                d[u] = (float) c[v * kept + u] * rows->q[v * kept + u];
                any |= c[v * kept + u];
            }
            for (int j = 0; j < n; j++) {
                float sum = 0;
                if (any)
                    for (int u = 0; u < kept; u++)
                        sum += rows->t[j][u] * d[u];
                pass[v][j] = sum;
            }
        }
        uint8_t *o = out + bx * (size_t) n;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                float sum = 0;
                for (int v = 0; v < kept; v++)
                    sum += rows->t[i][v] * pass[v][j];
                o[j] = to_sample(sum);
            }
            o += stride;
        }
    }
}

/* Sample row `r` of the component's plane (r < ph * n). */
static const uint8_t *plane_row(pg_rows *rows, size_t r) {
    size_t n = (size_t) rows->comp->n, by = r / n;
    int slot = (int) (by % 3);
    uint8_t *base = rows->ring + (size_t) slot * n * rows->stride;
    if (rows->held[slot] != by) {
        render_block_row(rows, by, base);
        rows->held[slot] = by;
        coef_release(rows, by);
    }
    return base + (r % n) * rows->stride;
}

/* h2v2 "fancy" upsampling (jdsample.c): each output sample weighs the
 * nearer input row 3:1 against the other, then the nearer column 3:1,
 * with libjpeg's rounding (+8 and +7 in turn). */
static void h2v2_fancy(const uint8_t *restrict near, const uint8_t *restrict far, size_t dw, size_t ow,
                       uint8_t *restrict line) {
    /* dw > 2 and ow is 2 dw - 1 or 2 dw: the first and last input columns
     * are the edges, every other one a plain loop. */
    int c0 = near[0] * 3 + far[0], c1 = near[1] * 3 + far[1];
    line[0] = (uint8_t) ((c0 * 4 + 8) >> 4);
    line[1] = (uint8_t) ((c0 * 3 + c1 + 7) >> 4);
    for (size_t i = 1; i + 1 < dw; i++) {
        int last = near[i - 1] * 3 + far[i - 1], here = near[i] * 3 + far[i], next = near[i + 1] * 3 + far[i + 1];
        line[2 * i] = (uint8_t) ((here * 3 + last + 8) >> 4);
        line[2 * i + 1] = (uint8_t) ((here * 3 + next + 7) >> 4);
    }
    size_t i = dw - 1;
    int last = near[i - 1] * 3 + far[i - 1], here = near[i] * 3 + far[i];
    line[2 * i] = (uint8_t) ((here * 3 + last + 8) >> 4);
    if (2 * i + 1 < ow)
        line[2 * i + 1] = (uint8_t) ((here * 4 + 7) >> 4);
}

/* Component row `y` of the output, `ow` samples, upsampled as libjpeg's
 * jdsample.c does: h2v1 and h2v2 "fancy" (or replicated when the plane is
 * at most 2 samples wide), h1v2 "fancy"; edge rows replicated. */
static void component_row(pg_rows *rows, size_t y, size_t ow, uint8_t *line) {
    const pg_component *comp = rows->comp;
    if (comp->rv == 2 && comp->rh == 2) {
        size_t row = y / 2, other;
        if ((y & 1) == 0)
            other = row == 0 ? 0 : row - 1;
        else
            other = row + 1 < comp->dh ? row + 1 : comp->dh - 1;
        const uint8_t *a = plane_row(rows, row);
        if (comp->dw <= 2) {
            for (size_t x = 0; x < ow; x++)
                line[x] = a[x / 2];
            return;
        }
        const uint8_t *b = plane_row(rows, other);
        if (ow + 1 >= 2 * comp->dw) {
            h2v2_fancy(a, b, comp->dw, ow, line);
            return;
        }
        /* An output narrower than the plane upsampled (not from libjpeg's
         * samplings at 1/1): the same sums, column by column. */
        for (size_t x = 0; x < ow; x++) {
            size_t i = x / 2;
            int here = a[i] * 3 + b[i];
            if (x & 1) {
                int next = i + 1 < comp->dw ? a[i + 1] * 3 + b[i + 1] : here;
                line[x] = (uint8_t) (i + 1 < comp->dw ? (here * 3 + next + 7) >> 4 : (here * 4 + 7) >> 4);
            } else {
                int last = i > 0 ? a[i - 1] * 3 + b[i - 1] : here;
                line[x] = (uint8_t) (i > 0 ? (here * 3 + last + 8) >> 4 : (here * 4 + 8) >> 4);
            }
        }
        return;
    }
    if (comp->rv == 2) {
        size_t row = y / 2, other;
        int bias;
        if ((y & 1) == 0) {
            other = row == 0 ? 0 : row - 1;
            bias = 1;
        } else {
            other = row + 1 < comp->dh ? row + 1 : comp->dh - 1;
            bias = 2;
        }
        const uint8_t *a = plane_row(rows, row), *c = plane_row(rows, other);
        for (size_t x = 0; x < ow; x++)
            line[x] = (uint8_t) ((a[x] * 3 + c[x] + bias) >> 2);
        return;
    }
    const uint8_t *in = plane_row(rows, y);
    if (comp->rh == 1) {
        memcpy(line, in, ow);
        return;
    }
    size_t dw = comp->dw;
    for (size_t x = 0; x < ow; x++) {
        size_t i = x / 2;
        if (dw <= 2) {
            line[x] = in[i];
            continue;
        }
        int value = in[i];
        if (x & 1)
            line[x] = (uint8_t) (i + 1 < dw ? (value * 3 + in[i + 1] + 2) >> 2 : value);
        else
            line[x] = (uint8_t) (i > 0 ? (value * 3 + in[i - 1] + 1) >> 2 : value);
    }
}

/* ---------------------------------------------------------------------------
 * The decode
 */

static int add_size(size_t *total, size_t a, size_t b) {
    if (b && a > SIZE_MAX / b)
        return -1;
    if (a * b > SIZE_MAX - *total)
        return -1;
    *total += a * b;
    return 0;
}

/* What the decode allocates at once: the kept coefficients and bits, three
 * block rows of samples per component and the output. The banded decode
 * holds the bits of every block while it parses (first pass), then two
 * bands of coefficients and the output (second); its scans' tables and
 * cursors throughout, counted for the most scans it takes. 0 on overflow. */
/* Whether the decode streams its rows into a resample to tw x th. */
static int streams(size_t ow, size_t oh, int tw, int th) {
    return tw > 0 && th > 0 && (size_t) tw < ow && (size_t) th < oh && ow <= INT32_MAX && oh <= INT32_MAX;
}

static size_t peak_bytes(const pg_state *st, size_t ow, size_t oh, int tw, int th) {
    size_t held = 0, parse = 0, replay = 0;
    for (int c = 0; c < st->f.nc; c++) {
        const pg_component *comp = &st->comp[c];
        size_t blocks = st->banded ? comp->window * comp->g->pw : comp->g->pw * comp->g->ph;
        size_t per_block = 2 * comp->nn + sizeof(uint64_t);
        if (add_size(&held, blocks, per_block) ||
            add_size(&held, comp->g->pw * 3, (size_t) comp->n * (size_t) comp->n) ||
            add_size(&parse, comp->g->pw * comp->g->ph, sizeof(uint64_t)))
            return 0;
    }
    if (streams(ow, oh, tw, th)) {
        /* The resample's input rows and scratch, and its output. */
        size_t stream = resample_stream_bytes((int) ow, (int) oh, st->f.nc, tw, th);
        if (stream == 0 || add_size(&held, stream, 1) || add_size(&held, (size_t) tw * (size_t) st->f.nc, (size_t) th))
            return 0;
    } else if (add_size(&held, ow * (size_t) st->f.nc, oh)) {
        return 0;
    }
    if (!st->banded)
        return held;
    if (add_size(&held, ow, 3) ||
        add_size(&replay, PG_MAX_SCANS, sizeof(pg_replay) + (size_t) (st->f.nc + 1) * sizeof(pg_huff)) ||
        add_size(&replay, PG_MAX_SCANS, st->bands * sizeof(pg_cursor)))
        return 0;
    size_t total = held > parse ? held : parse;
    if (total > SIZE_MAX - replay)
        return 0;
    return total + replay;
}

static void output_size(const pg_state *st, size_t *ow, size_t *oh) {
    *ow = st->f.width / (size_t) st->shrink;
    *oh = st->f.height / (size_t) st->shrink;
    *ow = *ow ? *ow : 1;
    *oh = *oh ? *oh : 1;
}

size_t jpeg_prog_peak_bytes(j_decompress_ptr cinfo, int shrink, int target_w, int target_h) {
    pg_state st;
    memset(&st, 0, sizeof st);
    if (setup_frame(&st, cinfo, shrink))
        return 0;
    size_t ow, oh;
    output_size(&st, &ow, &oh);
    return peak_bytes(&st, ow, oh, target_w, target_h);
}

/* The first pass of the banded decode: every scan parsed with no
 * coefficient kept (the nonzero bits alone, which the refinement scans'
 * syntax needs), its cursor noted at each band. */
static void parse_only(pg_state *st, int16_t *dummy, int8_t slots[][64], uint64_t *kept) {
    for (int c = 0; c < st->f.nc; c++) {
        pg_component *comp = &st->comp[c];
        memcpy(slots[c], comp->slot, 64);
        kept[c] = comp->kept;
        memset(comp->slot, -1, 64);
        comp->kept = 0;
        comp->nn = 0;
        comp->coef = dummy; /* the DC scans' writes land here */
        comp->window = comp->g->ph;
    }
}

/* Back to keeping every coefficient, two bands at a time. */
static int keep_bands(pg_state *st, int8_t slots[][64], const uint64_t *kept) {
    for (int c = 0; c < st->f.nc; c++) {
        pg_component *comp = &st->comp[c];
        memcpy(comp->slot, slots[c], 64);
        comp->kept = kept[c];
        comp->nn = (size_t) comp->k * (size_t) comp->k;
        comp->window = 2 * comp->band_rows;
        free(comp->nz);
        comp->coef = calloc(comp->window * comp->g->pw * comp->nn, sizeof(int16_t));
        comp->nz = calloc(comp->window * comp->g->pw, sizeof(uint64_t));
        if (!comp->coef || !comp->nz)
            return -1;
    }
    return 0;
}

int jpeg_prog_decode(j_decompress_ptr cinfo, const uint8_t *end, int shrink, int target_w, int target_h,
                     size_t max_bytes, uint8_t **pixels_out, size_t *width_out, size_t *height_out, int *bands_out) {
    pg_state st;
    memset(&st, 0, sizeof st);
    if (setup_frame(&st, cinfo, shrink))
        return -1;
    js_stream_init(&st.s, cinfo, end);
    int nc = st.f.nc;
    size_t ow, oh;
    output_size(&st, &ow, &oh);
    size_t total = peak_bytes(&st, ow, oh, target_w, target_h);
    if (total == 0 || total > max_bytes)
        return -1;
    int streamed = streams(ow, oh, target_w, target_h);

    uint8_t *pixels = NULL, *scratch = NULL;
    resample_stream *stream = NULL;
    pg_rows rows[3];
    memset(rows, 0, sizeof rows);
    pg_replay *replays = NULL;
    size_t scans = 0;
    int16_t dummy[64];
    int8_t slots[3][64];
    uint64_t kept[3];
    int result = -1;
    st.derived = malloc(sizeof(pg_huff) * 2 * JS_TABLES);
    if (!st.derived)
        goto done;
    if (st.banded) {
        replays = calloc(PG_MAX_SCANS, sizeof(pg_replay));
        if (!replays)
            goto done;
        parse_only(&st, dummy, slots, kept);
    }
    for (int c = 0; c < nc; c++) {
        pg_component *comp = &st.comp[c];
        size_t blocks = comp->g->pw * comp->g->ph;
        if (!st.banded)
            comp->coef = coef_map(blocks * comp->nn * sizeof(int16_t), &comp->coef_bytes);
        comp->nz = calloc(blocks, sizeof(uint64_t));
        if (!comp->coef || !comp->nz)
            goto done;
    }

    js_scan scan;
    if (js_first_scan(&st.s, cinfo, st.f.nc, &scan))
        goto done;
    for (;;) {
        int kind = prepare_scan(&st, &scan);
        if (kind < 0)
            goto done;
        pg_cursor *marks = NULL;
        if (st.banded) {
            if (scans == PG_MAX_SCANS)
                goto done;
            pg_replay *replay = &replays[scans++];
            if (keep_replay(&st, &scan, kind, replay))
                goto done;
            marks = replay->marks;
        }
        const uint8_t *next;
        if (decode_scan(&st, &scan, kind, marks, &next))
            goto done;
        int more = js_read_markers(&st.s, cinfo, st.f.nc, next, &scan);
        if (more < 0)
            goto done;
        if (!more)
            break;
    }
    /* DC complete, and the first nine AC coefficients too (else libjpeg's
     * block smoothing, jdcoefct.c, would change the low frequencies). */
    for (int c = 0; c < nc; c++)
        for (int k = 0; k <= 9; k++)
            if (st.f.comp[c].bits[k] != 0)
                goto done;

    if (st.banded && keep_bands(&st, slots, kept))
        goto done;
    for (int c = 0; c < nc; c++) {
        if (!st.banded) {
            /* The nonzero bits are for parsing only. */
            free(st.comp[c].nz);
            st.comp[c].nz = NULL;
        }
        if (rows_init(&rows[c], &st.comp[c]))
            goto done;
    }
    if (streamed) {
        pixels = malloc((size_t) target_w * (size_t) target_h * (size_t) nc);
        stream = pixels ? resample_stream_new((int) ow, (int) oh, nc, pixels, target_w, target_h) : NULL;
        if (!stream)
            goto done;
    } else {
        pixels = malloc(ow * oh * (size_t) nc);
    }
    scratch = malloc(3 * ow);
    if (!pixels || !scratch)
        goto done;
    size_t decoded = 0; /* bands replayed so far */
    for (size_t y = 0; y < oh; y++) {
        if (st.banded) {
            /* The MCU row below this one as well: upsampling reads a row
             * ahead, and chroma's may lie there. */
            size_t mcu = y * (size_t) shrink / (8 * (size_t) st.f.vmax) + 1;
            size_t band = (mcu < st.f.mcuy ? mcu : st.f.mcuy - 1) / st.band_mcus;
            for (; decoded <= band; decoded++)
                if (decode_band(&st, replays, scans, decoded))
                    goto done;
        }
        uint8_t *o = stream ? resample_stream_row(stream) : pixels + y * ow * (size_t) nc;
        if (nc == 1) {
            component_row(&rows[0], y, ow, o);
            if (stream)
                resample_stream_push(stream);
            continue;
        }
        uint8_t *line[3];
        for (int c = 0; c < 3; c++) {
            line[c] = scratch + (size_t) c * ow;
            component_row(&rows[c], y, ow, line[c]);
        }
        js_rows_to_rgb(st.f.ycc, line[0], line[1], line[2], ow, o);
        if (stream)
            resample_stream_push(stream);
    }
    if (stream) {
        if (!resample_stream_done(stream))
            goto done;
        ow = (size_t) target_w;
        oh = (size_t) target_h;
    }
    *pixels_out = pixels;
    pixels = NULL;
    *width_out = ow;
    *height_out = oh;
    *bands_out = nc;
    result = 0;
done:
    resample_stream_free(stream);
    free(pixels);
    free(scratch);
    for (int c = 0; c < nc; c++) {
        free(rows[c].ring);
        if (st.banded) {
            if (st.comp[c].coef != dummy)
                free(st.comp[c].coef);
        } else {
            coef_unmap(st.comp[c].coef, st.comp[c].coef_bytes);
        }
        free(st.comp[c].nz);
    }
    if (replays)
        for (size_t s = 0; s < scans; s++) {
            free(replays[s].tables);
            free(replays[s].marks);
        }
    free(replays);
    free(st.derived);
    return result;
}
