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

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The decode runs in stages, each in its own section below:
 *
 *   1. Frame and tables: setup_frame takes the frame from libjpeg's header;
 *      read_markers parses DHT, DQT and DRI between scans; prepare_scan
 *      checks each scan against libjpeg's rules and builds the Huffman
 *      tables it needs (build_huff).
 *   2. Block skipping: skip_ac passes over a sequential block's AC
 *      coefficients; skip_ac_scan passes over a whole progressive AC scan.
 *   3. DC planes: decode_dc_scan decodes DC coefficients (first passes and
 *      refinements) into one int16 plane per component; dc_complete checks
 *      that every DC coefficient is whole.
 *   4. Upsampling and colour: samples_in_place applies the 1x1 IDCT,
 *      upsample_row brings subsampled chroma to the output size and
 *      colour_row converts YCbCr to RGB.
 *
 * jpeg_dc_decode runs them in that order (read_scans drives stages 1 to 3
 * scan by scan, render_pixels does stage 4). */

/* ---------------------------------------------------------------------------
 * Constants
 */

/* Huffman lookahead: LOOK bits index the one-symbol tables, MLOOK bits the
 * multi-symbol AC skip table. */
#define LOOK 9
#define MLOOK 12

/* Huffman codes are 1...16 bits long; a table holds at most 256 symbols. */
#define MAX_CODE_LENGTH 16
#define MAX_SYMBOLS 256
/* A DC symbol is the size (category) of the difference that follows: 0...15. */
#define MAX_DC_CATEGORY 15
/* An AC symbol is run << 4 | size. Size 0 is EOB (the rest of the block is
 * zero), or ZRL (sixteen zeros) when the run is 15. */
#define AC_ZRL_RUN 15
#define AC_ZRL_ADVANCE 16
/* The `advance` field of a multi-symbol skip entry has 8 bits. */
#define MULTI_ADVANCE_MAX 255

/* The bit reader refills below this many bits: the most one symbol and its
 * extra bits take (a 16-bit code and 15 magnitude bits), plus one. */
#define SYMBOL_BITS 32

/* libjpeg's limits: blocks in an interleaved MCU (D_MAX_BLOCKS_IN_MCU),
 * components in a scan (MAX_COMPS_IN_SCAN), the largest successive-
 * approximation shift it accepts (jdphuff.c). */
#define MAX_BLOCKS_IN_MCU D_MAX_BLOCKS_IN_MCU
#define MAX_SCAN_COMPONENTS MAX_COMPS_IN_SCAN
#define MAX_POINT_TRANSFORM 13

/* Components this decoder takes: 1 (grey) or 3 (YCbCr, RGB). */
#define DC_MAX_COMPONENTS 3

/* Restart markers count RST0...RST7, then start again. */
#define RESTART_MARKERS 8

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

/* libjpeg's YCbCr -> RGB conversion (jdcolor.c), 16-bit fixed point:
 * FIX(x) = round(x * 65536). */
#define COLOUR_SCALE_BITS 16
#define COLOUR_ONE_HALF (1 << (COLOUR_SCALE_BITS - 1))
#define FIX_1_40200 91881  /* R = Y + 1.40200 Cr */
#define FIX_0_34414 22554  /* G = Y - 0.34414 Cb - 0.71414 Cr */
#define FIX_0_71414 46802
#define FIX_1_77200 116130 /* B = Y + 1.77200 Cb */

/* Markers: each is 0xFF then its code; 0xFF 0x00 in entropy-coded data is
 * a stuffed 0xFF byte, not a marker. */
#define MARKER_PREFIX 0xFF
#define STUFFED_ZERO 0x00
#define M_SOF0 0xC0
#define M_DHT 0xC4
#define M_RST0 0xD0
#define M_RST7 0xD7
#define M_EOI 0xD9
#define M_SOS 0xDA
#define M_DQT 0xDB
#define M_DRI 0xDD
#define M_APP0 0xE0
#define M_APP15 0xEF
#define M_COM 0xFE

/* ---------------------------------------------------------------------------
 * Stage 1a: Huffman tables
 */

/* A table as a DHT segment defines it. */
typedef struct {
    int defined;
    uint8_t bits[MAX_CODE_LENGTH + 1]; /* bits[l]: number of codes of length l (1...16) */
    uint8_t values[MAX_SYMBOLS];       /* symbols in code order */
} raw_huff;

/* A table made ready for decoding (DC) or skipping (AC). */
typedef struct {
    /* Fast table, LOOK bits: (length << 8 | symbol), 0 when the code is longer. */
    uint16_t look[1 << LOOK];
    /* AC skip table: (bits to drop << 8 | coefficients to advance), 0 = slow. */
    uint16_t skip[1 << LOOK];
    /* Multi-symbol AC skip, MLOOK bits: drop << 16 | pre << 8 | advance,
     * where `pre` is the advance before the group's last symbol. */
    uint32_t multi[1 << MLOOK];
    /* Canonical decoding for codes longer than LOOK bits, by length 1...16:
     * the largest code of that length (-1 for none), and what to add to a
     * code to index `values`. */
    int32_t maxcode[MAX_CODE_LENGTH + 1];
    int32_t valoffset[MAX_CODE_LENGTH + 1];
    uint8_t values[MAX_SYMBOLS];
} dc_huff;

enum huff_use { HUFF_CHECK, HUFF_DC, HUFF_AC };

