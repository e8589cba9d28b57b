/* The 1/8-scale JPEG decode of the common thumbnail case: DC coefficients only.
 *
 * At 1/8 scale every 8x8 block becomes one pixel, its DC coefficient: libjpeg
 * still Huffman-decodes all 63 AC coefficients of every block (they must be
 * read to find the next block) and then runs a 1x1 IDCT. That Huffman work
 * is nearly all of the time thumbs spends on a photo. Here AC coefficients are
 * skipped, never decoded: a 4096-entry table per AC Huffman table maps the
 * next 12 bits to how many bits and coefficients the next one to three
 * symbols take, so one lookup usually skips several. Luma comes out
 * bit-identical to libjpeg's 1/8 decode; chroma is bilinearly upsampled from
 * its own DC values (libjpeg uses a 2x2 IDCT there), which thumbnails, saved
 * with 4:2:0 chroma again, cannot show.
 *
 * Only baseline, sequential, Huffman-coded, 8-bit files with one interleaved
 * scan of all components get here; libjpeg reads the header (markers,
 * tables) first. Any surprise in the entropy data (a bad code, a missing
 * restart marker, data ending early) fails the decode and the caller takes
 * the ordinary path, which reports or tolerates the damage as configured.
 */
#include "jpeg_dc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LOOK 9
#define MLOOK 12

typedef struct {
    /* Fast table, LOOK bits: (length << 8 | symbol), 0 when the code is longer. */
    uint16_t look[1 << LOOK];
    /* AC skip table: (bits to drop << 8 | coefficients to advance), 0 = slow. */
    uint16_t skip[1 << LOOK];
    /* Multi-symbol AC skip, MLOOK bits: drop << 16 | pre << 8 | advance. */
    uint32_t multi[1 << MLOOK];
    /* Canonical decoding for long codes. */
    int32_t maxcode[18];
    int32_t valoffset[18];
    uint8_t values[256];
} dc_huff;

