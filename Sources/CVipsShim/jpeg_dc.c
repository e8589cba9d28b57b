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

/* ---------------------------------------------------------------------------
 * Constants
 */

/* Huffman lookahead: LOOK bits index the one-symbol tables, MLOOK bits the
 * multi-symbol AC skip table. */
#define LOOK 9
#define MLOOK 12

/* libjpeg's limits: blocks in an interleaved MCU (D_MAX_BLOCKS_IN_MCU),
 * components in a scan (MAX_COMPS_IN_SCAN), the largest successive-
 * approximation shift it accepts (jdphuff.c). */
#define MAX_BLOCKS_IN_MCU 10
#define MAX_SCAN_COMPONENTS 4
#define MAX_POINT_TRANSFORM 13

/* libjpeg's YCbCr -> RGB conversion (jdcolor.c), 16-bit fixed point:
 * FIX(x) = round(x * 65536). */
#define COLOUR_SCALE_BITS 16
#define COLOUR_ONE_HALF (1 << (COLOUR_SCALE_BITS - 1))
#define FIX_1_40200 91881  /* R = Y + 1.40200 Cr */
#define FIX_0_34414 22554  /* G = Y - 0.34414 Cb - 0.71414 Cr */
#define FIX_0_71414 46802
#define FIX_1_77200 116130 /* B = Y + 1.77200 Cb */

/* The index mask of libjpeg's post-IDCT range-limit table (RANGE_MASK). */
#define IDCT_RANGE_MASK 1023

/* Markers. */
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
 * Huffman tables
 */

/* A table as a DHT segment defines it. */
typedef struct {
    int defined;
    uint8_t bits[17];    /* bits[l]: number of codes of length l (1...16) */
    uint8_t values[256]; /* symbols in code order */
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
    /* Canonical decoding for codes longer than LOOK bits. */
    int32_t maxcode[18];
    int32_t valoffset[18];
    uint8_t values[256];
} dc_huff;

enum huff_use { HUFF_CHECK, HUFF_DC, HUFF_AC };

/* Validates `table` as libjpeg's jpeg_make_d_derived_tbl does (at most 256
 * codes, no over-subscription, no all-ones code, DC symbols 0...15) and, for
 * HUFF_DC and HUFF_AC, fills `h`. Also refuses an empty table, which could
 * decode nothing. Returns 0 or -1. */