/* How many coefficients an AC symbol moves past in a sequential block: its
 * run of zeros and the coefficient itself, sixteen zeros for ZRL, or the
 * rest of the block (at most 64) for EOB. */
static inline int ac_advance(int symbol) {
    int run = symbol >> 4, size = symbol & 15;
    return size ? run + 1 : run == AC_ZRL_RUN ? AC_ZRL_ADVANCE : DCTSIZE2;
}

/* Validates `table` as libjpeg's jpeg_make_d_derived_tbl does (at most 256
 * codes, no over-subscription, no all-ones code, DC symbols 0...15). Also
 * refuses an empty table, which could decode nothing. Returns the number of
 * codes, or -1. */
static int check_huff(const raw_huff *table, enum huff_use use) {
    if (!table->defined)
        return -1;
    int count = 0;
    for (int l = 1; l <= MAX_CODE_LENGTH; l++)
        count += table->bits[l];
    if (count > MAX_SYMBOLS || count == 0)
        return -1;
    if (use == HUFF_DC)
        for (int i = 0; i < count; i++)
            if (table->values[i] > MAX_DC_CATEGORY)
                return -1;
    uint32_t code = 0;
    for (int l = 1; l <= MAX_CODE_LENGTH; l++) {
        code += table->bits[l];
        if (code >= (1u << l))
            return -1; /* over-subscribed, or an all-ones code */
        code <<= 1;
    }
    return count;
}

/* The one-symbol tables (look, skip) and the canonical decoding of longer
 * codes, from a valid table. */
