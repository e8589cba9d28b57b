/* The placeholders' box reduction (SignatureMaker.boxReduced): each output
 * pixel the rounded mean of the source pixels whose column x * w / W and
 * row y * h / H land on it, its colour weighted by alpha where there is
 * alpha. In Swift this loop cost 5 ns a pixel (bounds checks and a column
 * lookup per pixel), 4% of an item that a camera preview serves.
 *
 * Here the source rows of one output row are taken together, and the output
 * row is rounded into `out` as soon as its last source row is in: the sums
 * of one output row are all it holds (5 x w values), where the whole
 * reduction's sums took 300 KB for a 100 x 75 output.
 * - Opaque sources (1 or 3 bands, nearly every photo): the source rows are
 *   first added column by column (a loop over whole rows that vectorises;
 *   32 bits hold 255 x 2^24 rows), then each output column's run of those
 *   column sums is taken once per output row, not once per source row: the
 *   runs, 2 or 3 columns of a 256 px thumbnail, cost a mispredicted branch
 *   each. Every alpha counts as 255.
 * - With alpha (2 or 4 bands): each source row's runs of alpha-weighted
 *   colour, alpha and count.
 * Grey sources give R = G = B.
 */
#include "CVipsShim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Per output pixel of the row being summed: alpha-weighted R, G, B, the
 * alpha sum, the pixel count. */
#define SUMS 5

/* Rounds half up: floor((2 sum + weight) / (2 weight)), the whole-number
 * rounding of sum / weight, from a double quotient, which is exact here: a
 * quotient of whole numbers below 2^53 that is not whole lies at least
 * 1 / (2 weight) below the next whole number, far more than a double's
 * error near 255 (2^-45) while 2 weight stays below 2^44; and a double
 * division costs a quarter of an int64 one. */
static uint8_t rounded_mean(int64_t sum, int64_t weight) {
    if (weight <= 0)
        return 0;
    double q = floor((double) (2 * sum + weight) / (double) (2 * weight));
    return (uint8_t) (q < 255 ? q : 255);
}

/* The output row from its sums: RGB, or RGBA with alpha. */
static void round_row(const int64_t *sums, int w, int alpha, uint8_t *out) {
    const int step = alpha ? 4 : 3;
    for (int c = 0; c < w; c++, sums += SUMS, out += step) {
        int64_t a = sums[3];
        out[0] = rounded_mean(sums[0], a);
        out[1] = rounded_mean(sums[1], a);
        out[2] = rounded_mean(sums[2], a);
        if (alpha)
            out[3] = rounded_mean(a, sums[4] > 0 ? sums[4] : 1);
    }
}

/* An opaque source's output row from `acc`, the column sums (per band) of
 * its `rows` source rows: each output column's run of them. */
static void sum_opaque_row(const uint32_t *acc, int bands, const int *end, int w, int64_t rows, int64_t *sums) {
    int x = 0;
    for (int c = 0; c < w; c++, sums += SUMS) {
        int64_t r = 0, g = 0, b = 0;
        int n = end[c] - x;
        if (bands == 1) {
            for (; x < end[c]; x++) r += acc[x];
            g = b = r;
        } else {
            for (; x < end[c]; x++) {
                r += acc[3 * x];
                g += acc[3 * x + 1];
                b += acc[3 * x + 2];
            }
        }
        sums[0] = 255 * r;
        sums[1] = 255 * g;
        sums[2] = 255 * b;
        sums[3] = 255 * (int64_t) n * rows;
        sums[4] = (int64_t) n * rows;
    }
}

/* One source row of an image with alpha added into its output row's sums. */
static void add_alpha_row(const uint8_t *p, int bands, const int *end, int w, int64_t *sums) {
    const int grey = bands < 3;
    int x = 0;
    for (int c = 0; c < w; c++, sums += SUMS) {
        int64_t r = 0, g = 0, b = 0, a = 0;
        int n = end[c] - x;
        for (; x < end[c]; x++, p += bands) {
            int64_t pa = p[bands - 1];
            int64_t pr = p[0], pg = grey ? pr : p[1], pb = grey ? pr : p[2];
            r += pr * pa;
            g += pg * pa;
            b += pb * pa;
            a += pa;
        }
        sums[0] += r;
        sums[1] += g;
        sums[2] += b;
        sums[3] += a;
        sums[4] += n;
    }
}

int shim_box_reduce(const uint8_t *src, int W, int H, int bands, int w, int h, uint8_t *out) {
    if (!src || !out || bands < 1 || bands > 4 || w < 1 || h < 1 || W < w || H < h || H > (1 << 24))
        return -1;
    const int alpha = bands == 2 || bands == 4;
    const size_t span = (size_t) W * (size_t) bands, step = alpha ? 4 : 3;
    /* end[c]: the first source column past output column c, the least x
     * with x * w / W >= c + 1, that is ceil((c + 1) * W / w). */
    int *end = malloc(sizeof(int) * (size_t) w);
    int64_t *sums = calloc((size_t) w * SUMS, sizeof *sums);
    uint32_t *acc = alpha ? NULL : calloc(span, sizeof *acc);
    if (!end || !sums || (!alpha && !acc)) {
        free(end);
        free(sums);
        free(acc);
        return -1;
    }
    for (int c = 0; c < w; c++) {
        int64_t e = ((int64_t) (c + 1) * W + w - 1) / w;
        end[c] = (int) (e < W ? e : W);
    }
    /* Output rows in order: source row y lands on y * h / H, which never
     * decreases, and with H >= h every output row gets at least one. */
    int current = 0;
    int64_t rows = 0;
    for (int y = 0; y <= H; y++) {
        int oy = y < H ? (int) ((int64_t) y * h / H) : h;
        if (oy != current) {
            if (!alpha) {
                sum_opaque_row(acc, bands, end, w, rows, sums);
                memset(acc, 0, span * sizeof *acc);
            }
            round_row(sums, w, alpha, out + (size_t) current * (size_t) w * step);
            memset(sums, 0, (size_t) w * SUMS * sizeof *sums);
            current = oy;
            rows = 0;
        }
        if (y == H)
            break;
        const uint8_t *p = src + (size_t) y * span;
        if (alpha) {
            add_alpha_row(p, bands, end, w, sums);
        } else {
            for (size_t i = 0; i < span; i++)
                acc[i] += p[i];
        }
        rows++;
    }
    free(end);
    free(sums);
    free(acc);
    return 0;
}
