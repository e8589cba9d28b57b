/* The 1/8-scale JPEG decode of the common thumbnail case: DC coefficients only.
 * (And a baseline file's 1/4: see QUARTER below.)
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

#include <pthread.h>
#include <stddef.h>
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
 *      coefficients (at 1/4 keep_low_ac decodes the first three first);
 *      skip_ac_scan passes over a whole progressive AC scan.
 *   3. DC planes: decode_dc_scan decodes DC coefficients (first passes and
 *      refinements) into one int16 plane per component, through
 *      decode_mcus, one loop per scan kind; dc_complete checks that every
 *      DC coefficient is whole.
 *   4. Upsampling and colour: samples_in_place applies the 1x1 IDCT (at 1/4
 *      quarter_samples the 2x2 one), upsample_row brings subsampled chroma
 *      to the output size and js_rows_to_rgb converts YCbCr to RGB.
 *
 * jpeg_dc_decode runs them in that order (read_scans drives stages 1 to 3
 * scan by scan, render_pixels does stage 4). */

/* ---------------------------------------------------------------------------
 * Constants
 */

/* The multi-symbol AC skip table's lookahead (JS_LOOK indexes the
 * one-symbol tables). */
#define MLOOK 12
/* The DC table's lookahead for a symbol and its magnitude bits together:
 * most DC differences of a photo take fewer bits than that. Equal to MLOOK,
 * so that both tables share one union. */
#define DC_LOOK MLOOK
#define DC_FAST_LENGTH_SHIFT 16
/* dc_pair: two differences whose codes (1 bit at least each) and magnitude
 * bits fit in DC_LOOK bits have 10 magnitude bits at most together, so each
 * fits in 11 signed bits. */
#define DC_PAIR_DIFF_BITS 11
#define DC_PAIR_LENGTH_MASK 0x3F
#define DC_PAIR_FIRST_SHIFT 6
#define DC_PAIR_SECOND_SHIFT (DC_PAIR_FIRST_SHIFT + DC_PAIR_DIFF_BITS)

/* An AC symbol is run << 4 | size. Size 0 is EOB (the rest of the block is
 * zero), or ZRL (sixteen zeros) when the run is 15. */
#define AC_ZRL_RUN 15
#define AC_ZRL_ADVANCE 16
/* The `advance` field of a multi-symbol skip entry has 8 bits. */
#define MULTI_ADVANCE_MAX 255

/* decode_mcus's `flat` for an interleaved sequential scan of luma's H x V
 * blocks, then one block of each chroma component (subsampled_shape). */
#define SUBSAMPLED_SHAPE 2

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

/* The 1/4 decode (QUARTER_SHRINK) keeps per block the DC and the AC
 * coefficients at zigzag 1, 2 and 4 (natural (0,1), (1,0), (1,1)), and
 * makes each block's 2 x 2 pixels from them: the mean of each 4 x 4 quarter
 * of the block's 8 x 8 inverse DCT when its other coefficients are zero.
 * Over a half of the block, cos((2n + 1) k pi / 16) averages to 0 for even
 * k > 0 and to +-0.6407 for k = 1, so a quarter's mean is
 * F00 / 8 +- 0.11327 F01 +- 0.11327 F10 +- 0.10263 F11 (F dequantised;
 * + on the top or left half). libjpeg's 2 x 2 reduced IDCT (jidctred.c)
 * adds coefficients 3, 5 and 7 of each direction, which photos hold little
 * of, but which cost the decode of every AC coefficient of the block to
 * reach; this decode skips them undecoded. The weights are in 1/8192. */
#define QUARTER_SHRINK 4
#define QUARTER_CELL 2
#define QUARTER_AC 3
#define QUARTER_BITS 13
#define QUARTER_DC_WEIGHT (1 << (QUARTER_BITS - IDCT_1X1_SHIFT)) /* 1/8 */
#define QUARTER_EDGE_WEIGHT 928                                  /* 0.11327 */
#define QUARTER_CORNER_WEIGHT 841                                /* 0.10263 */
static const uint8_t quarter_zigzag[QUARTER_AC] = { 1, 2, 4 };

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
    union {
        /* AC: multi-symbol skip, MLOOK bits: drop << 16 | pre << 8 |
         * advance, where `pre` is the advance before the group's last
         * symbol. */
        uint32_t multi[1 << MLOOK];
        /* DC: a DC symbol and its magnitude bits at once, DC_LOOK bits:
         * bits to drop << 16 | the difference as 16 bits, 0 = slow (the
         * code is longer than JS_LOOK bits, or code and magnitude together
         * longer than DC_LOOK). */
        uint32_t dc_fast[1 << DC_LOOK];
    };
    union {
        /* AC at 1/4 (keep_low_ac): a symbol and its magnitude bits at
         * once, MLOOK bits: AC_FAST_EOB for an end of block, else bits to
         * drop << 24 | run << 16 | the coefficient as 16 bits (ZRL: a run
         * of 15 and a 0); 0 = slow. */
        uint32_t ac_fast[1 << MLOOK];
        /* DC: two differences at once (dc_fast twice), DC_LOOK bits: the
         * second << DC_PAIR_SECOND_SHIFT | the first << DC_PAIR_FIRST_SHIFT
         * | the bits both take, each difference as DC_PAIR_DIFF_BITS signed
         * bits; 0 where the two do not fit. */
        uint32_t dc_pair[1 << DC_LOOK];
    };
} dc_huff;

/* HUFF_AC_LOW: an AC table for the 1/4 decode, which decodes a block's
 * first AC coefficients (ac_fast) before it skips the rest. */
enum huff_use { HUFF_CHECK, HUFF_DC, HUFF_AC, HUFF_AC_LOW };

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

/* The DC symbol-and-difference table, from `look`: for every DC_LOOK bits
 * that start with a code of at most JS_LOOK bits followed by all of its
 * magnitude bits, the bits both take and the difference they give
 * (js_extend's sign extension); 0 where the slow way must decode. */