static void fill_lookup(const raw_huff *table, dc_huff *h) {
    memset(h->look, 0, sizeof h->look);
    memset(h->skip, 0, sizeof h->skip);
    memcpy(h->values, table->values, MAX_SYMBOLS);
    uint32_t code = 0;
    int k = 0;
    for (int l = 1; l <= MAX_CODE_LENGTH; l++) {
        int n = table->bits[l];
        h->valoffset[l] = k - (int32_t) code;
        for (int i = 0; i < n; i++, k++, code++) {
            if (l > LOOK)
                continue;
            int shift = LOOK - l;
            uint8_t symbol = table->values[k];
            int size = symbol & 15;
            int advance = ac_advance(symbol);
            for (uint32_t j = code << shift; j < (code + 1) << shift; j++) {
                h->look[j] = (uint16_t) (l << 8 | symbol);
                h->skip[j] = (uint16_t) ((l + size) << 8 | advance);
            }
        }
        h->maxcode[l] = n ? (int32_t) code - 1 : -1;
        code <<= 1;
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
            uint16_t e = h->look[bits >> (MLOOK - LOOK)];
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

/* Validates `table` (check_huff) and, for HUFF_DC and HUFF_AC, fills `h`.
 * Returns 0 or -1. */
static int build_huff(const raw_huff *table, dc_huff *h, enum huff_use use) {
    if (check_huff(table, use) < 0)
        return -1;
    if (use == HUFF_CHECK)
        return 0;
    fill_lookup(table, h);
    if (use == HUFF_AC)
        fill_multi(h);
    return 0;
}

/* ---------------------------------------------------------------------------
 * Bit reader over entropy-coded data (0xFF 0x00 unstuffed; a marker stops it)
 */

typedef struct {
    const uint8_t *p, *end; /* next byte to load; end of the file */
    uint64_t acc;           /* bits, most significant first */
    int nbits;              /* valid bits in acc */
    int pad;                /* zero bits appended after a marker or the end */
    int marker;             /* p stopped at a marker (0xFF, non-zero byte) */
} dc_bits;

/* Fills acc to at least 56 valid bits (a whole number of bytes that still
 * fits in 64 with the ones already there). */
static inline void dc_refill(dc_bits *b) {
    if (!b->marker && b->end - b->p >= 8) {
        /* Eight bytes without 0xFF at once. The bytes only partly taken are
         * loaded again (the same bits) by the next refill. */
        uint64_t w;
        memcpy(&w, b->p, 8);
        uint64_t x = ~w;
        if (((x - 0x0101010101010101ULL) & ~x & 0x8080808080808080ULL) == 0) {
            w = __builtin_bswap64(w);
            b->acc |= w >> b->nbits;
            b->p += (63 - b->nbits) >> 3;
            b->nbits |= 56;
            return;
        }
    }
    while (b->nbits <= 56) {
        uint32_t c = 0;
        if (!b->marker && b->p < b->end) {
            c = *b->p;
            if (c == MARKER_PREFIX) {
                if (b->p + 1 < b->end && b->p[1] == STUFFED_ZERO) {
                    b->p += 2;
                } else {
                    b->marker = 1;
                    c = 0;
                    b->pad += 8;
                }
            } else {
                b->p++;
            }
        } else {
            b->pad += 8;
        }
        b->acc |= (uint64_t) c << (56 - b->nbits);
        b->nbits += 8;
    }
}

static inline void dc_drop(dc_bits *b, int n) {
    b->acc <<= n;
    b->nbits -= n;
}

/* Slow decode of one symbol whose code is longer than LOOK bits. Returns the
 * symbol and sets *length, or -1 for a bad code. */
static int dc_slow(const dc_huff *h, uint64_t acc, int *length) {
    for (int l = LOOK + 1; l <= MAX_CODE_LENGTH; l++) {
        int32_t code = (int32_t) (acc >> (64 - l));
        if (code <= h->maxcode[l]) {
            int index = code + h->valoffset[l];
            if (index < 0 || index >= MAX_SYMBOLS)
                return -1;
            *length = l;
            return h->values[index];
        }
    }
    return -1;
}

/* The next Huffman symbol, or -1 for a bad code. */
static inline int dc_symbol(dc_bits *b, const dc_huff *h) {
    if (b->nbits < SYMBOL_BITS)
        dc_refill(b);
    uint16_t e = h->look[b->acc >> (64 - LOOK)];
    int len, symbol;
    if (e) {
        len = e >> 8;
        symbol = e & 0xFF;
    } else if ((symbol = dc_slow(h, b->acc, &len)) < 0) {
        return -1;
    }
    dc_drop(b, len);
    return symbol;
}

/* A DC difference: `size` (0...15) magnitude bits, sign-extended (F.2.2.1). */
static inline int32_t dc_difference(dc_bits *b, int size) {
    if (!size)
        return 0;
    if (b->nbits < SYMBOL_BITS)
        dc_refill(b);
    int32_t v = (int32_t) (b->acc >> (64 - size));
    dc_drop(b, size);
    if (v < (1 << (size - 1)))
        v += (int32_t) (~0u << size) + 1;
    return v;
}

/* At a restart boundary: only byte-alignment padding may precede the
 * expected RSTn. Resets the reader after it. Returns 0 or -1. */
static int read_restart(dc_bits *b, int expected) {
    dc_refill(b);
    if (!b->marker || b->nbits - b->pad >= 8)
        return -1;
    const uint8_t *p = b->p;
    while (p < b->end && *p == MARKER_PREFIX)
        p++;
    if (p >= b->end || *p != M_RST0 + expected)
        return -1;
    b->p = p + 1;
    b->acc = 0;
    b->nbits = b->pad = b->marker = 0;
    return 0;
}

/* ---------------------------------------------------------------------------
 * Decoder state
 */

/* One component of the frame. */
typedef struct {
    int h, v;        /* sampling factors (1 for grey) */
    size_t pw, ph;   /* plane size in blocks: the MCU-padded grid */
    size_t bw, bh;   /* blocks holding real pixels (a non-interleaved scan's extent) */
    int16_t *dc;     /* DC coefficient per block, pw x ph, row-major; after
                        samples_in_place, one 8-bit sample per block, stride pw */
    int quant_table; /* the quantisation table number from SOF */
    int quant;       /* DC quantiser latched at the component's first scan, -1 before */
    int8_t bits[DCTSIZE2]; /* progressive files: Al of the last scan of each
                              coefficient, -1 before any (libjpeg's coef_bits) */
    int scans;       /* sequential files: scans holding this component */
} dc_component;

/* The whole decode: the frame, the tables as last defined, the planes. */
typedef struct {
    const uint8_t *end;       /* end of the file in memory */
    int progressive;          /* SOF2 (DC and AC in separate scans), else sequential */
    int nc;                   /* components: 1 or 3 */
    int ycc;                  /* 3 components are YCbCr (else RGB) */
    size_t width, height;     /* image size in pixels */
    int hmax, vmax;           /* largest sampling factors */
    size_t mcux, mcuy;        /* MCUs of an interleaved scan */
    dc_component comp[DC_MAX_COMPONENTS];
    raw_huff dc_raw[NUM_HUFF_TBLS], ac_raw[NUM_HUFF_TBLS]; /* Huffman tables as last defined */
    dc_huff *derived;         /* built tables: DC 0...3 then AC 0...3 (built_dc_table, built_ac_table) */
    int quant_dc[NUM_QUANT_TBLS]; /* DC entry of each quantisation table, -1 = undefined */
    unsigned restart_interval; /* MCUs between restart markers (DRI), 0 for none */
} dc_state;

/* One scan's header. */
typedef struct {
    int n;                         /* components in the scan */
    int comp[MAX_SCAN_COMPONENTS]; /* their indices (SOF order) */
    int dc_table[MAX_SCAN_COMPONENTS], ac_table[MAX_SCAN_COMPONENTS]; /* Huffman table numbers */
    int Ss, Se;                    /* spectral selection: first and last coefficient */
    int Ah, Al;                    /* successive approximation: previous and this
                                      scan's point transform (0 and 0 when sequential) */
    const uint8_t *data;           /* first byte of the entropy-coded data */
} dc_scan;

enum scan_kind { SCAN_SEQUENTIAL, SCAN_DC_FIRST, SCAN_DC_REFINE, SCAN_AC };

static dc_huff *built_dc_table(const dc_state *st, int table) {
    return &st->derived[table];
}

static dc_huff *built_ac_table(const dc_state *st, int table) {
    return &st->derived[NUM_HUFF_TBLS + table];
}

/* ---------------------------------------------------------------------------
 * Stage 1b: the frame, and the markers between scans
 */

static void copy_huff(raw_huff *to, const JHUFF_TBL *from) {
    to->defined = from != NULL;
    if (!from)
        return;
    memcpy(to->bits, from->bits, MAX_CODE_LENGTH + 1);
    memcpy(to->values, from->huffval, MAX_SYMBOLS);
}

/* The frame (from libjpeg's header) and the tables defined before the first
 * SOS. Returns 0, or -1 for a frame this decoder does not take. */
static int setup_frame(dc_state *st, j_decompress_ptr cinfo, const uint8_t *end) {
    int nc = cinfo->num_components;
    if ((nc != 1 && nc != 3) || cinfo->arith_code || cinfo->data_precision != 8)
        return -1;
    if (nc == 3 && cinfo->jpeg_color_space != JCS_YCbCr && cinfo->jpeg_color_space != JCS_RGB)
        return -1;
    st->end = end;
    st->progressive = cinfo->progressive_mode;
    st->nc = nc;
    st->ycc = nc == 3 && cinfo->jpeg_color_space == JCS_YCbCr;
    st->width = cinfo->image_width;
    st->height = cinfo->image_height;
    if (st->width == 0 || st->height == 0)
        return -1;
    /* A single component is always decoded one block per MCU. */
    st->hmax = nc == 1 ? 1 : cinfo->max_h_samp_factor;
    st->vmax = nc == 1 ? 1 : cinfo->max_v_samp_factor;
    st->mcux = (st->width + DCTSIZE * (size_t) st->hmax - 1) / (DCTSIZE * (size_t) st->hmax);
    st->mcuy = (st->height + DCTSIZE * (size_t) st->vmax - 1) / (DCTSIZE * (size_t) st->vmax);
    for (int c = 0; c < nc; c++) {
        dc_component *comp = &st->comp[c];
        jpeg_component_info *info = &cinfo->comp_info[c];
        /* Scans name components by id: each id once. */
        for (int d = 0; d < c; d++)
            if (cinfo->comp_info[d].component_id == info->component_id)
                return -1;
        comp->h = nc == 1 ? 1 : info->h_samp_factor;
        comp->v = nc == 1 ? 1 : info->v_samp_factor;
        if (comp->h < 1 || comp->v < 1 || st->hmax % comp->h || st->vmax % comp->v ||
            st->hmax / comp->h > MAX_SAMP_FACTOR || st->vmax / comp->v > MAX_SAMP_FACTOR)
            return -1;
        /* Luma (and every RGB component) at full sampling, or libjpeg's 1/8
         * decode of it is not its DC value (see the top of the file). */
        if ((c == 0 || !st->ycc) && (comp->h != st->hmax || comp->v != st->vmax))
            return -1;
        comp->pw = st->mcux * (size_t) comp->h;
        comp->ph = st->mcuy * (size_t) comp->v;
        size_t cw = (st->width * (size_t) comp->h + (size_t) st->hmax - 1) / (size_t) st->hmax;
        size_t ch = (st->height * (size_t) comp->v + (size_t) st->vmax - 1) / (size_t) st->vmax;
        comp->bw = (cw + DCTSIZE - 1) / DCTSIZE;
        comp->bh = (ch + DCTSIZE - 1) / DCTSIZE;
        comp->quant_table = info->quant_tbl_no;
        if (comp->quant_table < 0 || comp->quant_table >= NUM_QUANT_TBLS)
            return -1;
        comp->quant = -1;
        memset(comp->bits, -1, sizeof comp->bits);
        comp->scans = 0;
        comp->dc = NULL;
    }
    for (int t = 0; t < NUM_HUFF_TBLS; t++) {
        copy_huff(&st->dc_raw[t], cinfo->dc_huff_tbl_ptrs[t]);
        copy_huff(&st->ac_raw[t], cinfo->ac_huff_tbl_ptrs[t]);
    }
    for (int t = 0; t < NUM_QUANT_TBLS; t++)
        st->quant_dc[t] = cinfo->quant_tbl_ptrs[t] ? cinfo->quant_tbl_ptrs[t]->quantval[0] : -1;
    st->restart_interval = cinfo->restart_interval;
    return 0;
}

/* The first scan, which libjpeg's jpeg_read_header has read. */
static int first_scan(const dc_state *st, j_decompress_ptr cinfo, dc_scan *scan) {
    scan->n = cinfo->comps_in_scan;
    if (scan->n < 1 || scan->n > st->nc)
        return -1;
    for (int i = 0; i < scan->n; i++) {
        jpeg_component_info *info = cinfo->cur_comp_info[i];
        if (!info || info->component_index < 0 || info->component_index >= st->nc)
            return -1;
        scan->comp[i] = info->component_index;
        scan->dc_table[i] = info->dc_tbl_no;
        scan->ac_table[i] = info->ac_tbl_no;
    }
    scan->Ss = cinfo->Ss;
    scan->Se = cinfo->Se;
    scan->Ah = cinfo->Ah;
    scan->Al = cinfo->Al;
    scan->data = cinfo->src->next_input_byte;
    return 0;
}

static unsigned read16(const uint8_t *p) {
    return (unsigned) p[0] << 8 | p[1];
}

/* DHT: one or more tables (libjpeg's get_dht). Each is a class/number byte
 * (0x1n for AC table n), 16 code counts, then the symbols. */
static int read_dht(dc_state *st, const uint8_t *p, size_t length) {
    while (length > MAX_CODE_LENGTH) {
        int index = p[0];
        raw_huff table = { 1, { 0 }, { 0 } };
        int count = 0;
        for (int l = 1; l <= MAX_CODE_LENGTH; l++) {
            table.bits[l] = p[l];
            count += p[l];
        }
        p += 1 + MAX_CODE_LENGTH;
        length -= 1 + MAX_CODE_LENGTH;
        if (count > MAX_SYMBOLS || (size_t) count > length)
            return -1;
        memcpy(table.values, p, (size_t) count);
        p += count;
        length -= (size_t) count;
        raw_huff *slot;
        if (index & 0x10) {
            index -= 0x10;
            if (index >= NUM_HUFF_TBLS)
                return -1;
            slot = &st->ac_raw[index];
        } else {
            if (index >= NUM_HUFF_TBLS)
                return -1;
            slot = &st->dc_raw[index];
        }
        *slot = table;
    }
    return length == 0 ? 0 : -1;
}

/* DQT: one or more tables, 8- or 16-bit entries (libjpeg's get_dqt). Each is
 * a precision/number byte, then 64 entries. Only the DC entry (the first, in
 * zigzag order) is kept. */
static int read_dqt(dc_state *st, const uint8_t *p, size_t length) {
    while (length > 0) {
        int n = p[0] & 15, precision = p[0] >> 4;
        size_t size = 1 + DCTSIZE2 * (size_t) (precision ? 2 : 1);
        if (n >= NUM_QUANT_TBLS || precision > 1 || length < size)
            return -1;
        st->quant_dc[n] = precision ? (int) read16(p + 1) : p[1];
        p += size;
        length -= size;
    }
    return 0;
}

/* SOS (libjpeg's get_sos): the component count, then an id and a table byte
 * per component, then Ss, Se and Ah/Al. Components by id (that each comes
 * at most once is checked for every scan by components_distinct). */
static int read_sos(const dc_state *st, j_decompress_ptr cinfo, const uint8_t *p,
                    size_t length, dc_scan *scan) {
    if (length < 1)
        return -1;
    int n = p[0];
    if (n < 1 || n > MAX_SCAN_COMPONENTS || length != (size_t) (2 * n + 4))
        return -1;
    scan->n = n;
    for (int i = 0; i < n; i++) {
        /* libjpeg only matches a component whose index is not below the
         * position in the scan (it tests cur_comp_info[ci], indexed by
         * position), so components must come in frame order. */
        int id = p[1 + 2 * i], tables = p[2 + 2 * i], found = -1;
        for (int c = i; c < st->nc; c++)
            if (cinfo->comp_info[c].component_id == id) {
                found = c;
                break;
            }
        if (found < 0)
            return -1;
        scan->comp[i] = found;
        scan->dc_table[i] = tables >> 4;
        scan->ac_table[i] = tables & 15;
    }
    const uint8_t *q = p + 1 + 2 * n;
    scan->Ss = q[0];
    scan->Se = q[1];
    scan->Ah = q[2] >> 4;
    scan->Al = q[2] & 15;
    return 0;
}

/* Reads markers from *pos (which must be a marker: fill bytes 0xFF allowed,
 * nothing else) up to the next SOS or EOI. Returns 1 with `scan` filled for
 * an SOS, 0 at EOI, -1 for anything libjpeg would warn about or reject (and,
 * to be safe, for markers real files do not put between scans: RSTn, DNL,
 * DAC, a second SOF). */
static int read_markers(dc_state *st, j_decompress_ptr cinfo, const uint8_t *pos,
                        dc_scan *scan) {
    const uint8_t *end = st->end;
    for (;;) {
        if (pos >= end || *pos != MARKER_PREFIX)
            return -1;
        while (pos < end && *pos == MARKER_PREFIX)
            pos++;
        if (pos >= end)
            return -1;
        int marker = *pos++;
        if (marker == M_EOI)
            return 0;
        if (end - pos < 2)
            return -1;
        size_t length = read16(pos); /* the segment's length counts itself */
        if (length < 2 || length > (size_t) (end - pos))
            return -1;
        const uint8_t *body = pos + 2;
        size_t body_length = length - 2;
        pos += length;
        switch (marker) {
        case M_SOS:
            if (read_sos(st, cinfo, body, body_length, scan))
                return -1;
            scan->data = pos;
            return 1;
        case M_DHT:
            if (read_dht(st, body, body_length))
                return -1;
            break;
        case M_DQT:
            if (read_dqt(st, body, body_length))
                return -1;
            break;
        case M_DRI:
            if (body_length != 2)
                return -1;
            st->restart_interval = read16(body);
            break;
        default:
            if ((marker >= M_APP0 && marker <= M_APP15) || marker == M_COM)
                break;
            return -1;
        }
    }
}

/* ---------------------------------------------------------------------------
 * Stage 1c: each scan checked, its tables built
 */

/* Whether each component comes at most once in the scan (libjpeg's get_sos
 * fails a repeat with JERR_BAD_COMPONENT_ID). Checked here for every scan,
 * whoever parsed its header: libjpeg (the first scan) or read_sos (the
 * others), so that the DC decode never depends on libjpeg having looked. A
 * repeat would otherwise pass the progression checks of a DC first pass
 * with Al = 0 and decode the component twice per MCU. */
static int components_distinct(const dc_scan *scan) {
    for (int i = 1; i < scan->n; i++)
        for (int j = 0; j < i; j++)
            if (scan->comp[j] == scan->comp[i])
                return 0;
    return 1;
}

/* The kind of a scan, checked against libjpeg's rules and the progression
 * so far (which it updates: `scans` of a sequential file's components,
 * `bits` of a progressive file's). Returns the kind, or -1. */
static int classify_scan(dc_state *st, const dc_scan *scan) {
    if (!components_distinct(scan))
        return -1;
    if (scan->n > 1) {
        int blocks = 0;
        for (int i = 0; i < scan->n; i++)
            blocks += st->comp[scan->comp[i]].h * st->comp[scan->comp[i]].v;
        if (blocks > MAX_BLOCKS_IN_MCU)
            return -1;
    }
    if (!st->progressive) {
        /* libjpeg warns about anything else in a sequential file. */
        if (scan->Ss != 0 || scan->Se != DCTSIZE2 - 1 || scan->Ah != 0 || scan->Al != 0)
            return -1;
        for (int i = 0; i < scan->n; i++)
            if (st->comp[scan->comp[i]].scans++)
                return -1; /* decoded already */
        return SCAN_SEQUENTIAL;
    }
    /* jdphuff.c: start_pass_phuff_decoder's errors and warnings. */
    int dc = scan->Ss == 0;
    if (dc ? scan->Se != 0 : (scan->Ss > scan->Se || scan->Se > DCTSIZE2 - 1 || scan->n != 1))
        return -1;
    if ((scan->Ah != 0 && scan->Al != scan->Ah - 1) || scan->Al > MAX_POINT_TRANSFORM)
        return -1;
    for (int i = 0; i < scan->n; i++) {
        int8_t *bits = st->comp[scan->comp[i]].bits;
        if (!dc && bits[0] < 0)
            return -1; /* AC before the component's DC */
        for (int k = scan->Ss; k <= scan->Se; k++) {
            if (scan->Ah != (bits[k] < 0 ? 0 : bits[k]))
                return -1;
            bits[k] = (int8_t) scan->Al;
        }
    }
    return !dc ? SCAN_AC : scan->Ah ? SCAN_DC_REFINE : SCAN_DC_FIRST;
}

/* Latches the quantisers of components seen for the first time and builds
 * (or, for an AC scan, only validates) the Huffman tables a scan of `kind`
 * needs. Returns 0 or -1. */
static int prepare_tables(dc_state *st, const dc_scan *scan, int kind) {
    for (int i = 0; i < scan->n; i++) {
        dc_component *comp = &st->comp[scan->comp[i]];
        if (comp->quant < 0) {
            if (st->quant_dc[comp->quant_table] < 0)
                return -1;
            comp->quant = st->quant_dc[comp->quant_table];
        }
        int d = scan->dc_table[i], a = scan->ac_table[i];
        if (d >= NUM_HUFF_TBLS || a >= NUM_HUFF_TBLS)
            return -1;
        if (kind == SCAN_SEQUENTIAL || kind == SCAN_DC_FIRST)
            if (build_huff(&st->dc_raw[d], built_dc_table(st, d), HUFF_DC))
                return -1;
        if (kind == SCAN_SEQUENTIAL)
            if (build_huff(&st->ac_raw[a], built_ac_table(st, a), HUFF_AC))
                return -1;
        if (kind == SCAN_AC)
            if (build_huff(&st->ac_raw[a], NULL, HUFF_CHECK))
                return -1;
    }
    return 0;
}

/* classify_scan, then prepare_tables. Returns the scan's kind, or -1. */
static int prepare_scan(dc_state *st, const dc_scan *scan) {
    int kind = classify_scan(st, scan);
    if (kind < 0 || prepare_tables(st, scan, kind))
        return -1;
    return kind;
}

/* ---------------------------------------------------------------------------
 * Stage 2: block skipping
 */

/* Skips the 63 AC coefficients of a sequential block. Returns 0 or -1. */
static inline int skip_ac(dc_bits *b, const dc_huff *ah) {
    int k = 1;
    while (k < DCTSIZE2) {
        if (b->nbits < SYMBOL_BITS)
            dc_refill(b);
        uint32_t m = ah->multi[b->acc >> (64 - MLOOK)];
        if (m && k + (int) ((m >> 8) & 0xFF) < DCTSIZE2) {
            dc_drop(b, (int) (m >> 16));
            k += (int) (m & 0xFF);
            continue;
        }
        uint16_t x = ah->skip[b->acc >> (64 - LOOK)];
        if (x) {
            dc_drop(b, x >> 8);
            k += x & 0xFF;
        } else {
            int len, symbol = dc_slow(ah, b->acc, &len);
            if (symbol < 0)
                return -1;
            dc_drop(b, len + (symbol & 15));
            k += ac_advance(symbol);
        }
    }
    return 0;
}

/* Skips a progressive AC scan: the next marker that is not RSTn ends it.
 * The restart markers must come in order, as many as the scan's MCUs call
 * for. Sets *next to the marker. Returns 0 or -1 (no marker before the end
 * of the file). */
static int skip_ac_scan(const dc_state *st, const dc_scan *scan, const uint8_t **next) {
    const dc_component *comp = &st->comp[scan->comp[0]];
    size_t mcus = comp->bw * comp->bh;
    size_t expected = st->restart_interval ? (mcus - 1) / st->restart_interval : 0;
    size_t seen = 0;
    const uint8_t *p = scan->data, *end = st->end;
    const uint8_t *segment = p; /* where the current restart interval's data starts */
    for (;;) {
        p = memchr(p, MARKER_PREFIX, (size_t) (end - p));
        if (!p)
            return -1;
        const uint8_t *m = p + 1;
        while (m < end && *m == MARKER_PREFIX)
            m++;
        if (m >= end)
            return -1;
        if (*m == STUFFED_ZERO && m == p + 1) {
            p = m + 1;
            continue;
        }
        if (*m >= M_RST0 && *m <= M_RST7) {
            if (*m != M_RST0 + (int) (seen % RESTART_MARKERS) || p == segment)
                return -1;
            seen++;
            p = segment = m + 1;
            continue;
        }
        if (*m == STUFFED_ZERO)
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
static int decode_dc_scan(dc_state *st, const dc_scan *scan, int kind, const uint8_t **next) {
    int n = scan->n;
    /* A one-component scan covers that component's real blocks, one block an
     * MCU; an interleaved scan covers the MCU grid, h x v blocks each. */
    size_t mcus_x = n == 1 ? st->comp[scan->comp[0]].bw : st->mcux;
    size_t mcus_y = n == 1 ? st->comp[scan->comp[0]].bh : st->mcuy;
    int bh[MAX_SCAN_COMPONENTS], bv[MAX_SCAN_COMPONENTS];
    const dc_huff *dct[MAX_SCAN_COMPONENTS], *act[MAX_SCAN_COMPONENTS];
    for (int i = 0; i < n; i++) {
        bh[i] = n == 1 ? 1 : st->comp[scan->comp[i]].h;
        bv[i] = n == 1 ? 1 : st->comp[scan->comp[i]].v;
        dct[i] = built_dc_table(st, scan->dc_table[i]);
        act[i] = built_ac_table(st, scan->ac_table[i]);
    }
    int Al = scan->Al;
    int16_t refine_bit = (int16_t) (1 << Al);

    dc_bits b = { scan->data, st->end, 0, 0, 0, 0 };
    int32_t pred[MAX_SCAN_COMPONENTS] = { 0, 0, 0, 0 };
    unsigned restart = st->restart_interval, left = restart;
    int next_rst = 0;
    for (size_t my = 0; my < mcus_y; my++) {
        for (size_t mx = 0; mx < mcus_x; mx++) {
            if (restart) {
                if (left == 0) {
                    if (read_restart(&b, next_rst))
                        return -1;
                    memset(pred, 0, sizeof pred);
                    next_rst = (next_rst + 1) % RESTART_MARKERS;
                    left = restart;
                }
                left--;
            }
            for (int i = 0; i < n; i++) {
                dc_component *comp = &st->comp[scan->comp[i]];
                for (int by = 0; by < bv[i]; by++) {
                    int16_t *row = comp->dc + (my * (size_t) bv[i] + (size_t) by) * comp->pw +
                                   mx * (size_t) bh[i];
                    for (int bx = 0; bx < bh[i]; bx++) {
                        if (kind == SCAN_DC_REFINE) {
                            if (b.nbits < 1)
                                dc_refill(&b);
                            if (b.acc >> 63)
                                row[bx] |= refine_bit;
                            dc_drop(&b, 1);
                            continue;
                        }
                        int size = dc_symbol(&b, dct[i]);
                        if (size < 0)
                            return -1;
                        int32_t diff = dc_difference(&b, size);
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
            /* Bits taken from past the end of the data: truncated. */
            if (b.nbits < b.pad)
                return -1;
        }
    }
    /* Only the padding of the last byte may follow the last MCU. */
    if (b.nbits - b.pad >= 8)
        return -1;
    *next = b.p;
    return 0;
}

/* Every scan in file order, up to EOI: the markers between scans (tables,
 * restart interval) read, each scan checked and its tables built, DC scans
 * decoded into the planes, AC scans skipped. Returns 0 or -1. */
static int read_scans(dc_state *st, j_decompress_ptr cinfo) {
    dc_scan scan;
    if (first_scan(st, cinfo, &scan))
        return -1;
    for (;;) {
        int kind = prepare_scan(st, &scan);
        if (kind < 0)
            return -1;
        const uint8_t *next;
        if (kind == SCAN_AC ? skip_ac_scan(st, &scan, &next)
                            : decode_dc_scan(st, &scan, kind, &next))
            return -1;
        int more = read_markers(st, cinfo, next, &scan);
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
    for (int c = 0; c < st->nc; c++) {
        int seen = 0;
        for (int k = 1; k <= SMOOTHING_LAST_COEFFICIENT; k++)
            seen |= st->comp[c].bits[k] >= 0;
        if (!seen)
            return 0;
    }
    return 1;
}

/* Whether the scans left every component's DC coefficient complete (one
 * sequential scan each; or every bit of it in a progressive file) and
 * libjpeg would not smooth it (ac_seen_everywhere). */
static int dc_complete(const dc_state *st) {
    for (int c = 0; c < st->nc; c++)
        if (st->progressive ? st->comp[c].bits[0] != 0 : st->comp[c].scans != 1)
            return 0;
    return !st->progressive || ac_seen_everywhere(st);
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
static uint8_t *samples_in_place(dc_component *comp) {
    uint8_t *samples = (uint8_t *) comp->dc;
    size_t count = comp->pw * comp->ph;
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

static uint8_t clamp255(int v) {
    return (uint8_t) (v < 0 ? 0 : v > SAMPLE_MAX ? SAMPLE_MAX : v);
}

/* One output row of RGB from three sample rows: YCbCr converted with
 * libjpeg's arithmetic, or RGB interleaved. */
static void colour_row(int ycc, uint8_t *const line[DC_MAX_COMPONENTS], size_t ow, uint8_t *o) {
    for (size_t x = 0; x < ow; x++) {
        int Y = line[0][x], cb = line[1][x] - SAMPLE_CENTER, cr = line[2][x] - SAMPLE_CENTER;
        if (ycc) {
            o[3 * x] = clamp255(Y + ((FIX_1_40200 * cr + COLOUR_ONE_HALF) >> COLOUR_SCALE_BITS));
            o[3 * x + 1] = clamp255(Y + ((-FIX_0_34414 * cb - FIX_0_71414 * cr + COLOUR_ONE_HALF) >> COLOUR_SCALE_BITS));
            o[3 * x + 2] = clamp255(Y + ((FIX_1_77200 * cb + COLOUR_ONE_HALF) >> COLOUR_SCALE_BITS));
        } else {
            o[3 * x] = (uint8_t) Y;
            o[3 * x + 1] = (uint8_t) (cb + SAMPLE_CENTER);
            o[3 * x + 2] = (uint8_t) (cr + SAMPLE_CENTER);
        }
    }
}

/* Upsamples the three sample planes to ow x oh and converts them to RGB
 * into `out`, a row at a time. Returns 0 or -1 (out of memory). */
static int render_colour(const dc_state *st, uint8_t *const samples[DC_MAX_COMPONENTS], size_t ow,
                         size_t oh, uint8_t *out) {
    int *taps = malloc(sizeof(int) * 3 * DC_MAX_COMPONENTS * ow);
    uint8_t *scratch = malloc(DC_MAX_COMPONENTS * ow);
    if (!taps || !scratch) {
        free(taps);
        free(scratch);
        return -1;
    }
    upsample_plane plane[DC_MAX_COMPONENTS];
    uint8_t *line[DC_MAX_COMPONENTS];
    for (int i = 0; i < DC_MAX_COMPONENTS; i++) {
        const dc_component *comp = &st->comp[i];
        upsample_plane *p = &plane[i];
        p->samples = samples[i];
        p->stride = comp->pw;
        p->rx = st->hmax / comp->h;
        p->ry = st->vmax / comp->v;
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
        for (int i = 0; i < DC_MAX_COMPONENTS; i++)
            upsample_row(&plane[i], y, ow, line[i]);
        colour_row(st->ycc, line, ow, out + y * ow * 3);
    }
    free(scratch);
    free(taps);
    return 0;
}

/* The DC planes as ow x oh pixels in `out`: grey rows copied, colour
 * upsampled and converted. The planes become sample planes. Returns 0 or
 * -1 (out of memory). */
static int render_pixels(dc_state *st, size_t ow, size_t oh, uint8_t *out) {
    uint8_t *samples[DC_MAX_COMPONENTS];
    for (int c = 0; c < st->nc; c++)
        samples[c] = samples_in_place(&st->comp[c]);
    if (st->nc == 1) {
        for (size_t y = 0; y < oh; y++)
            memcpy(out + y * ow, samples[0] + y * st->comp[0].pw, ow);
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
    if (oh > max_bytes / ((size_t) st->nc * ow))
        return 0;
    size_t plane_bytes = 0;
    for (int c = 0; c < st->nc; c++)
        plane_bytes += sizeof(int16_t) * st->comp[c].pw * st->comp[c].ph;
    return plane_bytes <= max_bytes - (size_t) st->nc * ow * oh;
}

/* The built Huffman tables and one zeroed DC plane per component (blocks no
 * scan reaches, the MCU padding of one-component scans, stay 0). Returns 0
 * or -1; release_planes frees what was allocated either way. */
static int allocate_planes(dc_state *st) {
    st->derived = malloc(sizeof(dc_huff) * 2 * NUM_HUFF_TBLS);
    if (!st->derived)
        return -1;
    for (int c = 0; c < st->nc; c++) {
        st->comp[c].dc = calloc(st->comp[c].pw * st->comp[c].ph, sizeof(int16_t));
        if (!st->comp[c].dc)
            return -1;
    }
    return 0;
}

static void release_planes(dc_state *st) {
    for (int c = 0; c < st->nc; c++)
        free(st->comp[c].dc);
    free(st->derived);
}

int jpeg_dc_decode(j_decompress_ptr cinfo, const uint8_t *end, size_t max_bytes,
                   uint8_t **pixels_out, size_t *width_out, size_t *height_out,
                   int *bands_out, int *decoder_out) {
    dc_state st;
    memset(&st, 0, sizeof st);
    if (setup_frame(&st, cinfo, end))
        return -1;
    size_t ow = output_size(st.width), oh = output_size(st.height);
    if (!fits_budget(&st, ow, oh, max_bytes))
        return -1;

    uint8_t *pixels = NULL;
    int result = -1;
    if (allocate_planes(&st) == 0 && read_scans(&st, cinfo) == 0 && dc_complete(&st) &&
        (pixels = malloc(ow * oh * (size_t) st.nc)) != NULL &&
        render_pixels(&st, ow, oh, pixels) == 0) {
        *pixels_out = pixels;
        pixels = NULL;
        *width_out = ow;
        *height_out = oh;
        *bands_out = st.nc;
        *decoder_out = st.progressive ? JPEG_DC_PROGRESSIVE : JPEG_DC_BASELINE;
        result = 0;
    }
    free(pixels);
    release_planes(&st);
    return result;
}

int jpeg_dc_capable(j_decompress_ptr cinfo) {
    dc_state st;
    memset(&st, 0, sizeof st);
    return setup_frame(&st, cinfo, NULL) == 0;
}