static int build_huff(const raw_huff *table, dc_huff *h, enum huff_use use) {
    if (!table->defined)
        return -1;
    int count = 0;
    for (int l = 1; l <= 16; l++)
        count += table->bits[l];
    if (count > 256 || count == 0)
        return -1;
    if (use == HUFF_DC)
        for (int i = 0; i < count; i++)
            if (table->values[i] > 15)
                return -1;
    uint32_t code = 0;
    for (int l = 1; l <= 16; l++) {
        code += table->bits[l];
        if (code >= (1u << l))
            return -1; /* over-subscribed, or an all-ones code */
        code <<= 1;
    }
    if (use == HUFF_CHECK)
        return 0;

    memset(h->look, 0, sizeof h->look);
    memset(h->skip, 0, sizeof h->skip);
    memcpy(h->values, table->values, 256);
    code = 0;
    int k = 0;
    for (int l = 1; l <= 16; l++) {
        int n = table->bits[l];
        h->valoffset[l] = k - (int32_t) code;
        for (int i = 0; i < n; i++, k++, code++) {
            if (l > LOOK)
                continue;
            int shift = LOOK - l;
            uint8_t symbol = table->values[k];
            int r = symbol >> 4, s = symbol & 15;
            int advance = s ? r + 1 : (r == 15 ? 16 : 64);
            for (uint32_t j = code << shift; j < (code + 1) << shift; j++) {
                h->look[j] = (uint16_t) (l << 8 | symbol);
                h->skip[j] = (uint16_t) ((l + s) << 8 | advance);
            }
        }
        h->maxcode[l] = n ? (int32_t) code - 1 : -1;
        code <<= 1;
    }
    h->maxcode[17] = 0x7FFFFFFF;
    if (use != HUFF_AC)
        return 0;
    /* Multi-symbol entries: as many whole AC symbols (code + extra bits) as
     * fit in MLOOK bits, stopping after an end of block. */
    for (uint32_t j = 0; j < (1u << MLOOK); j++) {
        int pos = 0, adv = 0, pre = 0, n = 0;
        while (pos < MLOOK) {
            uint32_t bits = (j << pos) & ((1u << MLOOK) - 1);
            uint16_t e = h->look[bits >> (MLOOK - LOOK)];
            if (!e) break;
            int l = e >> 8, symbol = e & 0xFF, r = symbol >> 4, sz = symbol & 15;
            if (pos + l + sz > MLOOK) break;
            int a = sz ? r + 1 : (r == 15 ? 16 : 64);
            pre = adv;
            adv += a;
            pos += l + sz;
            n++;
            if (a == 64 || adv >= 63) break;
        }
        h->multi[j] = n ? (uint32_t) (pos << 16 | pre << 8 | (adv > 255 ? 255 : adv)) : 0;
    }
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
            if (c == 0xFF) {
                if (b->p + 1 < b->end && b->p[1] == 0x00) {
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
    for (int l = LOOK + 1; l <= 16; l++) {
        int32_t code = (int32_t) (acc >> (64 - l));
        if (code <= h->maxcode[l]) {
            int index = code + h->valoffset[l];
            if (index < 0 || index > 255)
                return -1;
            *length = l;
            return h->values[index];
        }
    }
    return -1;
}

/* The next Huffman symbol, or -1 for a bad code. */
static inline int dc_symbol(dc_bits *b, const dc_huff *h) {
    if (b->nbits < 32)
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
    if (b->nbits < 32)
        dc_refill(b);
    int32_t v = (int32_t) (b->acc >> (64 - size));
    dc_drop(b, size);
    if (v < (1 << (size - 1)))
        v += (int32_t) (~0u << size) + 1;
    return v;
}

/* Skips the 63 AC coefficients of a sequential block. Returns 0 or -1. */
static inline int skip_ac(dc_bits *b, const dc_huff *ah) {
    int k = 1;
    while (k < 64) {
        if (b->nbits < 32)
            dc_refill(b);
        uint32_t m = ah->multi[b->acc >> (64 - MLOOK)];
        if (m && k + (int) ((m >> 8) & 0xFF) < 64) {
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
            int r = symbol >> 4, size = symbol & 15;
            dc_drop(b, len + size);
            k += size ? r + 1 : (r == 15 ? 16 : 64);
        }
    }
    return 0;
}

/* At a restart boundary: only byte-alignment padding may precede the
 * expected RSTn. Resets the reader after it. Returns 0 or -1. */
static int read_restart(dc_bits *b, int expected) {
    dc_refill(b);
    if (!b->marker || b->nbits - b->pad >= 8)
        return -1;
    const uint8_t *p = b->p;
    while (p < b->end && *p == 0xFF)
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

typedef struct {
    int h, v;        /* sampling factors (1 for grey) */
    size_t pw, ph;   /* plane size in blocks: the MCU-padded grid */
    size_t bw, bh;   /* blocks holding real pixels (a non-interleaved scan's extent) */
    int16_t *dc;     /* DC coefficient per block, pw x ph, row-major */
    int quant_table; /* the quantisation table number from SOF */
    int quant;       /* DC quantiser latched at the component's first scan, -1 before */
    int8_t bits[64]; /* successive approximation: Al of the last scan of each
                        coefficient, -1 before any (libjpeg's coef_bits) */
    int scans;       /* sequential files: scans holding this component */
} dc_component;

typedef struct {
    const uint8_t *end;       /* end of the file in memory */
    int progressive;
    int nc;                   /* components: 1 or 3 */
    int ycc;                  /* 3 components are YCbCr (else RGB) */
    size_t width, height;     /* image size in pixels */
    int hmax, vmax;           /* largest sampling factors */
    size_t mcux, mcuy;        /* MCUs of an interleaved scan */
    dc_component comp[3];
    raw_huff dc_raw[4], ac_raw[4]; /* Huffman tables as last defined */
    dc_huff *derived;         /* 8 tables: DC 0...3, AC 0...3 */
    int quant_dc[4];          /* DC entry of each quantisation table, -1 = undefined */
    unsigned restart_interval;
} dc_state;

/* One scan's header. */
typedef struct {
    int n;                         /* components in the scan */
    int comp[MAX_SCAN_COMPONENTS]; /* their indices (SOF order) */
    int dc_table[MAX_SCAN_COMPONENTS], ac_table[MAX_SCAN_COMPONENTS];
    int Ss, Se, Ah, Al;
    const uint8_t *data;           /* first byte of the entropy-coded data */
} dc_scan;

enum scan_kind { SCAN_SEQUENTIAL, SCAN_DC_FIRST, SCAN_DC_REFINE, SCAN_AC };

static void copy_huff(raw_huff *to, const JHUFF_TBL *from) {
    to->defined = from != NULL;
    if (!from)
        return;
    memcpy(to->bits, from->bits, 17);
    memcpy(to->values, from->huffval, 256);
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
    st->mcux = (st->width + 8 * (size_t) st->hmax - 1) / (8 * (size_t) st->hmax);
    st->mcuy = (st->height + 8 * (size_t) st->vmax - 1) / (8 * (size_t) st->vmax);
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
            st->hmax / comp->h > 4 || st->vmax / comp->v > 4)
            return -1;
        /* Luma (and every RGB component) at full sampling, or libjpeg's 1/8
         * decode of it is not its DC value (see the top of the file). */
        if ((c == 0 || !st->ycc) && (comp->h != st->hmax || comp->v != st->vmax))
            return -1;
        comp->pw = st->mcux * (size_t) comp->h;
        comp->ph = st->mcuy * (size_t) comp->v;
        size_t cw = (st->width * (size_t) comp->h + (size_t) st->hmax - 1) / (size_t) st->hmax;
        size_t ch = (st->height * (size_t) comp->v + (size_t) st->vmax - 1) / (size_t) st->vmax;
        comp->bw = (cw + 7) / 8;
        comp->bh = (ch + 7) / 8;
        comp->quant_table = info->quant_tbl_no;
        if (comp->quant_table < 0 || comp->quant_table >= NUM_QUANT_TBLS)
            return -1;
        comp->quant = -1;
        memset(comp->bits, -1, sizeof comp->bits);
        comp->scans = 0;
        comp->dc = NULL;
    }
    for (int t = 0; t < 4; t++) {
        copy_huff(&st->dc_raw[t], cinfo->dc_huff_tbl_ptrs[t]);
        copy_huff(&st->ac_raw[t], cinfo->ac_huff_tbl_ptrs[t]);
        st->quant_dc[t] = cinfo->quant_tbl_ptrs[t] ? cinfo->quant_tbl_ptrs[t]->quantval[0] : -1;
    }
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
        for (int j = 0; j < i; j++)
            if (scan->comp[j] == scan->comp[i])
                return -1;
    }
    scan->Ss = cinfo->Ss;
    scan->Se = cinfo->Se;
    scan->Ah = cinfo->Ah;
    scan->Al = cinfo->Al;
    scan->data = cinfo->src->next_input_byte;
    return 0;
}

