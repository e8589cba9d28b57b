/* The 1/8-scale JPEG decode of the common thumbnail case: DC coefficients only.
 *
 * At 1/8 scale every 8x8 block becomes one pixel, its DC coefficient.
 * libjpeg still Huffman-decodes all 63 AC coefficients of every block of a
 * baseline file (they must be read to find the next block), and for a
 * progressive file it buffers every coefficient of the image and decodes
 * every scan. Here:
 *
 *  - Sequential scans (a baseline file's one scan, or a sequential file's
 *    scan per component): the DC coefficient is decoded and the AC
 *    coefficients are skipped, never decoded: a 4096-entry table per AC
 *    Huffman table maps the next 12 bits to how many bits and coefficients
 *    the next one to three symbols take, so one lookup usually skips several.
 *  - Progressive files: only the DC scans are decoded (the first pass, with
 *    its point transform Al, and the refinement scans that append one bit per
 *    block); every AC scan is skipped by searching its entropy-coded data for
 *    the next marker, without decoding it. Tables (DHT, DQT) and the restart
 *    interval (DRI) may change between scans: this file parses the markers
 *    after the first SOS itself (libjpeg's jpeg_read_header stops there).
 *
 * Luma (and grey) come out bit-identical to libjpeg's 1/8 decode: the same
 * coefficient arithmetic (16-bit coefficients, 16-bit quantisers) and the same
 * 1x1 IDCT, whose range-limit table wraps out-of-range values rather than
 * clamping them. That needs luma at full sampling: when another component is
 * sampled more finely, libjpeg decodes luma with a larger IDCT, which needs
 * AC coefficients, so such files are refused. Chroma is bilinearly upsampled
 * from its own DC values (libjpeg uses a 2x2 IDCT there), which thumbnails,
 * saved with 4:2:0 chroma again, cannot show.
 *
 * Only 8-bit Huffman-coded files with 1 (grey) or 3 (YCbCr, RGB) components
 * come here. The decode refuses (returns -1, and the caller takes libjpeg or
 * libvips) every file libjpeg would warn about or reject, as far as the DC
 * data and the marker stream show it: a bad Huffman code or table (DC
 * symbols above 15 included), more than 10 blocks per MCU, a missing or
 * misnumbered restart marker, data ending early, bytes between the entropy
 * data and the next marker, a scan that breaks the progression rules, a
 * component twice in one scan or a second scan of it in a sequential file,
 * an unknown marker, a missing EOI. It also refuses progressive files that
 * leave a component's DC coefficient incomplete (no DC scan, or a missing
 * refinement), and those where a component has no AC data at all, whose DC
 * libjpeg smooths. What it cannot see: damage inside a progressive AC scan
 * that leaves the markers intact. libjpeg would warn about it; this decode
 * returns the DC image, which that damage does not touch.
 */
#include "jpeg_dc.h"
#include "jpeg_scan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The decode runs in stages, each in its own section below, on the scan
 * layer it shares with jpeg_prog.c (jpeg_scan.h: the frame, the markers
 * between scans, the progression checks, Huffman tables, the bit reader):
 *
 *   1. Frame and tables: setup_frame takes the frame from libjpeg's header
 *      (js_frame_init) and adds this decoder's rules; js_read_markers parses
 *      DHT, DQT and DRI between scans; prepare_scan checks each scan against
 *      libjpeg's rules and builds the Huffman tables it needs (build_huff).
 *   2. Block skipping: skip_ac passes over a sequential block's AC
 *      coefficients; skip_ac_scan passes over a whole progressive AC scan.
 *   3. DC planes: decode_dc_scan decodes DC coefficients (first passes and
 *      refinements) into one int16 plane per component; dc_complete checks
 *      that every DC coefficient is whole.
 *   4. Upsampling and colour: samples_in_place applies the 1x1 IDCT,
 *      upsample_row brings subsampled chroma to the output size and
 *      js_rows_to_rgb converts YCbCr to RGB.
 *
 * jpeg_dc_decode runs them in that order (read_scans drives stages 1 to 3
 * scan by scan, render_pixels does stage 4). */