static void fill_dc_fast(dc_huff *h) {
    for (uint32_t j = 0; j < (1u << DC_LOOK); j++) {
        uint16_t e = h->base.look[j >> (DC_LOOK - JS_LOOK)];
        int l = e >> 8, size = e & 0xFF;
        if (!e || l + size > DC_LOOK) {
            h->dc_fast[j] = 0;
            continue;
        }
        int32_t diff = size ? (int32_t) ((j >> (DC_LOOK - l - size)) & ((1u << size) - 1)) : 0;
        if (size && diff < (1 << (size - 1)))
            diff += (int32_t) (~0u << size) + 1;
        h->dc_fast[j] = (uint32_t) (l + size) << DC_FAST_LENGTH_SHIFT | (uint16_t) (int16_t) diff;
    }
}

#define AC_FAST_LENGTH_SHIFT 24
#define AC_FAST_RUN_SHIFT 16
#define AC_FAST_EOB 0x80000000u

/* The AC symbol-and-coefficient table (ac_fast), from `look`, as
 * fill_dc_fast makes the DC one. */
static void fill_ac_fast(dc_huff *h) {
    for (uint32_t j = 0; j < (1u << MLOOK); j++) {
        uint16_t e = h->base.look[j >> (MLOOK - JS_LOOK)];
        int l = e >> 8, symbol = e & 0xFF, run = symbol >> 4, size = symbol & 15;
        if (!e || l + size > MLOOK) {
            h->ac_fast[j] = 0;
            continue;
        }
        if (!size && run != AC_ZRL_RUN) {
            h->ac_fast[j] = AC_FAST_EOB | (uint32_t) l << AC_FAST_LENGTH_SHIFT;
            continue;
        }
        int32_t value = size ? (int32_t) ((j >> (MLOOK - l - size)) & ((1u << size) - 1)) : 0;
        if (size && value < (1 << (size - 1)))
            value += (int32_t) (~0u << size) + 1;
        h->ac_fast[j] = (uint32_t) (l + size) << AC_FAST_LENGTH_SHIFT | (uint32_t) run << AC_FAST_RUN_SHIFT |
                        (uint16_t) (int16_t) value;
    }
}

/* The two-difference table (dc_pair) from dc_fast: a first entry, then one
 * for the bits after it, taken only when its length keeps within the
 * DC_LOOK bits there are (the rest of the index is zeros). */
static void fill_dc_pair(dc_huff *h) {
    const uint32_t mask = (1u << DC_LOOK) - 1, diff_mask = (1u << DC_PAIR_DIFF_BITS) - 1;
    for (uint32_t j = 0; j < (1u << DC_LOOK); j++) {
        uint32_t first = h->dc_fast[j];
        int l1 = (int) (first >> DC_FAST_LENGTH_SHIFT);
        uint32_t second = first && l1 < DC_LOOK ? h->dc_fast[(j << l1) & mask] : 0;
        int l2 = (int) (second >> DC_FAST_LENGTH_SHIFT);
        if (!second || l1 + l2 > DC_LOOK) {
            h->dc_pair[j] = 0;
            continue;
        }
        uint32_t d1 = (uint32_t) (int32_t) (int16_t) (first & 0xFFFF), d2 = (uint32_t) (int32_t) (int16_t) (second & 0xFFFF);
        h->dc_pair[j] = (d2 & diff_mask) << DC_PAIR_SECOND_SHIFT | (d1 & diff_mask) << DC_PAIR_FIRST_SHIFT |
                        (uint32_t) (l1 + l2);
    }
}

/* Validates `table` (js_build_huff) and, for HUFF_DC, HUFF_AC and
 * HUFF_AC_LOW, fills `h`. Returns 0 or -1. */
static int build_huff(const js_raw_huff *table, dc_huff *h, enum huff_use use) {
    if (js_build_huff(table, use == HUFF_CHECK ? NULL : &h->base, use == HUFF_DC))
        return -1;
    if (use == HUFF_DC) {
        fill_dc_fast(h);
        fill_dc_pair(h);
    }
    if (use == HUFF_AC || use == HUFF_AC_LOW) {
        fill_skip(h);
        fill_multi(h);
    }
    if (use == HUFF_AC_LOW)
        fill_ac_fast(h);
    return 0;
}

/* ---------------------------------------------------------------------------
 * Decoder state
 */

/* What this decoder keeps of a component besides its geometry (js_frame). */
typedef struct {
    int16_t *dc;     /* DC coefficient per block, pw x ph, row-major; after
                        samples_in_place, one 8-bit sample per block, stride pw.
                        At 1/4, a cell of 2 x 2 per block, (2 pw) x (2 ph): the
                        coefficients (0,0), (0,1) on its first row, (1,0), (1,1)
                        on its second (see QUARTER) */
    int quant;       /* DC quantiser latched at the component's first scan, -1 before */
    int quant_low[QUARTER_AC]; /* at 1/4: the quantisers of zigzag 1, 2 and 4, latched with it */
    int scans;       /* sequential files: scans holding this component */
} dc_component;

/* The whole decode: the frame, the tables as last defined, the planes. */
typedef struct {
    int cell;                 /* plane entries per block and side: 1 at 1/8, 2 at 1/4 */
    js_frame f;               /* the frame, and the progression of a progressive file */
    js_stream s;              /* the tables as last defined, the restart interval */
    dc_component comp[JS_MAX_COMPONENTS];
    dc_huff *derived;         /* built tables: DC 0...3 then AC 0...3 (built_dc_table, built_ac_table) */
    struct scratch_block *scratch; /* the memory of `derived` and the planes (allocate_planes) */
} dc_state;

/* SCAN_SEQUENTIAL_LOW is a sequential scan decoded at 1/4 (decode_mcus):
 * it keeps each block's three lowest AC coefficients too. */
enum scan_kind { SCAN_SEQUENTIAL, SCAN_DC_FIRST, SCAN_DC_REFINE, SCAN_AC, SCAN_SEQUENTIAL_LOW };

static dc_huff *built_dc_table(const dc_state *st, int table) {
    return &st->derived[table];
}

static dc_huff *built_ac_table(const dc_state *st, int table) {
    return &st->derived[JS_TABLES + table];
}

static int build_kept(dc_state *st, int slot, const js_raw_huff *raw, enum huff_use use);

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
            for (int k = 0; k < QUARTER_AC; k++)
                comp->quant_low[k] = st->s.quant[table][js_natural_order[quarter_zigzag[k]]];
        }
        int d = scan->dc_table[i], a = scan->ac_table[i];
        if (d >= JS_TABLES || a >= JS_TABLES)
            return -1;
        if (kind == SCAN_SEQUENTIAL || kind == SCAN_DC_FIRST)
            if (build_kept(st, d, &st->s.dc[d], HUFF_DC))
                return -1;
        if (kind == SCAN_SEQUENTIAL)
            if (build_kept(st, JS_TABLES + a, &st->s.ac[a], st->cell == QUARTER_CELL ? HUFF_AC_LOW : HUFF_AC))
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