/* ---------------------------------------------------------------------------
 * Marker stream between scans
 */

static unsigned read16(const uint8_t *p) {
    return (unsigned) p[0] << 8 | p[1];
}

/* DHT: one or more tables (libjpeg's get_dht). */
static int read_dht(dc_state *st, const uint8_t *p, size_t length) {
    while (length > 16) {
        int index = p[0];
        raw_huff table = { 1, { 0 }, { 0 } };
        int count = 0;
        for (int l = 1; l <= 16; l++) {
            table.bits[l] = p[l];
            count += p[l];
        }
        p += 17;
        length -= 17;
        if (count > 256 || (size_t) count > length)
            return -1;
        memcpy(table.values, p, (size_t) count);
        p += count;
        length -= (size_t) count;
        raw_huff *slot;
        if (index & 0x10) {
            index -= 0x10;
            if (index >= 4)
                return -1;
            slot = &st->ac_raw[index];
        } else {
            if (index >= 4)
                return -1;
            slot = &st->dc_raw[index];
        }
        *slot = table;
    }
    return length == 0 ? 0 : -1;
}

/* DQT: one or more tables, 8- or 16-bit entries (libjpeg's get_dqt). Only
 * the DC entry (the first, in zigzag order) is kept. */
static int read_dqt(dc_state *st, const uint8_t *p, size_t length) {
    while (length > 0) {
        int n = p[0] & 15, precision = p[0] >> 4;
        size_t size = 1 + 64 * (size_t) (precision ? 2 : 1);
        if (n >= NUM_QUANT_TBLS || precision > 1 || length < size)
            return -1;
        st->quant_dc[n] = precision ? (int) read16(p + 1) : p[1];
        p += size;
        length -= size;
    }
    return 0;
}