/* ---------------------------------------------------------------------------
 * Constants
 */

/* The multi-symbol AC skip table's lookahead (JS_LOOK indexes the
 * one-symbol tables). */
#define MLOOK 12

/* An AC symbol is run << 4 | size. Size 0 is EOB (the rest of the block is
 * zero), or ZRL (sixteen zeros) when the run is 15. */
#define AC_ZRL_RUN 15
#define AC_ZRL_ADVANCE 16
/* The `advance` field of a multi-symbol skip entry has 8 bits. */
#define MULTI_ADVANCE_MAX 255

/* libjpeg's block smoothing (jdcoefct.c) looks at AC coefficients 1...9. */
#define SMOOTHING_LAST_COEFFICIENT 9

/* 8-bit samples: the level shift of the IDCT, the largest value. */
#define SAMPLE_CENTER 128
#define SAMPLE_MAX 255

/* libjpeg's 1x1 IDCT divides DC x quantiser by 8 (a shift of 3, rounded);
 * its post-IDCT range-limit table is indexed by the low 10 bits (RANGE_MASK). */
#define IDCT_1X1_SHIFT 3
#define IDCT_RANGE_SIZE 1024
#define IDCT_RANGE_MASK (IDCT_RANGE_SIZE - 1)

/* Bilinear chroma upsampling: tap positions and weights in 1/256 units. */
#define TAP_BITS 8
#define TAP_ONE (1 << TAP_BITS)

/* ---------------------------------------------------------------------------
 * Stage 1a: Huffman tables
 */

/* A table made ready for decoding (DC) or skipping (AC). */
typedef struct {
    js_huff base;
    /* AC skip table, JS_LOOK bits: (bits to drop << 8 | coefficients to
     * advance), 0 = slow. */
    uint16_t skip[1 << JS_LOOK];
    /* Multi-symbol AC skip, MLOOK bits: drop << 16 | pre << 8 | advance,
     * where `pre` is the advance before the group's last symbol. */
    uint32_t multi[1 << MLOOK];
} dc_huff;

enum huff_use { HUFF_CHECK, HUFF_DC, HUFF_AC };

/* How many coefficients an AC symbol moves past in a sequential block: its
 * run of zeros and the coefficient itself, sixteen zeros for ZRL, or the
 * rest of the block (at most 64) for EOB. */
static inline int ac_advance(int symbol) {
    int run = symbol >> 4, size = symbol & 15;
    return size ? run + 1 : run == AC_ZRL_RUN ? AC_ZRL_ADVANCE : DCTSIZE2;
}

/* The one-symbol skip table, from `look`: a code and its extra bits. */
static void fill_skip(dc_huff *h) {
    for (uint32_t j = 0; j < (1u << JS_LOOK); j++) {
        uint16_t e = h->base.look[j];
        int l = e >> 8, symbol = e & 0xFF;
        h->skip[j] = e ? (uint16_t) ((l + (symbol & 15)) << 8 | ac_advance(symbol)) : 0;
    }
}

/* Multi-symbol entries: as many whole AC symbols (code + extra bits) as fit
 * in MLOOK bits, stopping after an end of block or at the end of the block's
 * 63 AC coefficients. Needs `look`. */
static void fill_multi(dc_huff *h) {
    for (uint32_t j = 0; j < (1u << MLOOK); j++) {
        int pos = 0, adv = 0, pre = 0, n = 0;
        while (pos < MLOOK) {
            uint32_t bits = (j << pos) & ((1u << MLOOK) - 1);
            uint16_t e = h->base.look[bits >> (MLOOK - JS_LOOK)];
            if (!e) break;
            int l = e >> 8, symbol = e & 0xFF, size = symbol & 15;
            if (pos + l + size > MLOOK) break;
            int a = ac_advance(symbol);
            pre = adv;
            adv += a;
            pos += l + size;
            n++;
            if (a == DCTSIZE2 || adv >= DCTSIZE2 - 1) break;
        }
        h->multi[j] = n ? (uint32_t) (pos << 16 | pre << 8 | (adv > MULTI_ADVANCE_MAX ? MULTI_ADVANCE_MAX : adv)) : 0;
    }
}

