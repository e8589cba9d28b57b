/* The scan layer both JPEG decoders of untrusted bytes share (see
 * jpeg_scan.h): the frame, the markers between scans, the progression
 * checks, Huffman tables, restart markers and colour conversion. */
#include "jpeg_scan.h"

#include <stdlib.h>

const uint8_t js_natural_order[DCTSIZE2] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,
    12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6,  7,  14, 21, 28,
    35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
    58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
};

/* ---------------------------------------------------------------------------
 * The frame
 */

int js_frame_init(js_frame *f, j_decompress_ptr cinfo) {
    int nc = cinfo->num_components;
    if ((nc != 1 && nc != 3) || cinfo->arith_code || cinfo->data_precision != 8)
        return -1;
    if (nc == 3 && cinfo->jpeg_color_space != JCS_YCbCr && cinfo->jpeg_color_space != JCS_RGB)
        return -1;
    f->progressive = cinfo->progressive_mode;
    f->nc = nc;
    f->ycc = nc == 3 && cinfo->jpeg_color_space == JCS_YCbCr;
    f->width = cinfo->image_width;
    f->height = cinfo->image_height;
    if (f->width == 0 || f->height == 0)
        return -1;
    /* A single component is always decoded one block per MCU. */
    f->hmax = nc == 1 ? 1 : cinfo->max_h_samp_factor;
    f->vmax = nc == 1 ? 1 : cinfo->max_v_samp_factor;
    if (f->hmax < 1 || f->hmax > MAX_SAMP_FACTOR || f->vmax < 1 || f->vmax > MAX_SAMP_FACTOR)
        return -1;
    f->mcux = (f->width + DCTSIZE * (size_t) f->hmax - 1) / (DCTSIZE * (size_t) f->hmax);
    f->mcuy = (f->height + DCTSIZE * (size_t) f->vmax - 1) / (DCTSIZE * (size_t) f->vmax);
    for (int c = 0; c < nc; c++) {
        js_component *comp = &f->comp[c];
        jpeg_component_info *info = &cinfo->comp_info[c];
        /* Scans name components by id: each id once. */
        for (int d = 0; d < c; d++)
            if (cinfo->comp_info[d].component_id == info->component_id)
                return -1;
        comp->h = nc == 1 ? 1 : info->h_samp_factor;
        comp->v = nc == 1 ? 1 : info->v_samp_factor;
        if (comp->h < 1 || comp->v < 1 || f->hmax % comp->h || f->vmax % comp->v)
            return -1;
        comp->pw = f->mcux * (size_t) comp->h;
        comp->ph = f->mcuy * (size_t) comp->v;
        size_t cw = (f->width * (size_t) comp->h + (size_t) f->hmax - 1) / (size_t) f->hmax;
        size_t ch = (f->height * (size_t) comp->v + (size_t) f->vmax - 1) / (size_t) f->vmax;
        comp->bw = (cw + DCTSIZE - 1) / DCTSIZE;
        comp->bh = (ch + DCTSIZE - 1) / DCTSIZE;
        comp->quant_table = info->quant_tbl_no;
        if (comp->quant_table < 0 || comp->quant_table >= JS_TABLES)
            return -1;
        memset(comp->bits, -1, sizeof comp->bits);
    }
    return 0;
}

/* ---------------------------------------------------------------------------
 * Tables and markers
 */

static void copy_huff(js_raw_huff *to, const JHUFF_TBL *from) {
    to->defined = from != NULL;
    if (!from)
        return;
    memcpy(to->bits, from->bits, JS_MAX_CODE_LENGTH + 1);
    memcpy(to->values, from->huffval, JS_MAX_SYMBOLS);
}

void js_stream_init(js_stream *s, j_decompress_ptr cinfo, const uint8_t *end) {
    s->end = end;
    for (int t = 0; t < JS_TABLES; t++) {
        copy_huff(&s->dc[t], cinfo->dc_huff_tbl_ptrs[t]);
        copy_huff(&s->ac[t], cinfo->ac_huff_tbl_ptrs[t]);
        s->quant_defined[t] = cinfo->quant_tbl_ptrs[t] != NULL;
        if (s->quant_defined[t])
            for (int i = 0; i < DCTSIZE2; i++)
                s->quant[t][i] = cinfo->quant_tbl_ptrs[t]->quantval[i];
    }
    s->restart_interval = cinfo->restart_interval;
}