/* SOS (libjpeg's get_sos): components by id, each at most once. */
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
        for (int j = 0; j < i; j++)
            if (scan->comp[j] == found)
                return -1; /* a component twice in one scan */
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
        if (pos >= end || *pos != 0xFF)
            return -1;
        while (pos < end && *pos == 0xFF)
            pos++;
        if (pos >= end)
            return -1;
        int marker = *pos++;
        if (marker == M_EOI)
            return 0;
        if (end - pos < 2)
            return -1;
        size_t length = read16(pos);
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
 * Scans
 */

/* Validates a scan against libjpeg's rules and the progression so far,
 * latches the quantisers of components seen for the first time and builds the
 * tables the scan needs. Returns its kind, or -1. */
static int prepare_scan(dc_state *st, const dc_scan *scan) {
    if (scan->n > 1) {
        int blocks = 0;
        for (int i = 0; i < scan->n; i++)
            blocks += st->comp[scan->comp[i]].h * st->comp[scan->comp[i]].v;
        if (blocks > MAX_BLOCKS_IN_MCU)
            return -1;
    }
    int kind;
    if (!st->progressive) {
        /* libjpeg warns about anything else in a sequential file. */
        if (scan->Ss != 0 || scan->Se != 63 || scan->Ah != 0 || scan->Al != 0)
            return -1;
        for (int i = 0; i < scan->n; i++)
            if (st->comp[scan->comp[i]].scans++)
                return -1; /* decoded already */
        kind = SCAN_SEQUENTIAL;
    } else {
        /* jdphuff.c: start_pass_phuff_decoder's errors and warnings. */
        int dc = scan->Ss == 0;
        if (dc ? scan->Se != 0 : (scan->Ss > scan->Se || scan->Se > 63 || scan->n != 1))
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
        kind = !dc ? SCAN_AC : scan->Ah ? SCAN_DC_REFINE : SCAN_DC_FIRST;
    }
    for (int i = 0; i < scan->n; i++) {
        dc_component *comp = &st->comp[scan->comp[i]];
        if (comp->quant < 0) {
            if (st->quant_dc[comp->quant_table] < 0)
                return -1;
            comp->quant = st->quant_dc[comp->quant_table];
        }
        int d = scan->dc_table[i], a = scan->ac_table[i];
        if (d >= 4 || a >= 4)
            return -1;
        if (kind == SCAN_SEQUENTIAL || kind == SCAN_DC_FIRST)
            if (build_huff(&st->dc_raw[d], &st->derived[d], HUFF_DC))
                return -1;
        if (kind == SCAN_SEQUENTIAL)
            if (build_huff(&st->ac_raw[a], &st->derived[4 + a], HUFF_AC))
                return -1;
        if (kind == SCAN_AC)
            if (build_huff(&st->ac_raw[a], NULL, HUFF_CHECK))
                return -1;
    }
    return kind;
}

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
        dct[i] = &st->derived[scan->dc_table[i]];
        act[i] = &st->derived[4 + scan->ac_table[i]];
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
                    next_rst = (next_rst + 1) & 7;
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
        p = memchr(p, 0xFF, (size_t) (end - p));
        if (!p)
            return -1;
        const uint8_t *m = p + 1;
        while (m < end && *m == 0xFF)
            m++;
        if (m >= end)
            return -1;
        if (*m == 0x00 && m == p + 1) {
            p = m + 1;
            continue;
        }
        if (*m >= M_RST0 && *m <= M_RST7) {
            if (*m != M_RST0 + (int) (seen & 7) || p == segment)
                return -1;
            seen++;
            p = segment = m + 1;
            continue;
        }
        if (*m == 0x00)
            return -1; /* 0xFF 0xFF 0x00: not valid entropy data */
        /* libjpeg warns about an interval without data, or a missing RSTn. */
        if (seen != expected || p == segment)
            return -1;
        *next = p;
        return 0;
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
        for (int k = 1; k <= 9; k++)
            seen |= st->comp[c].bits[k] >= 0;
        if (!seen)
            return 0;
    }
    return 1;
}