/* Validates `table` (js_build_huff) and, for HUFF_DC and HUFF_AC, fills `h`.
 * Returns 0 or -1. */
static int build_huff(const js_raw_huff *table, dc_huff *h, enum huff_use use) {
    if (js_build_huff(table, use == HUFF_CHECK ? NULL : &h->base, use == HUFF_DC))
        return -1;
    if (use == HUFF_AC) {
        fill_skip(h);
        fill_multi(h);
    }
    return 0;
}

/* ---------------------------------------------------------------------------
 * Decoder state
 */

/* What this decoder keeps of a component besides its geometry (js_frame). */
typedef struct {
    int16_t *dc;     /* DC coefficient per block, pw x ph, row-major; after
                        samples_in_place, one 8-bit sample per block, stride pw */
    int quant;       /* DC quantiser latched at the component's first scan, -1 before */
    int scans;       /* sequential files: scans holding this component */
} dc_component;

/* The whole decode: the frame, the tables as last defined, the planes. */
typedef struct {
    js_frame f;               /* the frame, and the progression of a progressive file */
    js_stream s;              /* the tables as last defined, the restart interval */
    dc_component comp[JS_MAX_COMPONENTS];
    dc_huff *derived;         /* built tables: DC 0...3 then AC 0...3 (built_dc_table, built_ac_table) */
} dc_state;

enum scan_kind { SCAN_SEQUENTIAL, SCAN_DC_FIRST, SCAN_DC_REFINE, SCAN_AC };

static dc_huff *built_dc_table(const dc_state *st, int table) {
    return &st->derived[table];
}

static dc_huff *built_ac_table(const dc_state *st, int table) {
    return &st->derived[JS_TABLES + table];
}

/* ---------------------------------------------------------------------------
 * Stage 1b: the frame
 */

/* The frame (js_frame_init) under this decoder's rules. Returns 0, or -1 for
 * a frame this decoder does not take. */
static int setup_frame(dc_state *st, j_decompress_ptr cinfo) {
    if (js_frame_init(&st->f, cinfo))
        return -1;
    const js_frame *f = &st->f;
    for (int c = 0; c < f->nc; c++) {
        /* Luma (and every RGB component) at full sampling, or libjpeg's 1/8
         * decode of it is not its DC value (see the top of the file). */
        if ((c == 0 || !f->ycc) && (f->comp[c].h != f->hmax || f->comp[c].v != f->vmax))
            return -1;
        st->comp[c].quant = -1;
        st->comp[c].scans = 0;
        st->comp[c].dc = NULL;
    }
    return 0;
}

/* ---------------------------------------------------------------------------
 * Stage 1c: each scan checked, its tables built
 */

/* The kind of a scan, checked against libjpeg's rules and the progression
 * so far (which it updates: `scans` of a sequential file's components,
 * `bits` of a progressive file's). Each component comes at most once in a
 * scan (js_first_scan and js_read_markers check it): a repeat would
 * otherwise pass the progression checks of a DC first pass with Al = 0 and
 * decode the component twice per MCU. Returns the kind, or -1. */
static int classify_scan(dc_state *st, const js_scan *scan) {
    if (!js_mcu_fits(&st->f, scan))
        return -1;
    if (!st->f.progressive) {
        /* libjpeg warns about anything else in a sequential file. */
        if (scan->Ss != 0 || scan->Se != DCTSIZE2 - 1 || scan->Ah != 0 || scan->Al != 0)
            return -1;
        for (int i = 0; i < scan->n; i++)
            if (st->comp[scan->comp[i]].scans++)
                return -1; /* decoded already */
        return SCAN_SEQUENTIAL;
    }
    int dc = js_progression(&st->f, scan);
    if (dc < 0)
        return -1;
    return !dc ? SCAN_AC : scan->Ah ? SCAN_DC_REFINE : SCAN_DC_FIRST;
}

