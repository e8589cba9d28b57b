/* Internal to CVipsShim: what the two JPEG decoders of untrusted bytes share
 * (jpeg_scan.c): the frame's geometry and its checks, the marker stream
 * between scans (DHT, DQT, DRI, SOS), each scan's progression checks,
 * Huffman tables, and the bit reader over entropy-coded data. jpeg_dc.c
 * (DC only, at 1/8) and jpeg_prog.c (progressive at 1/1, 1/2, 1/4) build on
 * it; both refuse (return -1 for) anything libjpeg would warn about or
 * reject, so the checks here are libjpeg's.
 *
 * Every read of the file is bounds-checked against the end of the buffer
 * the caller gave, in the form `offset + length > size`.
 */
#ifndef JPEG_SCAN_H
#define JPEG_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <jpeglib.h>

/* The entropy decoders' hot loops, compiled twice and picked at load time
 * (as resample.c's passes): for the x86-64-v3 level (AVX2 with BMI2, whose
 * flag-free variable shifts shorten the bit reader's every step, and LZCNT)
 * and for the baseline x86-64 the build otherwise assumes. Integer code
 * only, so both give the same bits (fuzz/identity.sh checks each); on an
 * AVX-512 Xeon, fuzz/jpegtime.c measured 4% less CPU per 1/8 decode and 6%
 * per 1/4 decode. */
#if defined(JS_HOT)
/* Set by the build (fuzz/identity.sh: -DJS_HOT= checks the baseline code). */
#elif defined(__x86_64__) && defined(__clang__) && defined(__ELF__)
#define JS_HOT __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define JS_HOT
#endif

/* Huffman lookahead: JS_LOOK bits index the one-symbol tables. */
#define JS_LOOK 9
/* Huffman codes are 1...16 bits long; a table holds at most 256 symbols. */
#define JS_MAX_CODE_LENGTH 16
#define JS_MAX_SYMBOLS 256
/* A DC symbol is the size (category) of the difference that follows: 0...15. */
#define JS_MAX_DC_CATEGORY 15
/* The bit reader refills below this many bits: the most one symbol and its
 * extra bits take (a 16-bit code and 15 magnitude bits), plus one. */
#define JS_SYMBOL_BITS 32

/* libjpeg's limits: blocks in an interleaved MCU (D_MAX_BLOCKS_IN_MCU),
 * components in a scan (MAX_COMPS_IN_SCAN), the largest successive-
 * approximation shift it accepts (jdphuff.c), quantisation and Huffman
 * table numbers. */
#define JS_MAX_BLOCKS_IN_MCU D_MAX_BLOCKS_IN_MCU
#define JS_MAX_SCAN_COMPONENTS MAX_COMPS_IN_SCAN
#define JS_MAX_POINT_TRANSFORM 13
#define JS_TABLES 4
/* Components the decoders take: 1 (grey) or 3 (YCbCr, RGB). */
#define JS_MAX_COMPONENTS 3
/* Restart markers count RST0...RST7, then start again. */
#define JS_RESTART_MARKERS 8

/* Markers: each is 0xFF then its code; 0xFF 0x00 in entropy-coded data is
 * a stuffed 0xFF byte, not a marker. */
#define JS_MARKER_PREFIX 0xFF
#define JS_STUFFED_ZERO 0x00
#define JS_M_DHT 0xC4
#define JS_M_RST0 0xD0
#define JS_M_RST7 0xD7
#define JS_M_EOI 0xD9
#define JS_M_SOS 0xDA
#define JS_M_DQT 0xDB
#define JS_M_DRI 0xDD
#define JS_M_APP0 0xE0
#define JS_M_APP15 0xEF
#define JS_M_COM 0xFE

/* Zigzag position -> natural (row-major) position. */
extern const uint8_t js_natural_order[DCTSIZE2];

/* ---------------------------------------------------------------------------
 * The frame
 */

/* One component's geometry and progression. */
typedef struct {
    int h, v;              /* sampling factors (1 for grey) */
    size_t pw, ph;         /* block grid: the MCU-padded extent */
    size_t bw, bh;         /* blocks holding real pixels (a non-interleaved scan's extent) */
    int quant_table;       /* the quantisation table number from SOF */
    int8_t bits[DCTSIZE2]; /* Al of the last scan of each coefficient (zigzag),
                              -1 before any (libjpeg's coef_bits) */
} js_component;

typedef struct {
    int progressive;          /* SOF2 (DC and AC in separate scans), else sequential */
    int nc;                   /* components: 1 or 3 */
    int ycc;                  /* 3 components are YCbCr (else RGB) */
    size_t width, height;     /* image size in pixels */
    int hmax, vmax;           /* largest sampling factors (1 for grey) */
    size_t mcux, mcuy;        /* MCUs of an interleaved scan */
    js_component comp[JS_MAX_COMPONENTS];
} js_frame;