/* ---------------------------------------------------------------------------
 * Pixels
 */

/* libjpeg's 1x1 IDCT (jidctred.c, jpeg_idct_1x1): dequantise with 16-bit
 * operands (ISLOW_MULT_TYPE is short in SIMD builds), descale by 8, then
 * look the value up in the post-IDCT range-limit table (jdmaster.c,
 * prepare_range_limit_table) by its low 10 bits: the table level-shifts by
 * 128 and clamps within -512...511 but wraps beyond, as here. */
static uint8_t idct_1x1(int16_t coefficient, int quant) {
    int32_t value = (int32_t) coefficient * (int32_t) (int16_t) quant;
    int index = (int) ((value + 4) >> 3) & IDCT_RANGE_MASK;
    if (index < 128)
        return (uint8_t) (index + 128); /* 0...127 */
    if (index < 512)
        return 255;                     /* 128...511 */
    if (index < 1024 - 128)
        return 0;                       /* -512...-129 */
    return (uint8_t) (index - (1024 - 128)); /* -128...-1 */
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
    int f = ((2 * x + 1) * 256) / (2 * ratio) - 128; /* 1/256 units */
    int a = f < 0 ? 0 : f >> 8;
    int weight = f < 0 ? 0 : f & 255;
    if (a > size - 1) { a = size - 1; weight = 0; }
    *i0 = a;
    *i1 = a + 1 < size ? a + 1 : size - 1;
    *w = weight;
}

static uint8_t clamp255(int v) {
    return (uint8_t) (v < 0 ? 0 : v > 255 ? 255 : v);
}

/* Upsamples the three sample planes to ow x oh and converts YCbCr to RGB
 * (libjpeg's arithmetic) into `out`. Returns 0 or -1 (out of memory). */
static int render_colour(const dc_state *st, uint8_t *const plane[3], size_t ow, size_t oh,
                         uint8_t *out) {
    int rx[3], ry[3], cw[3], chh[3];
    size_t stride[3];
    for (int i = 0; i < 3; i++) {
        const dc_component *comp = &st->comp[i];
        stride[i] = comp->pw;
        rx[i] = st->hmax / comp->h;
        ry[i] = st->vmax / comp->v;
        /* Blocks holding real pixels (the rest is MCU padding). */
        cw[i] = (int) comp->bw;
        chh[i] = (int) comp->bh;
    }
    int *tx = malloc(sizeof(int) * 9 * ow);
    uint8_t *scratch = malloc(3 * ow);
    if (!tx || !scratch) {
        free(tx);
        free(scratch);
        return -1;
    }
    int *x0[3], *x1[3], *wx[3];
    for (int i = 0; i < 3; i++) {
        x0[i] = tx + (3 * i) * ow;
        x1[i] = tx + (3 * i + 1) * ow;
        wx[i] = tx + (3 * i + 2) * ow;
        for (size_t x = 0; x < ow; x++)
            tap((int) x, rx[i], cw[i], &x0[i][x], &x1[i][x], &wx[i][x]);
    }
    uint8_t *line[3];
    for (size_t y = 0; y < oh; y++) {
        for (int i = 0; i < 3; i++) {
            line[i] = scratch + (size_t) i * ow;
            int y0, y1, wy;
            tap((int) y, ry[i], chh[i], &y0, &y1, &wy);
            const uint8_t *r0 = plane[i] + (size_t) y0 * stride[i];
            const uint8_t *r1 = plane[i] + (size_t) y1 * stride[i];
            if (rx[i] == 1 && ry[i] == 1) {
                memcpy(line[i], r0, ow);
                continue;
            }
            for (size_t x = 0; x < ow; x++) {
                int a = x0[i][x], bb = x1[i][x], w = wx[i][x];
                int top = r0[a] * (256 - w) + r0[bb] * w;
                int bottom = r1[a] * (256 - w) + r1[bb] * w;
                line[i][x] = (uint8_t) ((top * (256 - wy) + bottom * wy + 32768) >> 16);
            }
        }
        uint8_t *o = out + y * ow * 3;
        for (size_t x = 0; x < ow; x++) {
            int Y = line[0][x], cb = line[1][x] - 128, cr = line[2][x] - 128;
            if (st->ycc) {
                o[3 * x] = clamp255(Y + ((FIX_1_40200 * cr + COLOUR_ONE_HALF) >> COLOUR_SCALE_BITS));
                o[3 * x + 1] = clamp255(Y + ((-FIX_0_34414 * cb - FIX_0_71414 * cr + COLOUR_ONE_HALF) >> COLOUR_SCALE_BITS));
                o[3 * x + 2] = clamp255(Y + ((FIX_1_77200 * cb + COLOUR_ONE_HALF) >> COLOUR_SCALE_BITS));
            } else {
                o[3 * x] = (uint8_t) Y;
                o[3 * x + 1] = (uint8_t) (cb + 128);
                o[3 * x + 2] = (uint8_t) (cr + 128);
            }
        }
    }
    free(scratch);
    free(tx);
    return 0;
}