/* Latches the quantisers of components seen for the first time and builds
 * (or, for an AC scan, only validates) the Huffman tables a scan of `kind`
 * needs. Returns 0 or -1. */
static int prepare_tables(dc_state *st, const js_scan *scan, int kind) {
    for (int i = 0; i < scan->n; i++) {
        dc_component *comp = &st->comp[scan->comp[i]];
        if (comp->quant < 0) {
            int table = st->f.comp[scan->comp[i]].quant_table;
            if (!st->s.quant_defined[table])
                return -1;
            comp->quant = st->s.quant[table][0];
        }
        int d = scan->dc_table[i], a = scan->ac_table[i];
        if (d >= JS_TABLES || a >= JS_TABLES)
            return -1;
        if (kind == SCAN_SEQUENTIAL || kind == SCAN_DC_FIRST)
            if (build_huff(&st->s.dc[d], built_dc_table(st, d), HUFF_DC))
                return -1;
        if (kind == SCAN_SEQUENTIAL)
            if (build_huff(&st->s.ac[a], built_ac_table(st, a), HUFF_AC))
                return -1;
        if (kind == SCAN_AC)
            if (build_huff(&st->s.ac[a], NULL, HUFF_CHECK))
                return -1;
    }
    return 0;
}

/* classify_scan, then prepare_tables. Returns the scan's kind, or -1. */
static int prepare_scan(dc_state *st, const js_scan *scan) {
    int kind = classify_scan(st, scan);
    if (kind < 0 || prepare_tables(st, scan, kind))
        return -1;
    return kind;
}

/* ---------------------------------------------------------------------------
 * Stage 2: block skipping
 */

/* Skips the 63 AC coefficients of a sequential block. Returns 0 or -1. */
static inline int skip_ac(js_bits *b, const dc_huff *ah) {
    int k = 1;
    while (k < DCTSIZE2) {
        if (b->nbits < JS_SYMBOL_BITS)
            js_refill(b);
        uint32_t m = ah->multi[b->acc >> (64 - MLOOK)];
        if (m && k + (int) ((m >> 8) & 0xFF) < DCTSIZE2) {
            js_drop(b, (int) (m >> 16));
            k += (int) (m & 0xFF);
            continue;
        }
        uint16_t x = ah->skip[b->acc >> (64 - JS_LOOK)];
        if (x) {
            js_drop(b, x >> 8);
            k += x & 0xFF;
        } else {
            int len, symbol = js_slow(&ah->base, b->acc, &len);
            if (symbol < 0)
                return -1;
            js_drop(b, len + (symbol & 15));
            k += ac_advance(symbol);
        }
    }
    return 0;
}

/* Skips a progressive AC scan: the next marker that is not RSTn ends it.
 * The restart markers must come in order, as many as the scan's MCUs call
 * for. Sets *next to the marker. Returns 0 or -1 (no marker before the end
 * of the file). */
static int skip_ac_scan(const dc_state *st, const js_scan *scan, const uint8_t **next) {
    const js_component *comp = &st->f.comp[scan->comp[0]];
    size_t mcus = comp->bw * comp->bh;
    size_t expected = st->s.restart_interval ? (mcus - 1) / st->s.restart_interval : 0;
    size_t seen = 0;
    const uint8_t *p = scan->data, *end = st->s.end;
    const uint8_t *segment = p; /* where the current restart interval's data starts */
    for (;;) {
        p = memchr(p, JS_MARKER_PREFIX, (size_t) (end - p));
        if (!p)
            return -1;
        const uint8_t *m = p + 1;
        while (m < end && *m == JS_MARKER_PREFIX)
            m++;
        if (m >= end)
            return -1;
        if (*m == JS_STUFFED_ZERO && m == p + 1) {
            p = m + 1;
            continue;
        }
        if (*m >= JS_M_RST0 && *m <= JS_M_RST7) {
            if (*m != JS_M_RST0 + (int) (seen % JS_RESTART_MARKERS) || p == segment)
                return -1;
            seen++;
            p = segment = m + 1;
            continue;
        }
        if (*m == JS_STUFFED_ZERO)
            return -1; /* 0xFF 0xFF 0x00: not valid entropy data */
        /* libjpeg warns about an interval without data, or a missing RSTn. */
        if (seen != expected || p == segment)
            return -1;
        *next = p;
        return 0;
    }
}