int js_first_scan(const js_stream *s, j_decompress_ptr cinfo, int nc, js_scan *scan) {
    scan->n = cinfo->comps_in_scan;
    if (scan->n < 1 || scan->n > nc)
        return -1;
    for (int i = 0; i < scan->n; i++) {
        jpeg_component_info *info = cinfo->cur_comp_info[i];
        if (!info || info->component_index < 0 || info->component_index >= nc)
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
    if (!scan->data || scan->data > s->end)
        return -1;
    return 0;
}

static unsigned read16(const uint8_t *p) {
    return (unsigned) p[0] << 8 | p[1];
}

/* DHT: one or more tables (libjpeg's get_dht). Each is a class/number byte
 * (0x1n for AC table n), 16 code counts, then the symbols. */
static int read_dht(js_stream *s, const uint8_t *p, size_t length) {
    size_t at = 0;
    while (at < length) {
        if (at + 1 + JS_MAX_CODE_LENGTH > length)
            return -1;
        int index = p[at];
        js_raw_huff table = { 1, { 0 }, { 0 } };
        size_t count = 0;
        for (int l = 1; l <= JS_MAX_CODE_LENGTH; l++) {
            table.bits[l] = p[at + (size_t) l];
            count += p[at + (size_t) l];
        }
        at += 1 + JS_MAX_CODE_LENGTH;
        if (count > JS_MAX_SYMBOLS || at + count > length)
            return -1;
        memcpy(table.values, p + at, count);
        at += count;
        int ac = index & 0x10;
        index &= ~0x10;
        if (index >= JS_TABLES)
            return -1;
        if (ac)
            s->ac[index] = table;
        else
            s->dc[index] = table;
    }
    return 0;
}

/* DQT: one or more tables, 8- or 16-bit entries in zigzag order (libjpeg's
 * get_dqt), kept in natural order. */
static int read_dqt(js_stream *s, const uint8_t *p, size_t length) {
    size_t at = 0;
    while (at < length) {
        int n = p[at] & 15, precision = p[at] >> 4;
        size_t entry = precision ? 2 : 1;
        if (n >= JS_TABLES || precision > 1 || at + 1 + DCTSIZE2 * entry > length)
            return -1;
        const uint8_t *q = p + at + 1;
        for (int k = 0; k < DCTSIZE2; k++)
            s->quant[n][js_natural_order[k]] = (uint16_t) (precision ? read16(q + 2 * k) : q[k]);
        s->quant_defined[n] = 1;
        at += 1 + DCTSIZE2 * entry;
    }
    return 0;
}

/* SOS (libjpeg's get_sos): the component count, then an id and a table byte
 * per component, then Ss, Se and Ah/Al. */
static int read_sos(j_decompress_ptr cinfo, int nc, const uint8_t *p, size_t length, js_scan *scan) {
    if (1 > length)
        return -1;
    int n = p[0];
    if (n < 1 || n > JS_MAX_SCAN_COMPONENTS || length != (size_t) (2 * n + 4))
        return -1;
    scan->n = n;
    for (int i = 0; i < n; i++) {
        /* libjpeg only matches a component whose index is not below the
         * position in the scan (it tests cur_comp_info[ci], indexed by
         * position), so components must come in frame order. */
        int id = p[1 + 2 * i], tables = p[2 + 2 * i], found = -1;
        for (int c = i; c < nc; c++)
            if (cinfo->comp_info[c].component_id == id) {
                found = c;
                break;
            }
        if (found < 0)
            return -1;
        /* libjpeg's get_sos fails a repeat (JERR_BAD_COMPONENT_ID). */
        for (int j = 0; j < i; j++)
            if (scan->comp[j] == found)
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

int js_read_markers(js_stream *s, j_decompress_ptr cinfo, int nc, const uint8_t *pos, js_scan *scan) {
    /* Offsets from `pos`: `at` the next byte, `size` the bytes left. */
    if (!pos || pos > s->end)
        return -1;
    size_t size = (size_t) (s->end - pos), at = 0;
    for (;;) {
        if (at + 1 > size || pos[at] != JS_MARKER_PREFIX)
            return -1;
        while (at + 1 <= size && pos[at] == JS_MARKER_PREFIX)
            at++;
        if (at + 1 > size)
            return -1;
        int marker = pos[at++];
        if (marker == JS_M_EOI)
            return 0;
        if (at + 2 > size)
            return -1;
        size_t length = read16(pos + at); /* the segment's length counts itself */
        if (length < 2 || at + length > size)
            return -1;
        const uint8_t *body = pos + at + 2;
        size_t body_length = length - 2;
        at += length;
        switch (marker) {
        case JS_M_SOS:
            if (read_sos(cinfo, nc, body, body_length, scan))
                return -1;
            scan->data = pos + at;
            return 1;
        case JS_M_DHT:
            if (read_dht(s, body, body_length))
                return -1;
            break;
        case JS_M_DQT:
            if (read_dqt(s, body, body_length))
                return -1;
            break;
        case JS_M_DRI:
            if (body_length != 2)
                return -1;
            s->restart_interval = read16(body);
            break;
        default:
            if ((marker >= JS_M_APP0 && marker <= JS_M_APP15) || marker == JS_M_COM)
                break;
            return -1;
        }
    }
}

/* ---------------------------------------------------------------------------
 * Scans
 */

int js_mcu_fits(const js_frame *f, const js_scan *scan) {
    if (scan->n == 1)
        return 1;
    int blocks = 0;
    for (int i = 0; i < scan->n; i++)
        blocks += f->comp[scan->comp[i]].h * f->comp[scan->comp[i]].v;
    return blocks <= JS_MAX_BLOCKS_IN_MCU;
}

int js_progression(js_frame *f, const js_scan *scan) {
    /* jdphuff.c: start_pass_phuff_decoder's errors and warnings. */
    int dc = scan->Ss == 0;
    if (dc ? scan->Se != 0 : (scan->Ss > scan->Se || scan->Se > DCTSIZE2 - 1 || scan->n != 1))
        return -1;
    if ((scan->Ah != 0 && scan->Al != scan->Ah - 1) || scan->Al > JS_MAX_POINT_TRANSFORM)
        return -1;
    for (int i = 0; i < scan->n; i++) {
        int8_t *bits = f->comp[scan->comp[i]].bits;
        if (!dc && bits[0] < 0)
            return -1; /* AC before the component's DC */
        for (int k = scan->Ss; k <= scan->Se; k++) {
            if (scan->Ah != (bits[k] < 0 ? 0 : bits[k]))
                return -1;
            bits[k] = (int8_t) scan->Al;
        }
    }
    return dc;
}

/* ---------------------------------------------------------------------------
 * Huffman tables
 */

int js_build_huff(const js_raw_huff *table, js_huff *h, int dc) {
    if (!table->defined)
        return -1;
    int count = 0;
    for (int l = 1; l <= JS_MAX_CODE_LENGTH; l++)
        count += table->bits[l];
    if (count > JS_MAX_SYMBOLS || count == 0)
        return -1;
    if (dc)
        for (int i = 0; i < count; i++)
            if (table->values[i] > JS_MAX_DC_CATEGORY)
                return -1;
    uint32_t code = 0;
    for (int l = 1; l <= JS_MAX_CODE_LENGTH; l++) {
        code += table->bits[l];
        if (code >= (1u << l))
            return -1; /* over-subscribed, or an all-ones code */
        code <<= 1;
    }
    if (!h)
        return 0;
    memset(h->look, 0, sizeof h->look);
    memcpy(h->values, table->values, JS_MAX_SYMBOLS);
    code = 0;
    int k = 0;
    for (int l = 1; l <= JS_MAX_CODE_LENGTH; l++) {
        int n = table->bits[l];
        h->valoffset[l] = k - (int32_t) code;
        for (int i = 0; i < n; i++, k++, code++) {
            if (l > JS_LOOK)
                continue;
            int shift = JS_LOOK - l;
            for (uint32_t j = code << shift; j < (code + 1) << shift; j++)
                h->look[j] = (uint16_t) (l << 8 | table->values[k]);
        }
        h->maxcode[l] = n ? (int32_t) code - 1 : -1;
        code <<= 1;
    }
    return 0;
}

/* ---------------------------------------------------------------------------
 * Restart markers
 */

int js_read_restart(js_bits *b, int expected) {
    js_refill(b);
    if (!b->marker || js_leftover(b))
        return -1;
    const uint8_t *p = b->p;
    while (p < b->end && *p == JS_MARKER_PREFIX)
        p++;
    if (p >= b->end || *p != JS_M_RST0 + expected)
        return -1;
    b->p = p + 1;
    b->acc = 0;
    b->nbits = b->pad = b->marker = 0;
    return 0;
}

/* ---------------------------------------------------------------------------
 * Colour
 */

#define COLOUR_SCALE_BITS 16
#define COLOUR_ONE_HALF (1 << (COLOUR_SCALE_BITS - 1))
#define FIX_1_40200 91881  /* R = Y + 1.40200 Cr */
#define FIX_0_34414 22554  /* G = Y - 0.34414 Cb - 0.71414 Cr */
#define FIX_0_71414 46802
#define FIX_1_77200 116130 /* B = Y + 1.77200 Cb */
#define SAMPLE_CENTER 128
#define SAMPLE_MAX 255

static inline uint8_t clamp255(int v) {
    return (uint8_t) (v < 0 ? 0 : v > SAMPLE_MAX ? SAMPLE_MAX : v);
}

JS_HOT void js_rows_to_rgb(int ycc, const uint8_t *restrict y, const uint8_t *restrict cb,
                           const uint8_t *restrict cr, size_t count, uint8_t *restrict rgb) {
    if (!ycc) {
        for (size_t x = 0; x < count; x++) {
            rgb[3 * x] = y[x];
            rgb[3 * x + 1] = cb[x];
            rgb[3 * x + 2] = cr[x];
        }
        return;
    }
    for (size_t x = 0; x < count; x++) {
        int Y = y[x], b = cb[x] - SAMPLE_CENTER, r = cr[x] - SAMPLE_CENTER;
        rgb[3 * x] = clamp255(Y + ((FIX_1_40200 * r + COLOUR_ONE_HALF) >> COLOUR_SCALE_BITS));
        rgb[3 * x + 1] = clamp255(Y + ((-FIX_0_34414 * b - FIX_0_71414 * r + COLOUR_ONE_HALF) >> COLOUR_SCALE_BITS));
        rgb[3 * x + 2] = clamp255(Y + ((FIX_1_77200 * b + COLOUR_ONE_HALF) >> COLOUR_SCALE_BITS));
    }
}
