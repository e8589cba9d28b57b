/* The placeholders' box reduction (SignatureMaker.boxReduced): per output
 * pixel, the sums of the source pixels whose column x * w / W and row
 * y * h / H land on it. In Swift this loop cost 5 ns a pixel (bounds checks
 * and a column lookup per pixel), 4% of an item that a camera preview
 * serves; here it is a plain run per output column.
 *
 * sums: w * h * 5 values per output pixel: alpha-weighted R, G, B, the
 * alpha sum, the pixel count. An opaque source (1 or 3 bands) counts every
 * alpha as 255. Grey sources give R = G = B.
 */
#include "CVipsShim.h"

#include <stdlib.h>
#include <string.h>

int shim_box_sums(const uint8_t *src, int W, int H, int bands, int w, int h, int64_t *sums) {
    if (!src || !sums || bands < 1 || bands > 4 || w < 1 || h < 1 || W < w || H < h)
        return -1;
    /* end[c]: the first source column past output column c, the least x
     * with x * w / W >= c + 1, that is ceil((c + 1) * W / w). */
    int *end = malloc(sizeof(int) * (size_t) w);
    if (!end)
        return -1;
    for (int c = 0; c < w; c++) {
        int64_t e = ((int64_t) (c + 1) * W + w - 1) / w;
        end[c] = (int) (e < W ? e : W);
    }
    memset(sums, 0, sizeof(int64_t) * (size_t) w * (size_t) h * 5);
    const int alpha = bands == 2 || bands == 4, grey = bands < 3;
    for (int y = 0; y < H; y++) {
        int64_t *row = sums + (int64_t) (y * (int64_t) h / H) * w * 5;
        const uint8_t *p = src + (size_t) y * (size_t) W * (size_t) bands;
        int x = 0;
        for (int c = 0; c < w; c++) {
            int64_t r = 0, g = 0, b = 0, a = 0;
            int n = end[c] - x;
            if (!alpha) {
                if (grey) {
                    for (; x < end[c]; x++, p += bands) r += p[0];
                    g = b = r;
                } else {
                    for (; x < end[c]; x++, p += 3) {
                        r += p[0];
                        g += p[1];
                        b += p[2];
                    }
                }
                r *= 255, g *= 255, b *= 255;
                a = 255 * (int64_t) n;
            } else {
                for (; x < end[c]; x++, p += bands) {
                    int64_t pa = p[bands - 1];
                    int64_t pr = p[0], pg = grey ? pr : p[1], pb = grey ? pr : p[2];
                    r += pr * pa;
                    g += pg * pa;
                    b += pb * pa;
                    a += pa;
                }
            }
            int64_t *o = row + (int64_t) c * 5;
            o[0] += r;
            o[1] += g;
            o[2] += b;
            o[3] += a;
            o[4] += n;
        }
    }
    free(end);
    return 0;
}