/* ---------------------------------------------------------------------------
 * Stage 3: DC planes
 */

/* Decodes a sequential, DC first or DC refinement scan into the DC planes.
 * Sets *next to the byte after the scan's data (where a marker must start).
 * Returns 0 or -1. */
static int decode_dc_scan(dc_state *st, const js_scan *scan, int kind, const uint8_t **next) {
    int n = scan->n;
    /* A one-component scan covers that component's real blocks, one block an
     * MCU; an interleaved scan covers the MCU grid, h x v blocks each. */
    const js_frame *f = &st->f;
    size_t mcus_x = n == 1 ? f->comp[scan->comp[0]].bw : f->mcux;
    size_t mcus_y = n == 1 ? f->comp[scan->comp[0]].bh : f->mcuy;
    int bh[JS_MAX_SCAN_COMPONENTS], bv[JS_MAX_SCAN_COMPONENTS];
    const dc_huff *dct[JS_MAX_SCAN_COMPONENTS], *act[JS_MAX_SCAN_COMPONENTS];
    for (int i = 0; i < n; i++) {
        bh[i] = n == 1 ? 1 : f->comp[scan->comp[i]].h;
        bv[i] = n == 1 ? 1 : f->comp[scan->comp[i]].v;
        dct[i] = built_dc_table(st, scan->dc_table[i]);
        act[i] = built_ac_table(st, scan->ac_table[i]);
    }
    int Al = scan->Al;
    int16_t refine_bit = (int16_t) (1 << Al);

    js_bits b = { scan->data, st->s.end, 0, 0, 0, 0 };
    int32_t pred[JS_MAX_SCAN_COMPONENTS] = { 0, 0, 0, 0 };
    unsigned restart = st->s.restart_interval, left = restart;
    int next_rst = 0;
    for (size_t my = 0; my < mcus_y; my++) {
        for (size_t mx = 0; mx < mcus_x; mx++) {
            if (js_restart_dc(&b, restart, &left, &next_rst, pred))
                return -1;
            for (int i = 0; i < n; i++) {
                int16_t *plane = st->comp[scan->comp[i]].dc;
                size_t pw = f->comp[scan->comp[i]].pw;
                for (int by = 0; by < bv[i]; by++) {
                    int16_t *row = plane + (my * (size_t) bv[i] + (size_t) by) * pw +
                                   mx * (size_t) bh[i];
                    for (int bx = 0; bx < bh[i]; bx++) {
                        if (kind == SCAN_DC_REFINE) {
                            if (js_get_bit(&b))
                                row[bx] |= refine_bit;
                            continue;
                        }
                        int size = js_symbol(&b, &dct[i]->base);
                        if (size < 0)
                            return -1;
                        int32_t diff = js_extend(&b, size);
                        if (kind == SCAN_SEQUENTIAL) {
                            /* jdhuff.c lets the prediction wrap. */
                            pred[i] = (int32_t) ((uint32_t) pred[i] + (uint32_t) diff);
                            row[bx] = (int16_t) pred[i];
                            if (skip_ac(&b, act[i]))
                                return -1;
                        } else {
                            /* jdphuff.c stops at an overflow; the value is
                             * shifted by Al and kept to 16 bits. */
                            int64_t sum = (int64_t) pred[i] + diff;
                            if (sum > INT32_MAX || sum < INT32_MIN)
                                return -1;
                            pred[i] = (int32_t) sum;
                            row[bx] = (int16_t) ((uint32_t) pred[i] << Al);
                        }
                    }
                }
            }
            if (js_overrun(&b))
                return -1; /* bits taken from past the end of the data: truncated */
        }
    }
    /* Only the padding of the last byte may follow the last MCU. */
    if (js_leftover(&b))
        return -1;
    *next = b.p;
    return 0;
}