static int build_huff(const JHUFF_TBL *table, dc_huff *h, int ac) {
    if (!table)
        return -1;
    memset(h->look, 0, sizeof h->look);
    memset(h->skip, 0, sizeof h->skip);
    int count = 0;
    for (int l = 1; l <= 16; l++)
        count += table->bits[l];
    if (count > 256 || count == 0)
        return -1;
    memcpy(h->values, table->huffval, 256);
    uint32_t code = 0;
    int k = 0;
    for (int l = 1; l <= 16; l++) {
        int n = table->bits[l];
        h->valoffset[l] = k - (int32_t) code;
        for (int i = 0; i < n; i++, k++, code++) {
            if (code >= (1u << l))
                return -1; /* over-subscribed table */
            if (l <= LOOK) {
                int shift = LOOK - l;
                uint8_t symbol = table->huffval[k];
                int r = symbol >> 4, s = symbol & 15;
                int advance = s ? r + 1 : (r == 15 ? 16 : 64);
                for (uint32_t j = code << shift; j < (code + 1) << shift; j++) {
                    h->look[j] = (uint16_t) (l << 8 | symbol);
                    h->skip[j] = (uint16_t) ((l + s) << 8 | advance);
                }
            }
        }
        h->maxcode[l] = n ? (int32_t) code - 1 : -1;
        code <<= 1;
    }
    h->maxcode[17] = 0x7FFFFFFF;
    if (!ac)
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

typedef struct {
    const uint8_t *p, *end;
    uint64_t acc;
    int nbits;
    int pad;
    int marker;
} dc_bits;

static inline void dc_refill(dc_bits *b) {
    if (!b->marker && b->end - b->p >= 8) {
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

int jpeg_dc_decode(j_decompress_ptr cinfo, const uint8_t *end, size_t max_bytes,
                   uint8_t **pixels_out, size_t *width_out, size_t *height_out,
                   int *bands_out) {
    int nc = cinfo->num_components;
    if ((nc != 1 && nc != 3) || cinfo->comps_in_scan != nc || cinfo->progressive_mode ||
        cinfo->arith_code || cinfo->data_precision != 8 ||
        cinfo->Ss != 0 || cinfo->Se != 63 || cinfo->Ah != 0 || cinfo->Al != 0)
        return -1;
    if (nc == 3 && cinfo->jpeg_color_space != JCS_YCbCr && cinfo->jpeg_color_space != JCS_RGB)
        return -1;
    size_t W = cinfo->image_width, H = cinfo->image_height;
    /* floor(size / 8), at least 1: libvips's loader drops the last, partial
     * pixel of a shrunk JPEG, and both paths must agree. */
    size_t ow = W / 8 ? W / 8 : 1, oh = H / 8 ? H / 8 : 1;
    if (W == 0 || H == 0 || oh > max_bytes / ((size_t) nc * ow))
        return -1;
    int hmax = nc == 1 ? 1 : cinfo->max_h_samp_factor;
    int vmax = nc == 1 ? 1 : cinfo->max_v_samp_factor;

    /* Per scan component: where its plane goes (component order), sampling,
     * quantiser, tables. */
    int slot[4], hs[4], vs[4], q[4], pw[4], ph[4];
    dc_huff *tables = malloc(sizeof(dc_huff) * 8);
    uint8_t *planes[4] = { NULL, NULL, NULL, NULL };
    uint8_t *pixels = NULL;
    int result = -1;
    if (!tables)
        return -1;
    int built_dc = 0, built_ac = 0; /* bit masks of table numbers built */
    for (int c = 0; c < nc; c++) {
        jpeg_component_info *comp = cinfo->cur_comp_info[c];
        if (!comp || comp->component_index < 0 || comp->component_index >= nc)
            goto done;
        slot[c] = comp->component_index;
        hs[c] = nc == 1 ? 1 : comp->h_samp_factor;
        vs[c] = nc == 1 ? 1 : comp->v_samp_factor;
        if (hs[c] < 1 || vs[c] < 1 || hmax % hs[c] || vmax % vs[c] ||
            hmax / hs[c] > 4 || vmax / vs[c] > 4)
            goto done;
        int qn = comp->quant_tbl_no, dn = comp->dc_tbl_no, an = comp->ac_tbl_no;
        if (qn < 0 || qn >= NUM_QUANT_TBLS || dn < 0 || dn >= 4 || an < 0 || an >= 4 ||
            !cinfo->quant_tbl_ptrs[qn])
            goto done;
        q[c] = cinfo->quant_tbl_ptrs[qn]->quantval[0];
        if (!(built_dc & (1 << dn))) {
            if (build_huff(cinfo->dc_huff_tbl_ptrs[dn], &tables[dn], 0))
                goto done;
            built_dc |= 1 << dn;
        }
        if (!(built_ac & (1 << an))) {
            if (build_huff(cinfo->ac_huff_tbl_ptrs[an], &tables[4 + an], 1))
                goto done;
            built_ac |= 1 << an;
        }
    }
    size_t mcux = nc == 1 ? (W + 7) / 8 : (W + 8 * (size_t) hmax - 1) / (8 * (size_t) hmax);
    size_t mcuy = nc == 1 ? (H + 7) / 8 : (H + 8 * (size_t) vmax - 1) / (8 * (size_t) vmax);
    /* The planes hold one byte per block; with the image they must fit the
     * same budget. */
    size_t plane_bytes = 0;
    for (int c = 0; c < nc; c++)
        plane_bytes += mcux * (size_t) hs[c] * mcuy * (size_t) vs[c];
    if (plane_bytes > max_bytes)
        goto done;
    for (int c = 0; c < nc; c++) {
        pw[c] = (int) (mcux * (size_t) hs[c]);
        ph[c] = (int) (mcuy * (size_t) vs[c]);
        planes[c] = malloc((size_t) pw[c] * (size_t) ph[c]);
        if (!planes[c])
            goto done;
    }

    dc_bits b = { cinfo->src->next_input_byte, end, 0, 0, 0, 0 };
    int32_t pred[4] = { 0, 0, 0, 0 };
    unsigned int restart = cinfo->restart_interval, left = restart, next_rst = 0;
    for (size_t my = 0; my < mcuy; my++) {
        for (size_t mx = 0; mx < mcux; mx++) {
            if (restart) {
                if (left == 0) {
                    /* Only byte-alignment padding may precede RSTn. */
                    dc_refill(&b);
                    if (!b.marker || b.nbits - b.pad >= 8)
                        goto done;
                    const uint8_t *p = b.p;
                    while (p < end && *p == 0xFF)
                        p++;
                    if (p >= end || *p != 0xD0 + next_rst)
                        goto done;
                    b.p = p + 1;
                    b.acc = 0;
                    b.nbits = b.pad = b.marker = 0;
                    pred[0] = pred[1] = pred[2] = pred[3] = 0;
                    next_rst = (next_rst + 1) & 7;
                    left = restart;
                }
                left--;
            }
            for (int c = 0; c < nc; c++) {
                const dc_huff *dh = &tables[cinfo->cur_comp_info[c]->dc_tbl_no];
                const dc_huff *ah = &tables[4 + cinfo->cur_comp_info[c]->ac_tbl_no];
                uint8_t *plane = planes[c];
                for (int by = 0; by < vs[c]; by++) {
                    uint8_t *row = plane + (my * (size_t) vs[c] + (size_t) by) * (size_t) pw[c] + mx * (size_t) hs[c];
                    for (int bx = 0; bx < hs[c]; bx++) {
                        int len, s;
                        if (b.nbits < 32)
                            dc_refill(&b);
                        uint16_t e = dh->look[b.acc >> (64 - LOOK)];
                        if (e) {
                            len = e >> 8;
                            s = e & 0xFF;
                        } else if ((s = dc_slow(dh, b.acc, &len)) < 0) {
                            goto done;
                        }
                        dc_drop(&b, len);
                        s &= 15;
                        if (s) {
                            if (b.nbits < 32)
                                dc_refill(&b);
                            int32_t v = (int32_t) (b.acc >> (64 - s));
                            dc_drop(&b, s);
                            if (v < (1 << (s - 1)))
                                v += (int32_t) (~0u << s) + 1;
                            pred[c] = (int32_t) ((uint32_t) pred[c] + (uint32_t) v);
                        }
                        /* Skip the 63 AC coefficients. */
                        int k = 1;
                        while (k < 64) {
                            if (b.nbits < 32)
                                dc_refill(&b);
                            uint32_t m = ah->multi[b.acc >> (64 - MLOOK)];
                            if (m && k + (int) ((m >> 8) & 0xFF) < 64) {
                                dc_drop(&b, (int) (m >> 16));
                                k += (int) (m & 0xFF);
                                continue;
                            }
                            uint16_t x = ah->skip[b.acc >> (64 - LOOK)];
                            if (x) {
                                dc_drop(&b, x >> 8);
                                k += x & 0xFF;
                            } else {
                                int symbol = dc_slow(ah, b.acc, &len);
                                if (symbol < 0)
                                    goto done;
                                int r = symbol >> 4, size = symbol & 15;
                                dc_drop(&b, len + size);
                                k += size ? r + 1 : (r == 15 ? 16 : 64);
                            }
                        }
                        /* libjpeg's 1x1 IDCT: dequantise, descale by 8, level shift. */
                        int64_t dc = (int64_t) (int16_t) pred[c] * q[c];
                        row[bx] = clamp255((int) (((dc + 4) >> 3) + 128));
                    }
                }
            }
            /* Bits taken from past the end of the data: truncated. */
            if (b.nbits < b.pad)
                goto done;
        }
    }

    pixels = malloc(ow * oh * (size_t) nc);
    if (!pixels)
        goto done;
    if (nc == 1) {
        for (size_t y = 0; y < oh; y++)
            memcpy(pixels + y * ow, planes[0] + y * (size_t) pw[0], ow);
    } else {
        /* Planes by component (Y, Cb, Cr or R, G, B), upsampled to ow x oh. */
        const uint8_t *plane[3];
        int rx[3], ry[3], cw[3], chh[3], stride[3];
        for (int c = 0; c < 3; c++) {
            int i = slot[c];
            plane[i] = planes[c];
            stride[i] = pw[c];
            rx[i] = hmax / hs[c];
            ry[i] = vmax / vs[c];
            /* Blocks holding real pixels (the rest is MCU padding). */
            cw[i] = (int) (((W * (size_t) hs[c] + (size_t) hmax - 1) / (size_t) hmax + 7) / 8);
            chh[i] = (int) (((H * (size_t) vs[c] + (size_t) vmax - 1) / (size_t) vmax + 7) / 8);
        }
        int *tx = malloc(sizeof(int) * 9 * ow);
        if (!tx)
            goto done;
        int *x0[3], *x1[3], *wx[3];
        for (int i = 0; i < 3; i++) {
            x0[i] = tx + (3 * i) * ow;
            x1[i] = tx + (3 * i + 1) * ow;
            wx[i] = tx + (3 * i + 2) * ow;
            for (size_t x = 0; x < ow; x++)
                tap((int) x, rx[i], cw[i], &x0[i][x], &x1[i][x], &wx[i][x]);
        }
        int ycc = cinfo->jpeg_color_space == JCS_YCbCr;
        uint8_t *line[3];
        uint8_t *scratch = malloc(3 * ow);
        if (!scratch) {
            free(tx);
            goto done;
        }
        for (size_t y = 0; y < oh; y++) {
            for (int i = 0; i < 3; i++) {
                line[i] = scratch + (size_t) i * ow;
                int y0, y1, wy;
                tap((int) y, ry[i], chh[i], &y0, &y1, &wy);
                const uint8_t *r0 = plane[i] + (size_t) y0 * (size_t) stride[i];
                const uint8_t *r1 = plane[i] + (size_t) y1 * (size_t) stride[i];
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
            uint8_t *out = pixels + y * ow * 3;
            for (size_t x = 0; x < ow; x++) {
                int Y = line[0][x], cb = line[1][x] - 128, cr = line[2][x] - 128;
                if (ycc) {
                    out[3 * x] = clamp255(Y + ((91881 * cr + 32768) >> 16));
                    out[3 * x + 1] = clamp255(Y + ((-22554 * cb - 46802 * cr + 32768) >> 16));
                    out[3 * x + 2] = clamp255(Y + ((116130 * cb + 32768) >> 16));
                } else {
                    out[3 * x] = (uint8_t) Y;
                    out[3 * x + 1] = (uint8_t) (cb + 128);
                    out[3 * x + 2] = (uint8_t) (cr + 128);
                }
            }
        }
        free(scratch);
        free(tx);
    }
    *pixels_out = pixels;
    pixels = NULL;
    *width_out = ow;
    *height_out = oh;
    *bands_out = nc;
    result = 0;
done:
    free(pixels);
    for (int c = 0; c < 4; c++)
        free(planes[c]);
    free(tables);
    return result;
}