/* The frame from libjpeg's header (jpeg_read_header has run), checked as
 * both decoders need it: 8-bit Huffman, grey or YCbCr/RGB, a nonzero size,
 * distinct component ids, sampling factors that divide the largest, valid
 * quantisation table numbers. Returns 0 or -1. */
int js_frame_init(js_frame *f, j_decompress_ptr cinfo);

/* ---------------------------------------------------------------------------
 * Tables and the marker stream between scans
 */

/* A Huffman table as a DHT segment defines it. */
typedef struct {
    int defined;
    uint8_t bits[JS_MAX_CODE_LENGTH + 1]; /* bits[l]: number of codes of length l (1...16) */
    uint8_t values[JS_MAX_SYMBOLS];       /* symbols in code order */
} js_raw_huff;

/* The tables as last defined, and where the file ends. */
typedef struct {
    const uint8_t *end;
    js_raw_huff dc[JS_TABLES], ac[JS_TABLES];
    uint16_t quant[JS_TABLES][DCTSIZE2]; /* natural (row-major) order */
    int quant_defined[JS_TABLES];
    unsigned restart_interval;           /* MCUs between restart markers (DRI), 0 for none */
} js_stream;

/* One scan's header. */
typedef struct {
    int n;                            /* components in the scan */
    int comp[JS_MAX_SCAN_COMPONENTS]; /* their indices (SOF order), each at most once */
    int dc_table[JS_MAX_SCAN_COMPONENTS], ac_table[JS_MAX_SCAN_COMPONENTS]; /* 0...15, checked by the user */
    int Ss, Se;                       /* spectral selection: first and last coefficient */
    int Ah, Al;                       /* successive approximation: previous and this
                                         scan's point transform (0 and 0 when sequential) */
    const uint8_t *data;              /* first byte of the entropy-coded data */
} js_scan;

/* The tables defined before the first SOS (from libjpeg's header); `end`
 * is the end of the file in memory. */
void js_stream_init(js_stream *s, j_decompress_ptr cinfo, const uint8_t *end);

/* The first scan, which jpeg_read_header has read. Returns 0 or -1. */
int js_first_scan(const js_stream *s, j_decompress_ptr cinfo, int nc, js_scan *scan);

/* Reads markers from `pos` (which must be a marker: fill bytes 0xFF allowed,
 * nothing else) up to the next SOS or EOI, updating the tables. Returns 1
 * with `scan` filled for an SOS, 0 at EOI, -1 for anything libjpeg would
 * warn about or reject (and, to be safe, for markers real files do not put
 * between scans: RSTn, DNL, DAC, a second SOF). */
int js_read_markers(js_stream *s, j_decompress_ptr cinfo, int nc, const uint8_t *pos, js_scan *scan);

/* Whether an interleaved scan's MCU has at most 10 blocks (libjpeg's
 * limit). */
int js_mcu_fits(const js_frame *f, const js_scan *scan);

/* A progressive scan checked against jdphuff.c's rules and the progression
 * so far (f->comp[].bits, which it updates). Returns 1 for a DC scan, 0 for
 * an AC scan, -1 for a scan libjpeg rejects or warns about. */
int js_progression(js_frame *f, const js_scan *scan);

/* ---------------------------------------------------------------------------
 * Huffman tables
 */

/* A table made ready for decoding. */
typedef struct {
    /* JS_LOOK bits: (length << 8 | symbol), 0 when the code is longer. */
    uint16_t look[1 << JS_LOOK];
    /* Canonical decoding for codes longer than JS_LOOK bits, by length
     * 1...16: the largest code of that length (-1 for none), and what to add
     * to a code to index `values`. */
    int32_t maxcode[JS_MAX_CODE_LENGTH + 1];
    int32_t valoffset[JS_MAX_CODE_LENGTH + 1];
    uint8_t values[JS_MAX_SYMBOLS];
} js_huff;

/* Validates `table` as libjpeg's jpeg_make_d_derived_tbl does (at most 256
 * codes, no over-subscription, no all-ones code, DC symbols 0...15 when
 * `dc`), refusing an empty table too, and fills `h` when it is not NULL.
 * Returns 0 or -1. */
int js_build_huff(const js_raw_huff *table, js_huff *h, int dc);

/* ---------------------------------------------------------------------------
 * Bit reader over entropy-coded data (0xFF 0x00 unstuffed; a marker stops it
 * and zero bits are appended, counted in `pad`)
 */

typedef struct {
    const uint8_t *p, *end; /* next byte to load; end of the file (p <= end) */
    uint64_t acc;           /* bits, most significant first */
    int nbits;              /* valid bits in acc */
    int pad;                /* zero bits appended after a marker or the end */
    int marker;             /* p stopped at a marker (0xFF, non-zero byte) */
} js_bits;

/* Fills acc to at least 56 valid bits (a whole number of bytes that still
 * fits in 64 with the ones already there). */