/* Every scan in file order, up to EOI: the markers between scans (tables,
 * restart interval) read, each scan checked and its tables built, DC scans
 * decoded into the planes, AC scans skipped. Returns 0 or -1. */
static int read_scans(dc_state *st, j_decompress_ptr cinfo) {
    js_scan scan;
    if (js_first_scan(&st->s, cinfo, st->f.nc, &scan))
        return -1;
    for (;;) {
        int kind = prepare_scan(st, &scan);
        if (kind < 0)
            return -1;
        const uint8_t *next;
        if (kind == SCAN_AC ? skip_ac_scan(st, &scan, &next)
                            : decode_dc_scan(st, &scan, kind, &next))
            return -1;
        int more = js_read_markers(&st->s, cinfo, st->f.nc, next, &scan);
        if (more <= 0)
            return more; /* 0 at EOI, -1 on error */
    }
}

/* Whether every component of a progressive file had some AC data among
 * coefficients 1...9. libjpeg's block smoothing (jdcoefct.c,
 * decompress_smooth_data, on by default) replaces the DC value of a
 * component that has none by a 5x5 filter of its neighbours' DC values; the
 * DC decode does not copy that, so it leaves such files to libjpeg. (With
 * some AC data, smoothing only estimates missing AC coefficients, which the
 * 1x1 IDCT does not use.) */
static int ac_seen_everywhere(const dc_state *st) {
    for (int c = 0; c < st->f.nc; c++) {
        int seen = 0;
        for (int k = 1; k <= SMOOTHING_LAST_COEFFICIENT; k++)
            seen |= st->f.comp[c].bits[k] >= 0;
        if (!seen)
            return 0;
    }
    return 1;
}

/* Whether the scans left every component's DC coefficient complete (one
 * sequential scan each; or every bit of it in a progressive file) and
 * libjpeg would not smooth it (ac_seen_everywhere). */
static int dc_complete(const dc_state *st) {
    for (int c = 0; c < st->f.nc; c++)
        if (st->f.progressive ? st->f.comp[c].bits[0] != 0 : st->comp[c].scans != 1)
            return 0;
    return !st->f.progressive || ac_seen_everywhere(st);
}

/* ---------------------------------------------------------------------------
 * Stage 4: samples, upsampling and colour
 */

/* libjpeg's 1x1 IDCT (jidctred.c, jpeg_idct_1x1): dequantise with 16-bit
 * operands (ISLOW_MULT_TYPE is short in SIMD builds), descale by 8, then
 * look the value up in the post-IDCT range-limit table (jdmaster.c,
 * prepare_range_limit_table) by its low 10 bits: the table level-shifts by
 * 128 and clamps within -512...511 but wraps beyond, as here. */
static uint8_t idct_1x1(int16_t coefficient, int quant) {
    int32_t value = (int32_t) coefficient * (int32_t) (int16_t) quant;
    int index = (int) ((value + (1 << (IDCT_1X1_SHIFT - 1))) >> IDCT_1X1_SHIFT) & IDCT_RANGE_MASK;
    if (index < SAMPLE_CENTER)
        return (uint8_t) (index + SAMPLE_CENTER);           /* 0...127 */
    if (index < IDCT_RANGE_SIZE / 2)
        return SAMPLE_MAX;                                  /* 128...511 */
    if (index < IDCT_RANGE_SIZE - SAMPLE_CENTER)
        return 0;                                           /* -512...-129 */
    return (uint8_t) (index - (IDCT_RANGE_SIZE - SAMPLE_CENTER)); /* -128...-1 */
}

/* Turns a component's coefficient plane into samples, in place: sample i
 * (byte i) is written after coefficient i (bytes 2i, 2i + 1) is read, and
 * never over a coefficient still to read. The plane keeps its stride of pw
 * samples. */
static uint8_t *samples_in_place(const js_component *g, dc_component *comp) {
    uint8_t *samples = (uint8_t *) comp->dc;
    size_t count = g->pw * g->ph;
    for (size_t i = 0; i < count; i++)
        samples[i] = idct_1x1(comp->dc[i], comp->quant);
    return samples;
}