/* Skips the AC coefficients of a sequential block from zigzag position k
 * (1 for all 63) to its end. Returns 0 or -1. */
static inline __attribute__((always_inline)) int skip_ac(js_bits *b, const dc_huff *ah, int k) {
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

/* Decodes a sequential block's AC coefficients at zigzag 1, 2 and 4 into its
 * cell (`cell[1]`, `cell[stride]`, `cell[stride + 1]`: see QUARTER) and
 * skips the rest. Coefficients are kept to 16 bits as libjpeg keeps them
 * (JCOEF). Returns 0 or -1. */
static inline __attribute__((always_inline)) int keep_low_ac(js_bits *b, const dc_huff *ah, int16_t *cell,
                                                             size_t stride) {
    int16_t low[DCTSIZE2 / 8] = { 0, 0, 0, 0, 0, 0, 0, 0 }; /* zigzag 0...7 */
    int k = 1;
    while (k <= quarter_zigzag[QUARTER_AC - 1]) {
        if (b->nbits < JS_SYMBOL_BITS)
            js_refill(b);
        uint32_t e = ah->ac_fast[b->acc >> (64 - MLOOK)];
        if (e) {
            js_drop(b, (int) ((e >> AC_FAST_LENGTH_SHIFT) & 0x1F));
            if (e & AC_FAST_EOB) {
                k = DCTSIZE2;
                break;
            }
            k += (int) ((e >> AC_FAST_RUN_SHIFT) & 15);
            if (k < DCTSIZE2 / 8)
                low[k] = (int16_t) (e & 0xFFFF);
            k++;
            continue;
        }
        int symbol = js_symbol(b, &ah->base);
        if (symbol < 0)
            return -1;
        int run = symbol >> 4, size = symbol & 15;
        if (!size) {
            if (run != AC_ZRL_RUN) {
                k = DCTSIZE2; /* EOB: the rest of the block is zero */
                break;
            }
            k += AC_ZRL_ADVANCE;
            continue;
        }
        k += run;
        int32_t value = js_extend(b, size);
        if (k < DCTSIZE2 / 8)
            low[k] = (int16_t) value;
        k++;
    }
    cell[1] = low[quarter_zigzag[0]];
    cell[stride] = low[quarter_zigzag[1]];
    cell[stride + 1] = low[quarter_zigzag[2]];
    return skip_ac(b, ah, k);
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

/* Where a scan's blocks go: the blocks of one MCU in decode order, each
 * with its component's position in the scan and its offset from the MCU's
 * first block in that component's plane; and per component of the scan the
 * plane, its stride, and how far the MCU's first block moves per MCU across
 * and per MCU row down. A one-component scan has one block per MCU. A block
 * is a cell of st->cell x st->cell plane entries (1 x 1 at 1/8). */
typedef struct {
    int blocks;                                /* blocks per MCU, 1...10 */
    int scan_comp[JS_MAX_BLOCKS_IN_MCU];       /* per block: its component (index in the scan) */
    size_t offset[JS_MAX_BLOCKS_IN_MCU];       /* per block: from the MCU's first block, in entries */
    int16_t *plane[JS_MAX_SCAN_COMPONENTS];
    size_t stride[JS_MAX_SCAN_COMPONENTS];     /* entries per plane row: pw x cell */
    size_t across[JS_MAX_SCAN_COMPONENTS];     /* h cells (1 for a one-component scan) */
    size_t down[JS_MAX_SCAN_COMPONENTS];       /* v rows of cells (1 row) */
    size_t mcus_x, mcus_y;
} mcu_layout;

static void layout_scan(const dc_state *st, const js_scan *scan, mcu_layout *m) {
    const js_frame *f = &st->f;
    int n = scan->n;
    /* A one-component scan covers that component's real blocks, one block an
     * MCU; an interleaved scan covers the MCU grid, h x v blocks each. */
    m->mcus_x = n == 1 ? f->comp[scan->comp[0]].bw : f->mcux;
    m->mcus_y = n == 1 ? f->comp[scan->comp[0]].bh : f->mcuy;
    m->blocks = 0;
    size_t cell = (size_t) st->cell;
    for (int i = 0; i < n; i++) {
        const js_component *g = &f->comp[scan->comp[i]];
        int h = n == 1 ? 1 : g->h, v = n == 1 ? 1 : g->v;
        size_t stride = g->pw * cell;
        m->plane[i] = st->comp[scan->comp[i]].dc;
        m->stride[i] = stride;
        m->across[i] = (size_t) h * cell;
        m->down[i] = (size_t) v * cell * stride;
        /* js_mcu_fits (classify_scan) has kept this within 10 blocks. */
        for (int by = 0; by < v; by++)
            for (int bx = 0; bx < h; bx++) {
                m->scan_comp[m->blocks] = i;
                m->offset[m->blocks] = (size_t) by * cell * stride + (size_t) bx * cell;
                m->blocks++;
            }
    }
}

/* The next DC difference: a symbol and its magnitude bits, by one lookup of
 * DC_LOOK bits when they fit, else symbol then bits. Returns 0 with *diff,
 * or -1 for a bad code. */
static inline __attribute__((always_inline)) int dc_difference(js_bits *b, const dc_huff *h, int32_t *diff) {
    if (b->nbits < JS_SYMBOL_BITS)
        js_refill(b);
    uint32_t e = h->dc_fast[b->acc >> (64 - DC_LOOK)];
    if (e) {
        js_drop(b, (int) (e >> DC_FAST_LENGTH_SHIFT));
        *diff = (int16_t) (e & 0xFFFF);
        return 0;
    }
    int size = js_symbol(b, &h->base);
    if (size < 0)
        return -1;
    *diff = js_extend(b, size);
    return 0;
}

/* A DC first pass's difference added to the prediction `*pred` and stored
 * in `*block`: jdphuff.c stops at an overflow; the value is shifted by Al
 * and kept to 16 bits. Returns 0 or -1. */
static inline __attribute__((always_inline)) int dc_first_value(int Al, int32_t diff, int32_t *pred,
                                                                int16_t *block) {
    int64_t sum = (int64_t) *pred + diff;
    if (sum > INT32_MAX || sum < INT32_MIN)
        return -1;
    *pred = (int32_t) sum;
    *block = (int16_t) ((uint32_t) *pred << Al);
    return 0;
}

/* The next two blocks of a DC first pass whose components share the DC
 * table `dct` (two components, or twice the same one with `pred1` and
 * `pred2` the same prediction): both differences by one lookup (dc_pair)
 * when they fit, else one block after the other; either way the first is
 * added to its prediction before the second. Returns 0 or -1. */
static inline __attribute__((always_inline)) int dc_first_pair(js_bits *b, int Al, const dc_huff *dct,
                                                               int32_t *pred1, int16_t *block1,
                                                               int32_t *pred2, int16_t *block2) {
    if (b->nbits < JS_SYMBOL_BITS)
        js_refill(b);
    uint32_t e = dct->dc_pair[b->acc >> (64 - DC_LOOK)];
    int32_t diff1, diff2;
    if (e) {
        js_drop(b, (int) (e & DC_PAIR_LENGTH_MASK));
        /* Each difference's sign bit moved to bit 31, then shifted back. */
        diff1 = (int32_t) (e << (32 - DC_PAIR_SECOND_SHIFT)) >> (32 - DC_PAIR_DIFF_BITS);
        diff2 = (int32_t) (e << (32 - DC_PAIR_SECOND_SHIFT - DC_PAIR_DIFF_BITS)) >> (32 - DC_PAIR_DIFF_BITS);
    } else {
        if (dc_difference(b, dct, &diff1) || dc_first_value(Al, diff1, pred1, block1) ||
            dc_difference(b, dct, &diff2))
            return -1;
        return dc_first_value(Al, diff2, pred2, block2);
    }
    return dc_first_value(Al, diff1, pred1, block1) || dc_first_value(Al, diff2, pred2, block2) ? -1 : 0;
}

/* One block of a sequential or DC first scan of `kind`: its DC difference
 * added to the component's prediction `*pred` and stored in `*block`; in a
 * sequential scan its AC coefficients skipped, or at 1/4 the lowest three
 * kept in its cell (`stride` entries per plane row) and the rest skipped.
 * Returns 0 or -1. */
static inline __attribute__((always_inline)) int decode_block(js_bits *b, enum scan_kind kind, int Al,
                                                              const dc_huff *dct, const dc_huff *act,
                                                              int32_t *pred, int16_t *block, size_t stride) {
    int32_t diff;
    if (dc_difference(b, dct, &diff))
        return -1;
    if (kind == SCAN_SEQUENTIAL || kind == SCAN_SEQUENTIAL_LOW) {
        /* jdhuff.c lets the prediction wrap. */
        *pred = (int32_t) ((uint32_t) *pred + (uint32_t) diff);
        *block = (int16_t) *pred;
        return kind == SCAN_SEQUENTIAL ? skip_ac(b, act, 1) : keep_low_ac(b, act, block, stride);
    }
    return dc_first_value(Al, diff, pred, block);
}

/* The MCUs of a scan of `kind` into the DC planes, with restart intervals of
 * `restart` MCUs (0 for none). Inlined with `kind` a constant at each call
 * (decode_dc_scan), so that each kind has a loop of its own without
 * per-block tests of the kind; and with `restart` a constant 0 for the usual
 * file, whose loop then never hands the bit reader to a function that is not
 * inlined, so that the reader lives in registers (it is a local copy of
 * `*reader`, written back at the end). `flat` is 0, or a constant 1 or 3
 * for a scan of that many components with one block each per MCU (every
 * one-component scan, and interleaved scans of unsubsampled files): the
 * loops over an MCU's blocks then unroll, and block k is component k at
 * the MCU's origin, without the layout's per-block lookups. In a
 * sequential scan `flat` may also be SUBSAMPLED_SHAPE, the MCU of nearly
 * every camera's JPEG (4:2:2, 4:2:0, 4:4:0: luma's H x V blocks, then one
 * block of each chroma component; subsampled_shape), whose loop names the
 * components the same way.
 * Returns 0 or -1. */
static inline __attribute__((always_inline)) int decode_mcus(const dc_state *st, const js_scan *scan,
                                                             const mcu_layout *m, enum scan_kind kind,
                                                             unsigned restart, int flat, js_bits *reader) {
    js_bits bits_in_registers = *reader, *b = &bits_in_registers;
    const dc_huff *dct[JS_MAX_SCAN_COMPONENTS], *act[JS_MAX_SCAN_COMPONENTS];
    for (int i = 0; i < scan->n; i++) {
        dct[i] = built_dc_table(st, scan->dc_table[i]);
        act[i] = built_ac_table(st, scan->ac_table[i]);
    }
    /* A flat scan's MCU is one cell of each component: 2 entries at 1/4. */
    const size_t flat_across = kind == SCAN_SEQUENTIAL_LOW ? QUARTER_CELL : 1;
    /* A subsampled shape: luma's blocks across (lh) and down (lv) an MCU. */
    const int sub = flat == SUBSAMPLED_SHAPE;
    const int lh = sub ? (int) (m->across[0] / flat_across) : 1, lv = sub ? (m->blocks - 2) / lh : 1;
    const int three = flat == 3 || sub;
    const int Al = scan->Al, blocks = flat && !sub ? flat : m->blocks;
    /* A flat scan's three components by name, so that their tables,
     * predictions and block pointers stay in registers (the unused ones
     * when `flat` is 1 are never read). */
    const dc_huff *dct0 = dct[0], *act0 = act[0], *dct1 = NULL, *act1 = NULL, *dct2 = NULL, *act2 = NULL;
    size_t stride0 = m->stride[0], stride1 = 0, stride2 = 0;
    if (three) {
        dct1 = dct[1], act1 = act[1], stride1 = m->stride[1];
        dct2 = dct[2], act2 = act[2], stride2 = m->stride[2];
    }
    int32_t pred[JS_MAX_SCAN_COMPONENTS] = { 0, 0, 0, 0 }, pred0 = 0, pred1 = 0, pred2 = 0;
    unsigned left = restart;
    int next_rst = 0;
    int16_t *origin[JS_MAX_SCAN_COMPONENTS];
    for (size_t my = 0; my < m->mcus_y; my++) {
        for (int i = 0; i < scan->n; i++)
            origin[i] = m->plane[i] + my * m->down[i];
        int16_t *o0 = origin[0], *o1 = three ? origin[1] : NULL, *o2 = three ? origin[2] : NULL;
        for (size_t mx = 0; mx < m->mcus_x; mx++) {
            int began = js_restart(b, restart, &left, &next_rst);
            if (began < 0)
                return -1;
            if (began) {
                /* DC predictions start again with each interval. */
                memset(pred, 0, sizeof pred);
                pred0 = pred1 = pred2 = 0;
            }
            if (kind == SCAN_DC_REFINE) {
                /* One bit per block, in block order: taken at once. */
                if (b->nbits < blocks)
                    js_refill(b);
                uint64_t bits = b->acc;
                js_drop(b, blocks);
                if (flat) {
                    *o0 |= (int16_t) ((int) (bits >> 63) << Al);
                    if (flat == 3) {
                        *o1 |= (int16_t) ((int) ((bits >> 62) & 1) << Al);
                        *o2 |= (int16_t) ((int) ((bits >> 61) & 1) << Al);
                    }
                } else {
                    for (int k = 0; k < blocks; k++, bits <<= 1)
                        origin[m->scan_comp[k]][m->offset[k]] |= (int16_t) ((int) (bits >> 63) << Al);
                }
            } else if (flat == 1 && kind == SCAN_DC_FIRST && !restart && mx + 1 < m->mcus_x) {
                /* A one-component DC first pass without restarts: the next
                 * two blocks' differences follow each other, so they are
                 * decoded as a pair (two MCUs in this step). */
                if (dc_first_pair(b, Al, dct0, &pred0, o0, &pred0, o0 + 1))
                    return -1;
                o0++;
                mx++;
            } else if (sub) {
                /* Luma's blocks row by row, then Cb's and Cr's. */
                for (int by = 0; by < lv; by++)
                    for (int bx = 0; bx < lh; bx++)
                        if (decode_block(b, kind, Al, dct0, act0, &pred0,
                                         o0 + (size_t) by * flat_across * stride0 + (size_t) bx * flat_across,
                                         stride0))
                            return -1;
                if (decode_block(b, kind, Al, dct1, act1, &pred1, o1, stride1) ||
                    decode_block(b, kind, Al, dct2, act2, &pred2, o2, stride2))
                    return -1;
            } else if (flat) {
                if (decode_block(b, kind, Al, dct0, act0, &pred0, o0, stride0))
                    return -1;
                if (flat == 3 && kind == SCAN_DC_FIRST && dct1 == dct2) {
                    /* Chroma's two DC differences, one after the other. */
                    if (dc_first_pair(b, Al, dct1, &pred1, o1, &pred2, o2))
                        return -1;
                } else if (flat == 3 && (decode_block(b, kind, Al, dct1, act1, &pred1, o1, stride1) ||
                                         decode_block(b, kind, Al, dct2, act2, &pred2, o2, stride2))) {
                    return -1;
                }
            } else {
                for (int k = 0; k < blocks; k++) {
                    int i = m->scan_comp[k];
                    if (decode_block(b, kind, Al, dct[i], act[i], &pred[i], origin[i] + m->offset[k],
                                     m->stride[i]))
                        return -1;
                }
            }
            if (flat) {
                o0 += (size_t) lh * flat_across;
                if (three) {
                    o1 += flat_across;
                    o2 += flat_across;
                }
            } else {
                for (int i = 0; i < scan->n; i++)
                    origin[i] += m->across[i];
            }
            if (js_overrun(b))
                return -1; /* bits taken from past the end of the data: truncated */
        }
    }
    *reader = bits_in_registers;
    return 0;
}

/* decode_mcus's `flat` for a scan: its component count when each component
 * has one block per MCU at the MCU's origin and the count is 1 or 3, else 0
 * (the layout's general loop). */
static int flat_shape(const js_scan *scan, const mcu_layout *m) {
    if (m->blocks != scan->n || (scan->n != 1 && scan->n != 3))
        return 0;
    for (int k = 0; k < m->blocks; k++)
        if (m->scan_comp[k] != k || m->offset[k] != 0)
            return 0;
    return scan->n;
}

/* SUBSAMPLED_SHAPE for an interleaved scan of three components whose
 * first has more than one block an MCU and the others one each (layout_scan
 * puts them in that order, luma's row by row); else 0. */
static int subsampled_shape(const js_scan *scan, const mcu_layout *m) {
    if (scan->n != 3 || m->blocks < 3)
        return 0;
    int luma = m->blocks - 2;
    for (int k = 0; k < luma; k++)
        if (m->scan_comp[k] != 0)
            return 0;
    if (m->scan_comp[luma] != 1 || m->scan_comp[luma + 1] != 2 || m->offset[luma] || m->offset[luma + 1])
        return 0;
    return luma > 1 ? SUBSAMPLED_SHAPE : 0;
}

/* Decodes a sequential, DC first or DC refinement scan into the DC planes.
 * Sets *next to the byte after the scan's data (where a marker must start).
 * Returns 0 or -1. */
JS_HOT static int decode_dc_scan(dc_state *st, const js_scan *scan, int kind, const uint8_t **next) {
    mcu_layout m;
    layout_scan(st, scan, &m);
    js_bits b = { scan->data, st->s.end, 0, 0, 0, 0 };
    unsigned restart = st->s.restart_interval;
    int status;
    /* Only sequential files come here at 1/4 (jpeg_dc_decode). */
    if (kind == SCAN_SEQUENTIAL && st->cell == QUARTER_CELL)
        kind = SCAN_SEQUENTIAL_LOW;
    /* One loop per kind, restart (some or none) and shape (flat_shape, and
     * for sequential scans subsampled_shape). */
    int flat = flat_shape(scan, &m), sub = flat ? 0 : subsampled_shape(scan, &m);
#define DECODE_SHAPES(kind, restart)                                                                     \
    (flat == 3   ? decode_mcus(st, scan, &m, kind, restart, 3, &b)                                       \
     : flat == 1 ? decode_mcus(st, scan, &m, kind, restart, 1, &b)                                       \
                 : decode_mcus(st, scan, &m, kind, restart, 0, &b))
#define DECODE_SEQUENTIAL(kind, restart)                                                                 \
    (sub ? decode_mcus(st, scan, &m, kind, restart, SUBSAMPLED_SHAPE, &b) : DECODE_SHAPES(kind, restart))
#define DECODE_KINDS(restart)                                                                            \
    (kind == SCAN_SEQUENTIAL       ? DECODE_SEQUENTIAL(SCAN_SEQUENTIAL, restart)                         \
     : kind == SCAN_SEQUENTIAL_LOW ? DECODE_SEQUENTIAL(SCAN_SEQUENTIAL_LOW, restart)                     \
     : kind == SCAN_DC_FIRST       ? DECODE_SHAPES(SCAN_DC_FIRST, restart)                               \
                                   : DECODE_SHAPES(SCAN_DC_REFINE, restart))
    status = restart ? DECODE_KINDS(restart) : DECODE_KINDS(0);
#undef DECODE_KINDS
#undef DECODE_SEQUENTIAL
#undef DECODE_SHAPES
    if (status)
        return -1;
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

static inline uint8_t clamp_sample(int32_t value) {
    return (uint8_t) (value < 0 ? 0 : value > SAMPLE_MAX ? SAMPLE_MAX : value);
}

/* libjpeg's 1x1 IDCT (jidctred.c, jpeg_idct_1x1) of a coefficient already
 * dequantised with 16-bit operands (ISLOW_MULT_TYPE is short in SIMD
 * builds): descale by 8, then the post-IDCT range-limit table (jdmaster.c,
 * prepare_range_limit_table), indexed by the low 10 bits. That table
 * level-shifts by 128 and clamps within -512...511 but wraps beyond; here
 * as arithmetic, which vectorises: the low 10 bits read as a value within
 * -512...511, level-shifted and clamped to 0...255. */
static inline uint8_t idct_1x1(int32_t value) {
    int32_t descaled = (value + (1 << (IDCT_1X1_SHIFT - 1))) >> IDCT_1X1_SHIFT;
    int32_t wrapped = ((descaled + IDCT_RANGE_SIZE / 2) & IDCT_RANGE_MASK) - IDCT_RANGE_SIZE / 2;
    return clamp_sample(wrapped + SAMPLE_CENTER);
}

/* Coefficients turned into samples per step of samples_in_place. */
#define SAMPLES_CHUNK 16

/* Turns a component's coefficient plane into samples, in place: sample i
 * (byte i) is written after coefficient i (bytes 2i, 2i + 1) is read, and
 * never over a coefficient still to read. SAMPLES_CHUNK coefficients are
 * copied out before their samples are written, so that the loop over the
 * copy vectorises (its bytes cover coefficients of the chunk and earlier
 * ones only). The plane keeps its stride of pw samples. */
static uint8_t *samples_in_place(const js_component *g, dc_component *comp) {
    uint8_t *samples = (uint8_t *) comp->dc;
    size_t count = g->pw * g->ph, i = 0;
    int32_t quant = (int16_t) comp->quant;
    for (; i + SAMPLES_CHUNK <= count; i += SAMPLES_CHUNK) {
        int16_t chunk[SAMPLES_CHUNK];
        uint8_t out[SAMPLES_CHUNK];
        memcpy(chunk, comp->dc + i, sizeof chunk);
        for (int k = 0; k < SAMPLES_CHUNK; k++)
            out[k] = idct_1x1((int32_t) chunk[k] * quant);
        memcpy(samples + i, out, sizeof out);
    }
    for (; i < count; i++)
        samples[i] = idct_1x1((int32_t) comp->dc[i] * quant);
    return samples;
}

/* A dequantised coefficient kept within 16 bits: a photo's never leave them
 * (8-bit samples keep them within about 2^14), so this changes only damaged
 * data, and keeps the weighted sums of quarter_samples within 32 bits. */
static inline int32_t dequantised(int16_t coefficient, int32_t quant) {
    int32_t value = (int32_t) coefficient * quant;
    return value < INT16_MIN ? INT16_MIN : value > INT16_MAX ? INT16_MAX : value;
}

/* One row of cells of quarter_samples: `cells` cells, each with its
 * coefficients (0,0), (0,1) in `top` and (1,0), (1,1) in `bottom`, into
 * 2 x 2 samples in `upper` and `lower`. The pointers do not overlap (the
 * caller copies the coefficients out first), so the loop vectorises. */
JS_HOT static void quarter_row(const int16_t *restrict top, const int16_t *restrict bottom, size_t cells,
                               const int32_t q[QUARTER_CELL * QUARTER_CELL], uint8_t *restrict upper,
                               uint8_t *restrict lower) {
    const int32_t q00 = q[0], q01 = q[1], q10 = q[2], q11 = q[3];
    for (size_t c = 0; c < cells; c++) {
        size_t x = QUARTER_CELL * c;
        int32_t dc = dequantised(top[x], q00) * QUARTER_DC_WEIGHT + (SAMPLE_CENTER << QUARTER_BITS) +
                     (1 << (QUARTER_BITS - 1));
        int32_t across = dequantised(top[x + 1], q01) * QUARTER_EDGE_WEIGHT;
        int32_t down = dequantised(bottom[x], q10) * QUARTER_EDGE_WEIGHT;
        int32_t corner = dequantised(bottom[x + 1], q11) * QUARTER_CORNER_WEIGHT;
        upper[x] = clamp_sample((dc + across + down + corner) >> QUARTER_BITS);
        upper[x + 1] = clamp_sample((dc - across + down - corner) >> QUARTER_BITS);
        lower[x] = clamp_sample((dc + across - down - corner) >> QUARTER_BITS);
        lower[x + 1] = clamp_sample((dc - across - down + corner) >> QUARTER_BITS);
    }
}

/* At 1/4: a component's cells of coefficients into 2 x 2 samples each
 * (QUARTER), in place: the samples take the plane's first bytes, with a
 * stride of pw x 2 bytes. A row of cells is copied into `row` (pw x 4
 * entries) first, as its samples overwrite the bytes of coefficients of
 * that row and earlier ones only. Out-of-range values are clamped. */
static uint8_t *quarter_samples(const js_component *g, dc_component *comp, int16_t *row) {
    size_t stride = g->pw * QUARTER_CELL;
    uint8_t *samples = (uint8_t *) comp->dc;
    /* 16-bit quantisers, as libjpeg multiplies them (idct_1x1). */
    const int32_t q[QUARTER_CELL * QUARTER_CELL] = { (int16_t) comp->quant, (int16_t) comp->quant_low[0],
                                                     (int16_t) comp->quant_low[1], (int16_t) comp->quant_low[2] };
    for (size_t r = 0; r < g->ph; r++) {
        memcpy(row, comp->dc + QUARTER_CELL * r * stride, sizeof(int16_t) * QUARTER_CELL * stride);
        uint8_t *upper = samples + QUARTER_CELL * r * stride;
        quarter_row(row, row + stride, g->pw, q, upper, upper + stride);
    }
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
    int32_t *blend;     /* scratch: the plane's columns blended between two rows */
} upsample_plane;

/* Output row y of a plane: copied when the plane is at full size, else
 * bilinear between two rows and two columns. The rows are blended first,
 * once per plane column (`blend`), then the columns per output pixel: the
 * same sum of four products, in exact integers, as blending each row's two
 * columns first. */
static void upsample_row(const upsample_plane *p, size_t y, size_t ow, uint8_t *line) {
    int y0, y1, wy;
    tap((int) y, p->ry, p->rows, &y0, &y1, &wy);
    const uint8_t *r0 = p->samples + (size_t) y0 * p->stride;
    const uint8_t *r1 = p->samples + (size_t) y1 * p->stride;
    if (p->rx == 1 && p->ry == 1) {
        memcpy(line, r0, ow);
        return;
    }
    int32_t *blend = p->blend;
    for (int i = 0; i < p->cols; i++)
        blend[i] = r0[i] * (TAP_ONE - wy) + r1[i] * wy;
    for (size_t x = 0; x < ow; x++) {
        int w = p->wx[x];
        line[x] = (uint8_t) ((blend[p->x0[x]] * (TAP_ONE - w) + blend[p->x1[x]] * w + (1 << (2 * TAP_BITS - 1))) >>
                             (2 * TAP_BITS));
    }
}

/* Upsamples the three sample planes to ow x oh and converts them to RGB
 * into `out`, a row at a time. Returns 0 or -1 (out of memory). */
static int render_colour(const dc_state *st, uint8_t *const samples[JS_MAX_COMPONENTS], size_t ow,
                         size_t oh, uint8_t *out) {
    int *taps = malloc(sizeof(int) * 3 * JS_MAX_COMPONENTS * ow);
    uint8_t *scratch = malloc(JS_MAX_COMPONENTS * ow);
    size_t widest = 0;
    for (int i = 0; i < JS_MAX_COMPONENTS; i++)
        widest = st->f.comp[i].bw * (size_t) st->cell > widest ? st->f.comp[i].bw * (size_t) st->cell : widest;
    int32_t *blend = malloc(sizeof(int32_t) * widest);
    if (!taps || !scratch || !blend) {
        free(taps);
        free(scratch);
        free(blend);
        return -1;
    }
    upsample_plane plane[JS_MAX_COMPONENTS];
    uint8_t *line[JS_MAX_COMPONENTS];
    for (int i = 0; i < JS_MAX_COMPONENTS; i++) {
        const js_component *comp = &st->f.comp[i];
        upsample_plane *p = &plane[i];
        p->samples = samples[i];
        p->stride = comp->pw * (size_t) st->cell;
        p->rx = st->f.hmax / comp->h;
        p->ry = st->f.vmax / comp->v;
        p->cols = (int) comp->bw * st->cell;
        p->rows = (int) comp->bh * st->cell;
        p->x0 = taps + (3 * i) * ow;
        p->x1 = taps + (3 * i + 1) * ow;
        p->wx = taps + (3 * i + 2) * ow;
        p->blend = blend; /* one plane's row at a time */
        for (size_t x = 0; x < ow; x++)
            tap((int) x, p->rx, p->cols, &p->x0[x], &p->x1[x], &p->wx[x]);
        line[i] = scratch + (size_t) i * ow;
    }
    for (size_t y = 0; y < oh; y++) {
        for (int i = 0; i < JS_MAX_COMPONENTS; i++)
            upsample_row(&plane[i], y, ow, line[i]);
        js_rows_to_rgb(st->f.ycc, line[0], line[1], line[2], ow, out + y * ow * 3);
    }
    free(blend);
    free(scratch);
    free(taps);
    return 0;
}

/* The DC planes as ow x oh pixels in `out`: grey rows copied, colour
 * upsampled and converted. The planes become sample planes. Returns 0 or
 * -1 (out of memory). */
JS_HOT static int render_pixels(dc_state *st, size_t ow, size_t oh, uint8_t *out) {
    uint8_t *samples[JS_MAX_COMPONENTS];
    int16_t *row = NULL;
    if (st->cell == QUARTER_CELL) {
        size_t widest = 0;
        for (int c = 0; c < st->f.nc; c++)
            widest = st->f.comp[c].pw > widest ? st->f.comp[c].pw : widest;
        if (!(row = malloc(sizeof(int16_t) * QUARTER_CELL * QUARTER_CELL * widest)))
            return -1;
    }
    for (int c = 0; c < st->f.nc; c++)
        samples[c] = row ? quarter_samples(&st->f.comp[c], &st->comp[c], row)
                         : samples_in_place(&st->f.comp[c], &st->comp[c]);
    free(row);
    if (st->f.nc == 1) {
        for (size_t y = 0; y < oh; y++)
            memcpy(out + y * ow, samples[0] + y * st->f.comp[0].pw * (size_t) st->cell, ow);
        return 0;
    }
    return render_colour(st, samples, ow, oh, out);
}

/* ---------------------------------------------------------------------------
 * The decode
 */

/* floor(size / shrink), at least 1: libvips's loader drops the last,
 * partial pixel of a shrunk JPEG, and both paths must agree. */
static size_t output_size(size_t size, int shrink) {
    return size / (size_t) shrink ? size / (size_t) shrink : 1;
}

/* Whether the image (ow x oh x nc bytes) and the DC planes (two bytes per
 * block; at 1/4 a cell of four coefficients, 8 bytes) fit in `max_bytes`
 * together. */
static int fits_budget(const dc_state *st, size_t ow, size_t oh, size_t max_bytes) {
    const js_frame *f = &st->f;
    if (oh > max_bytes / ((size_t) f->nc * ow))
        return 0;
    size_t plane_bytes = 0, entries = (size_t) (st->cell * st->cell);
    for (int c = 0; c < f->nc; c++)
        plane_bytes += sizeof(int16_t) * entries * f->comp[c].pw * f->comp[c].ph;
    /* The image fits (checked above), so this does not wrap. */
    return plane_bytes + (size_t) f->nc * ow * oh <= max_bytes;
}

/* The decode's scratch memory (the built Huffman tables, then the DC
 * planes) in one block. Fresh memory of that size comes from mmap and costs
 * a page fault per 4 KB at its first write, about a tenth of a 12 MP
 * decode, so each thread keeps its last block for the next decode when it
 * is at most SCRATCH_KEEP_MAX bytes (12 MP at 1/4 takes about 5 MB); it is
 * freed when the thread ends. */
#define SCRATCH_KEEP_MAX ((size_t) 8 << 20)

/* What a slot of the built tables was built from: a decode whose table is
 * the same (most cameras and encoders write the standard tables) uses the
 * slot as the thread's last decode left it instead of building it again
 * (build_kept), about 1.4% of a 2000 x 1500 photo's item at 1/4. */
typedef struct {
    int use;          /* the huff_use + 1 it was built for; 0: nothing valid */
    js_raw_huff raw;  /* the table, as its DHT defined it */
} built_from;

typedef struct scratch_block {
    size_t size; /* usable bytes after the header */
    built_from built[2 * JS_TABLES]; /* what the tables at the start of `data` hold */
    max_align_t data[];
} scratch_block;

static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;
static int scratch_key_made;

static void make_scratch_key(void) {
    scratch_key_made = pthread_key_create(&scratch_key, free) == 0;
}

/* A block of at least `size` bytes: the thread's kept one when it is large
 * enough, else a new one. Not zeroed. NULL when out of memory. */
static scratch_block *take_scratch(size_t size) {
    pthread_once(&scratch_once, make_scratch_key);
    if (scratch_key_made) {
        scratch_block *kept = pthread_getspecific(scratch_key);
        if (kept && kept->size >= size) {
            pthread_setspecific(scratch_key, NULL);
            return kept;
        }
    }
    if (size > SIZE_MAX - sizeof(scratch_block))
        return NULL;
    scratch_block *block = malloc(sizeof(scratch_block) + size);
    if (block) {
        block->size = size;
        memset(block->built, 0, sizeof block->built);
    }
    return block;
}

/* Keeps `block` for the thread's next decode when it is small enough,
 * replacing a smaller kept one; frees it otherwise. */
static void give_back_scratch(scratch_block *block) {
    if (!block)
        return;
    if (scratch_key_made && block->size <= SCRATCH_KEEP_MAX) {
        scratch_block *kept = pthread_getspecific(scratch_key);
        if (!kept || kept->size < block->size) {
            if (pthread_setspecific(scratch_key, block) == 0) {
                free(kept);
                return;
            }
        }
    }
    free(block);
}

/* The built Huffman tables and one zeroed DC plane per component (blocks no
 * scan reaches, the MCU padding of one-component scans, stay 0), carved from
 * one scratch block. Returns 0 or -1; release_planes gives back what was
 * taken either way. */
static int allocate_planes(dc_state *st) {
    size_t tables = sizeof(dc_huff) * 2 * JS_TABLES, entries = (size_t) (st->cell * st->cell);
    size_t count[JS_MAX_COMPONENTS], planes = 0;
    /* fits_budget has bounded the planes' bytes, so the sums do not wrap. */
    for (int c = 0; c < st->f.nc; c++) {
        count[c] = entries * st->f.comp[c].pw * st->f.comp[c].ph;
        planes += count[c];
    }
    st->scratch = take_scratch(tables + sizeof(int16_t) * planes);
    if (!st->scratch)
        return -1;
    st->derived = (dc_huff *) (void *) st->scratch->data;
    int16_t *plane = (int16_t *) (void *) ((uint8_t *) st->scratch->data + tables);
    memset(plane, 0, sizeof(int16_t) * planes);
    for (int c = 0; c < st->f.nc; c++) {
        st->comp[c].dc = plane;
        plane += count[c];
    }
    return 0;
}

static void release_planes(dc_state *st) {
    give_back_scratch(st->scratch);
}

/* Whether two DHT definitions give the same table: the same code counts
 * and the same symbols. */
static int same_raw_table(const js_raw_huff *a, const js_raw_huff *b) {
    if (!a->defined || !b->defined || memcmp(a->bits, b->bits, sizeof a->bits))
        return 0;
    int symbols = 0;
    for (int l = 1; l <= JS_MAX_CODE_LENGTH; l++)
        symbols += a->bits[l];
    return symbols <= JS_MAX_SYMBOLS && memcmp(a->values, b->values, (size_t) symbols) == 0;
}

/* build_huff into table slot `slot` (DC 0...3, then AC 0...3), unless the
 * slot already holds `raw` built for `use` (see built_from). Returns 0 or
 * -1. */
static int build_kept(dc_state *st, int slot, const js_raw_huff *raw, enum huff_use use) {
    built_from *from = &st->scratch->built[slot];
    if (from->use == (int) use + 1 && same_raw_table(&from->raw, raw))
        return 0;
    from->use = 0;
    if (build_huff(raw, &st->derived[slot], use))
        return -1;
    from->raw = *raw;
    from->use = (int) use + 1;
    return 0;
}

int jpeg_dc_decode(j_decompress_ptr cinfo, const uint8_t *end, int shrink, size_t max_bytes,
                   uint8_t **pixels_out, size_t *width_out, size_t *height_out,
                   int *bands_out, int *decoder_out) {
    dc_state st;
    memset(&st, 0, sizeof st);
    if (shrink != DCTSIZE && shrink != QUARTER_SHRINK)
        return -1;
    st.cell = shrink == QUARTER_SHRINK ? QUARTER_CELL : 1;
    if (setup_frame(&st, cinfo))
        return -1;
    /* 1/4 takes sequential files only: a progressive file's low AC
     * coefficients come in scans of their own. */
    if (st.cell == QUARTER_CELL && st.f.progressive)
        return -1;
    js_stream_init(&st.s, cinfo, end);
    size_t ow = output_size(st.f.width, shrink), oh = output_size(st.f.height, shrink);
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