static inline void js_refill(js_bits *b) {
    if (!b->marker && (size_t) (b->end - b->p) >= 8) {
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
            if (c == JS_MARKER_PREFIX) {
                if (b->end - b->p >= 2 && b->p[1] == JS_STUFFED_ZERO) {
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

static inline void js_drop(js_bits *b, int n) {
    b->acc <<= n;
    b->nbits -= n;
}

/* `n` (0...16) raw bits. */
static inline uint32_t js_get_bits(js_bits *b, int n) {
    if (!n)
        return 0;
    if (b->nbits < JS_SYMBOL_BITS)
        js_refill(b);
    uint32_t v = (uint32_t) (b->acc >> (64 - n));
    js_drop(b, n);
    return v;
}

static inline int js_get_bit(js_bits *b) {
    if (b->nbits < 1)
        js_refill(b);
    int v = (int) (b->acc >> 63);
    js_drop(b, 1);
    return v;
}

/* `n` (0...15) magnitude bits, sign-extended (F.2.2.1). */
static inline __attribute__((always_inline)) int32_t js_extend(js_bits *b, int n) {
    if (!n)
        return 0;
    int32_t v = (int32_t) js_get_bits(b, n);
    if (v < (1 << (n - 1)))
        v += (int32_t) (~0u << n) + 1;
    return v;
}

/* Slow decode of one symbol whose code is longer than JS_LOOK bits, from
 * the next bits in `acc`. Returns the symbol and sets *length, or -1 for a
 * bad code. */
static inline int js_slow(const js_huff *h, uint64_t acc, int *length) {
    for (int l = JS_LOOK + 1; l <= JS_MAX_CODE_LENGTH; l++) {
        int32_t code = (int32_t) (acc >> (64 - l));
        if (code <= h->maxcode[l]) {
            int index = code + h->valoffset[l];
            if (index < 0 || index >= JS_MAX_SYMBOLS)
                return -1;
            *length = l;
            return h->values[index];
        }
    }
    return -1;
}

/* The next Huffman symbol, or -1 for a bad code. */
static inline __attribute__((always_inline)) int js_symbol(js_bits *b, const js_huff *h) {
    if (b->nbits < JS_SYMBOL_BITS)
        js_refill(b);
    uint16_t e = h->look[b->acc >> (64 - JS_LOOK)];
    int len, symbol;
    if (e) {
        len = e >> 8;
        symbol = e & 0xFF;
    } else if ((symbol = js_slow(h, b->acc, &len)) < 0) {
        return -1;
    }
    js_drop(b, len);
    return symbol;
}

/* Whether bits were taken from past the end of the data: truncated. */
static inline int js_overrun(const js_bits *b) {
    return b->nbits < b->pad;
}

/* Whether more than the padding of the last byte is left unread at the end
 * of a scan's data. */
static inline int js_leftover(const js_bits *b) {
    return b->nbits - b->pad >= 8;
}

/* At a restart boundary: only byte-alignment padding may precede the
 * expected RSTn. Resets the reader after it. Returns 0 or -1. */
int js_read_restart(js_bits *b, int expected);

/* Before each MCU of a scan with restart intervals (`interval` MCUs each,
 * 0 for none): at an interval's end, reads the expected RSTn and starts the
 * next interval. `left` and `next_rst` carry the count between calls.
 * Returns 1 when an interval began after a marker (DC predictions and EOB
 * runs start again), 0 otherwise, -1 for a missing or misnumbered marker. */
static inline int js_restart(js_bits *b, unsigned interval, unsigned *left, int *next_rst) {
    if (!interval)
        return 0;
    int began = 0;
    if (*left == 0) {
        if (js_read_restart(b, *next_rst))
            return -1;
        *next_rst = (*next_rst + 1) % JS_RESTART_MARKERS;
        *left = interval;
        began = 1;
    }
    (*left)--;
    return began;
}

/* js_restart for a DC scan: the predictions `pred` start again from 0 with
 * each interval. Returns 0 or -1. */
static inline int js_restart_dc(js_bits *b, unsigned interval, unsigned *left, int *next_rst,
                                int32_t pred[JS_MAX_SCAN_COMPONENTS]) {
    int began = js_restart(b, interval, left, next_rst);
    if (began > 0)
        memset(pred, 0, sizeof(int32_t) * JS_MAX_SCAN_COMPONENTS);
    return began < 0 ? -1 : 0;
}

/* ---------------------------------------------------------------------------
 * Colour
 */

/* libjpeg's YCbCr -> RGB conversion (jdcolor.c), 16-bit fixed point:
 * FIX(x) = round(x * 65536); a row at a time, a branch-free loop the
 * compiler vectorises. Without `ycc` (RGB files) the rows are interleaved
 * as they are. */
void js_rows_to_rgb(int ycc, const uint8_t *restrict y, const uint8_t *restrict cb,
                    const uint8_t *restrict cr, size_t count, uint8_t *restrict rgb);

#endif