/* ---------------------------------------------------------------------------
 * The decode
 */

int jpeg_dc_decode(j_decompress_ptr cinfo, const uint8_t *end, size_t max_bytes,
                   uint8_t **pixels_out, size_t *width_out, size_t *height_out,
                   int *bands_out, int *decoder_out) {
    dc_state st;
    memset(&st, 0, sizeof st);
    if (setup_frame(&st, cinfo, end))
        return -1;
    int nc = st.nc;
    /* floor(size / 8), at least 1: libvips's loader drops the last, partial
     * pixel of a shrunk JPEG, and both paths must agree. */
    size_t ow = st.width / 8 ? st.width / 8 : 1, oh = st.height / 8 ? st.height / 8 : 1;
    if (oh > max_bytes / ((size_t) nc * ow))
        return -1;
    /* The planes hold two bytes per block; with the image they must fit the
     * same budget. */
    size_t plane_bytes = 0;
    for (int c = 0; c < nc; c++)
        plane_bytes += 2 * st.comp[c].pw * st.comp[c].ph;
    if (plane_bytes > max_bytes - (size_t) nc * ow * oh)
        return -1;

    uint8_t *pixels = NULL;
    int result = -1;
    st.derived = malloc(sizeof(dc_huff) * 8);
    if (!st.derived)
        goto done;
    for (int c = 0; c < nc; c++) {
        /* Blocks no scan reaches (MCU padding of one-component scans) stay 0. */
        st.comp[c].dc = calloc(st.comp[c].pw * st.comp[c].ph, sizeof(int16_t));
        if (!st.comp[c].dc)
            goto done;
    }

    dc_scan scan;
    if (first_scan(&st, cinfo, &scan))
        goto done;
    for (;;) {
        int kind = prepare_scan(&st, &scan);
        if (kind < 0)
            goto done;
        const uint8_t *next;
        if (kind == SCAN_AC ? skip_ac_scan(&st, &scan, &next)
                            : decode_dc_scan(&st, &scan, kind, &next))
            goto done;
        int more = read_markers(&st, cinfo, next, &scan);
        if (more < 0)
            goto done;
        if (!more)
            break;
    }
    /* Every component's DC coefficient complete. */
    for (int c = 0; c < nc; c++)
        if (st.progressive ? st.comp[c].bits[0] != 0 : st.comp[c].scans != 1)
            goto done;
    if (st.progressive && !ac_seen_everywhere(&st))
        goto done;

    pixels = malloc(ow * oh * (size_t) nc);
    if (!pixels)
        goto done;
    uint8_t *plane[3];
    for (int c = 0; c < nc; c++)
        plane[c] = samples_in_place(&st.comp[c]);
    if (nc == 1) {
        for (size_t y = 0; y < oh; y++)
            memcpy(pixels + y * ow, plane[0] + y * st.comp[0].pw, ow);
    } else if (render_colour(&st, plane, ow, oh, pixels)) {
        goto done;
    }
    *pixels_out = pixels;
    pixels = NULL;
    *width_out = ow;
    *height_out = oh;
    *bands_out = nc;
    *decoder_out = st.progressive ? JPEG_DC_PROGRESSIVE : JPEG_DC_BASELINE;
    result = 0;
done:
    free(pixels);
    for (int c = 0; c < nc; c++)
        free(st.comp[c].dc);
    free(st.derived);
    return result;
}

int jpeg_dc_capable(j_decompress_ptr cinfo) {
    dc_state st;
    memset(&st, 0, sizeof st);
    return setup_frame(&st, cinfo, NULL) == 0;
}