/* The fixed-point bilinear tap of output sample `x` from a plane of `size`
 * samples that is `ratio` times sparser, centres aligned (libjpeg's "fancy"
 * upsampling for a ratio of 2): samples i0 and i1, weight w/256 on i1. */
static void tap(int x, int ratio, int size, int *i0, int *i1, int *w) {
    int f = ((2 * x + 1) * TAP_ONE) / (2 * ratio) - TAP_ONE / 2; /* 1/256 units */
    int a = f < 0 ? 0 : f >> TAP_BITS;
    int weight = f < 0 ? 0 : f & (TAP_ONE - 1);
    if (a > size - 1) { a = size - 1; weight = 0; }
    *i0 = a;
    *i1 = a + 1 < size ? a + 1 : size - 1;
    *w = weight;
}

/* One sample plane as the upsampler reads it. */
typedef struct {
    const uint8_t *samples;
    size_t stride;      /* samples per row (the plane's pw) */
    int rx, ry;         /* how many times sparser than the output */
    int cols, rows;     /* samples holding real pixels (the rest is MCU padding) */
    int *x0, *x1, *wx;  /* per output column: the two taps and the weight of x1 */
} upsample_plane;

/* Output row y of a plane: copied when the plane is at full size, else
 * bilinear between two rows and two columns. */
static void upsample_row(const upsample_plane *p, size_t y, size_t ow, uint8_t *line) {
    int y0, y1, wy;
    tap((int) y, p->ry, p->rows, &y0, &y1, &wy);
    const uint8_t *r0 = p->samples + (size_t) y0 * p->stride;
    const uint8_t *r1 = p->samples + (size_t) y1 * p->stride;
    if (p->rx == 1 && p->ry == 1) {
        memcpy(line, r0, ow);
        return;
    }
    for (size_t x = 0; x < ow; x++) {
        int a = p->x0[x], bb = p->x1[x], w = p->wx[x];
        int top = r0[a] * (TAP_ONE - w) + r0[bb] * w;
        int bottom = r1[a] * (TAP_ONE - w) + r1[bb] * w;
        line[x] = (uint8_t) ((top * (TAP_ONE - wy) + bottom * wy + (1 << (2 * TAP_BITS - 1))) >> (2 * TAP_BITS));
    }
}

/* Upsamples the three sample planes to ow x oh and converts them to RGB
 * into `out`, a row at a time. Returns 0 or -1 (out of memory). */
static int render_colour(const dc_state *st, uint8_t *const samples[JS_MAX_COMPONENTS], size_t ow,
                         size_t oh, uint8_t *out) {
    int *taps = malloc(sizeof(int) * 3 * JS_MAX_COMPONENTS * ow);
    uint8_t *scratch = malloc(JS_MAX_COMPONENTS * ow);
    if (!taps || !scratch) {
        free(taps);
        free(scratch);
        return -1;
    }
    upsample_plane plane[JS_MAX_COMPONENTS];
    uint8_t *line[JS_MAX_COMPONENTS];
    for (int i = 0; i < JS_MAX_COMPONENTS; i++) {
        const js_component *comp = &st->f.comp[i];
        upsample_plane *p = &plane[i];
        p->samples = samples[i];
        p->stride = comp->pw;
        p->rx = st->f.hmax / comp->h;
        p->ry = st->f.vmax / comp->v;
        p->cols = (int) comp->bw;
        p->rows = (int) comp->bh;
        p->x0 = taps + (3 * i) * ow;
        p->x1 = taps + (3 * i + 1) * ow;
        p->wx = taps + (3 * i + 2) * ow;
        for (size_t x = 0; x < ow; x++)
            tap((int) x, p->rx, p->cols, &p->x0[x], &p->x1[x], &p->wx[x]);
        line[i] = scratch + (size_t) i * ow;
    }
    for (size_t y = 0; y < oh; y++) {
        for (int i = 0; i < JS_MAX_COMPONENTS; i++)
            upsample_row(&plane[i], y, ow, line[i]);
        js_rows_to_rgb(st->f.ycc, line[0], line[1], line[2], ow, out + y * ow * 3);
    }
    free(scratch);
    free(taps);
    return 0;
}

/* The DC planes as ow x oh pixels in `out`: grey rows copied, colour
 * upsampled and converted. The planes become sample planes. Returns 0 or
 * -1 (out of memory). */
static int render_pixels(dc_state *st, size_t ow, size_t oh, uint8_t *out) {
    uint8_t *samples[JS_MAX_COMPONENTS];
    for (int c = 0; c < st->f.nc; c++)
        samples[c] = samples_in_place(&st->f.comp[c], &st->comp[c]);
    if (st->f.nc == 1) {
        for (size_t y = 0; y < oh; y++)
            memcpy(out + y * ow, samples[0] + y * st->f.comp[0].pw, ow);
        return 0;
    }
    return render_colour(st, samples, ow, oh, out);
}

/* ---------------------------------------------------------------------------
 * The decode
 */

/* floor(size / 8), at least 1: libvips's loader drops the last, partial
 * pixel of a shrunk JPEG, and both paths must agree. */
static size_t output_size(size_t size) {
    return size / DCTSIZE ? size / DCTSIZE : 1;
}

/* Whether the image (ow x oh x nc bytes) and the DC planes (two bytes per
 * block) fit in `max_bytes` together. */
static int fits_budget(const dc_state *st, size_t ow, size_t oh, size_t max_bytes) {
    const js_frame *f = &st->f;
    if (oh > max_bytes / ((size_t) f->nc * ow))
        return 0;
    size_t plane_bytes = 0;
    for (int c = 0; c < f->nc; c++)
        plane_bytes += sizeof(int16_t) * f->comp[c].pw * f->comp[c].ph;
    /* The image fits (checked above), so this does not wrap. */
    return plane_bytes + (size_t) f->nc * ow * oh <= max_bytes;
}

/* The built Huffman tables and one zeroed DC plane per component (blocks no
 * scan reaches, the MCU padding of one-component scans, stay 0). Returns 0
 * or -1; release_planes frees what was allocated either way. */
static int allocate_planes(dc_state *st) {
    st->derived = malloc(sizeof(dc_huff) * 2 * JS_TABLES);
    if (!st->derived)
        return -1;
    for (int c = 0; c < st->f.nc; c++) {
        st->comp[c].dc = calloc(st->f.comp[c].pw * st->f.comp[c].ph, sizeof(int16_t));
        if (!st->comp[c].dc)
            return -1;
    }
    return 0;
}

static void release_planes(dc_state *st) {
    for (int c = 0; c < st->f.nc; c++)
        free(st->comp[c].dc);
    free(st->derived);
}

int jpeg_dc_decode(j_decompress_ptr cinfo, const uint8_t *end, size_t max_bytes,
                   uint8_t **pixels_out, size_t *width_out, size_t *height_out,
                   int *bands_out, int *decoder_out) {
    dc_state st;
    memset(&st, 0, sizeof st);
    if (setup_frame(&st, cinfo))
        return -1;
    js_stream_init(&st.s, cinfo, end);
    size_t ow = output_size(st.f.width), oh = output_size(st.f.height);
    if (!fits_budget(&st, ow, oh, max_bytes))
        return -1;

    uint8_t *pixels = NULL;
    int result = -1;
    if (allocate_planes(&st) == 0 && read_scans(&st, cinfo) == 0 && dc_complete(&st) &&
        (pixels = malloc(ow * oh * (size_t) st.f.nc)) != NULL &&
        render_pixels(&st, ow, oh, pixels) == 0) {
        *pixels_out = pixels;
        pixels = NULL;
        *width_out = ow;
        *height_out = oh;
        *bands_out = st.f.nc;
        *decoder_out = st.f.progressive ? JPEG_DC_PROGRESSIVE : JPEG_DC_BASELINE;
        result = 0;
    }
    free(pixels);
    release_planes(&st);
    return result;
}

int jpeg_dc_capable(j_decompress_ptr cinfo) {
    dc_state st;
    memset(&st, 0, sizeof st);
    return setup_frame(&st, cinfo) == 0;
}
