/* How two thumbnails differ to the eye: SSIM on luma and CIEDE2000 colour
 * difference (see CVipsCompare.h). The formulas follow scikit-image's
 * structural_similarity and deltaE_ciede2000 step by step, so that its
 * values are an independent reference for ours (Tests/Fixtures/compare). */
#include "CVipsCompare.h"
#include "CVipsShim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <vips/vips.h>

int shim_decode_srgb8(const void *buf, size_t len, shim_srgb8 *out) {
    memset(out, 0, sizeof *out);
    VipsImage *image = vips_image_new_from_buffer(buf, len, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (!image && shim_modules_load()) /* an AVIF thumbnail: vips-heif's */
        image = vips_image_new_from_buffer(buf, len, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (!image)
        return -1;
    VipsImage *next = NULL;
    /* A profile says what the numbers mean: apply it. Without one (thumbs
     * strips it from sRGB outputs), libvips' interpretation decides. */
    if (vips_image_get_typeof(image, VIPS_META_ICC_NAME) &&
        vips_icc_transform(image, &next, "srgb", "embedded", TRUE, "intent", VIPS_INTENT_RELATIVE, NULL) == 0) {
        g_object_unref(image);
        image = next;
    } else {
        vips_error_clear();
    }
    if (vips_colourspace(image, &next, VIPS_INTERPRETATION_sRGB, NULL)) {
        g_object_unref(image);
        return -1;
    }
    g_object_unref(image);
    image = next;
    if (vips_image_hasalpha(image)) {
        VipsArrayDouble *white = vips_array_double_newv(1, 255.0);
        int failed = vips_flatten(image, &next, "background", white, NULL);
        vips_area_unref(VIPS_AREA(white));
        g_object_unref(image);
        if (failed)
            return -1;
        image = next;
    }
    if (vips_cast_uchar(image, &next, NULL)) {
        g_object_unref(image);
        return -1;
    }
    g_object_unref(image);
    image = next;
    if (image->Bands > 3) {
        if (vips_extract_band(image, &next, 0, "n", 3, NULL)) {
            g_object_unref(image);
            return -1;
        }
        g_object_unref(image);
        image = next;
    }
    if (image->Bands != 3) {
        vips_error("thumbs", "decoded to %d bands, not 3", image->Bands);
        g_object_unref(image);
        return -1;
    }
    size_t size = 0;
    void *pixels = vips_image_write_to_memory(image, &size);
    int width = vips_image_get_width(image), height = vips_image_get_height(image);
    g_object_unref(image);
    if (!pixels)
        return -1;
    if (size != (size_t)width * height * 3) {
        g_free(pixels);
        vips_error("thumbs", "decoded %zu bytes for %d x %d", size, width, height);
        return -1;
    }
    out->pixels = pixels;
    out->width = width;
    out->height = height;
    return 0;
}

void shim_srgb8_free(shim_srgb8 *image) {
    g_free(image->pixels);
    image->pixels = NULL;
}

/* MARK: SSIM */

enum { SSIM_RADIUS = 5, SSIM_WINDOW = 2 * SSIM_RADIUS + 1 };

static double luma(const uint8_t *p) { return 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2]; }

static double ssim_of(double mx, double my, double vx, double vy, double cxy) {
    const double c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255);
    return ((2 * mx * my + c1) * (2 * cxy + c2)) / ((mx * mx + my * my + c1) * (vx + vy + c2));
}

/* One window over the whole image, equal weights: for images too small
 * for the 11 x 11 window. */
static double ssim_global(const double *x, const double *y, size_t n) {
    double mx = 0, my = 0;
    for (size_t i = 0; i < n; i++) { mx += x[i]; my += y[i]; }
    mx /= n; my /= n;
    double vx = 0, vy = 0, cxy = 0;
    for (size_t i = 0; i < n; i++) {
        vx += (x[i] - mx) * (x[i] - mx);
        vy += (y[i] - my) * (y[i] - my);
        cxy += (x[i] - mx) * (y[i] - my);
    }
    return ssim_of(mx, my, vx / n, vy / n, cxy / n);
}

/* Gaussian-weighted local means of x, y, x², y², xy (scipy's
 * gaussian_filter, sigma 1.5, truncate 3.5: radius 5), then the mean SSIM
 * over the pixels whose window lies inside the image: skimage crops the
 * border of 5 where the filter would reflect. */
static int ssim_luma(const double *x, const double *y, int w, int h, double *result) {
    if (w < SSIM_WINDOW || h < SSIM_WINDOW) {
        *result = ssim_global(x, y, (size_t)w * h);
        return 0;
    }
    double kernel[SSIM_WINDOW], sum = 0;
    for (int i = 0; i < SSIM_WINDOW; i++) {
        double d = i - SSIM_RADIUS;
        kernel[i] = exp(-0.5 / (1.5 * 1.5) * d * d);
        sum += kernel[i];
    }
    for (int i = 0; i < SSIM_WINDOW; i++)
        kernel[i] /= sum;
    int ow = w - 2 * SSIM_RADIUS;
    /* Horizontal pass: 5 planes of ow x h. */
    double *rows = malloc(sizeof(double) * 5 * (size_t)ow * h);
    if (!rows)
        return -1;
    size_t plane = (size_t)ow * h;
    for (int r = 0; r < h; r++) {
        const double *xr = x + (size_t)r * w, *yr = y + (size_t)r * w;
        for (int c = 0; c < ow; c++) {
            double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
            for (int k = 0; k < SSIM_WINDOW; k++) {
                double a = xr[c + k], b = yr[c + k], g = kernel[k];
                sx += g * a; sy += g * b;
                sxx += g * a * a; syy += g * b * b; sxy += g * a * b;
            }
            size_t i = (size_t)r * ow + c;
            rows[i] = sx; rows[plane + i] = sy;
            rows[2 * plane + i] = sxx; rows[3 * plane + i] = syy; rows[4 * plane + i] = sxy;
        }
    }
    /* Vertical pass and the SSIM of each window. */
    double total = 0;
    int oh = h - 2 * SSIM_RADIUS;
    for (int r = 0; r < oh; r++) {
        for (int c = 0; c < ow; c++) {
            double m[5] = {0, 0, 0, 0, 0};
            for (int k = 0; k < SSIM_WINDOW; k++) {
                size_t i = (size_t)(r + k) * ow + c;
                for (int q = 0; q < 5; q++)
                    m[q] += kernel[k] * rows[q * plane + i];
            }
            total += ssim_of(m[0], m[1], m[2] - m[0] * m[0], m[3] - m[1] * m[1], m[4] - m[0] * m[1]);
        }
    }
    free(rows);
    *result = total / ((double)ow * oh);
    return 0;
}

/* MARK: CIEDE2000 */

typedef struct { double L, a, b; } lab_t;

static double srgb_to_linear(double c) {
    return c > 0.04045 ? pow((c + 0.055) / 1.055, 2.4) : c / 12.92;
}

static double lab_f(double t) { return t > 0.008856 ? cbrt(t) : 7.787 * t + 16.0 / 116.0; }

/* skimage.color.rgb2lab: sRGB -> linear -> XYZ (its matrix) -> Lab, D65 white
 * (0.95047, 1, 1.08883), illuminant "2°" observer. */
static lab_t lab_of(const uint8_t *p, const double *linear) {
    double r = linear[p[0]], g = linear[p[1]], b = linear[p[2]];
    double X = 0.412453 * r + 0.357580 * g + 0.180423 * b;
    double Y = 0.212671 * r + 0.715160 * g + 0.072169 * b;
    double Z = 0.019334 * r + 0.119193 * g + 0.950227 * b;
    double fx = lab_f(X / 0.95047), fy = lab_f(Y / 1.0), fz = lab_f(Z / 1.08883);
    return (lab_t){116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)};
}

static double pow7(double x) {
    double x2 = x * x;
    return x2 * x2 * x2 * x;
}

static double hue_2pi(double a, double b) {
    double t = atan2(b, a);
    return t < 0 ? t + 2 * M_PI : t;
}

/* skimage.color.deltaE_ciede2000 with kL = kC = kH = 1 (Sharma, Wu and
 * Dalal 2005). */
static double ciede2000(lab_t p, lab_t q) {
    const double pow25_7 = 6103515625.0; /* 25^7 */
    double cbar = 0.5 * (sqrt(p.a * p.a + p.b * p.b) + sqrt(q.a * q.a + q.b * q.b));
    double c7 = pow7(cbar);
    double scale = 1 + 0.5 * (1 - sqrt(c7 / (c7 + pow25_7)));
    double a1 = p.a * scale, a2 = q.a * scale;
    double C1 = sqrt(a1 * a1 + p.b * p.b), C2 = sqrt(a2 * a2 + q.b * q.b);
    double h1 = hue_2pi(a1, p.b), h2 = hue_2pi(a2, q.b);
    double lbar = 0.5 * (p.L + q.L), tmp = (lbar - 50) * (lbar - 50);
    double SL = 1 + 0.015 * tmp / sqrt(20 + tmp);
    double L_term = (q.L - p.L) / SL;
    cbar = 0.5 * (C1 + C2);
    double SC = 1 + 0.045 * cbar;
    double C_term = (C2 - C1) / SC;
    double h_diff = h2 - h1, h_sum = h1 + h2, CC = C1 * C2;
    double dH = h_diff;
    if (h_diff > M_PI) dH -= 2 * M_PI;
    if (h_diff < -M_PI) dH += 2 * M_PI;
    if (CC == 0) dH = 0;
    double dH_term = 2 * sqrt(CC) * sin(dH / 2);
    double Hbar = h_sum;
    if (CC != 0 && fabs(h_diff) > M_PI)
        Hbar += h_sum < 2 * M_PI ? 2 * M_PI : -2 * M_PI;
    if (CC == 0) Hbar *= 2;
    Hbar *= 0.5;
    const double deg = M_PI / 180;
    /* T = 1 - 0.17 cos(H - 30°) + 0.24 cos 2H + 0.32 cos(3H + 6°) - 0.20 cos(4H - 63°),
     * from one sine and cosine of H by the multiple-angle formulas (the
     * trigonometry is most of the cost of a pixel). */
    double sh = sin(Hbar), ch = cos(Hbar);
    double c2 = 2 * ch * ch - 1, s2 = 2 * sh * ch;
    double c3 = ch * (4 * ch * ch - 3), s3 = sh * (3 - 4 * sh * sh);
    double c4 = 2 * c2 * c2 - 1, s4 = 2 * s2 * c2;
    static const double cos30 = 0.86602540378443865, sin30 = 0.5;
    static const double cos6 = 0.99452189536827329, sin6 = 0.10452846326765347;
    static const double cos63 = 0.45399049973954675, sin63 = 0.89100652418836786;
    double T = 1 - 0.17 * (ch * cos30 + sh * sin30) + 0.24 * c2 + 0.32 * (c3 * cos6 - s3 * sin6) -
               0.20 * (c4 * cos63 + s4 * sin63);
    double SH = 1 + 0.015 * cbar * T;
    double H_term = dH_term / SH;
    c7 = pow7(cbar);
    double Rc = 2 * sqrt(c7 / (c7 + pow25_7));
    double ht = (Hbar / deg - 275) / 25;
    double dtheta = 30 * deg * exp(-ht * ht);
    double R_term = -sin(2 * dtheta) * Rc * C_term * H_term;
    double dE2 = L_term * L_term + C_term * C_term + H_term * H_term + R_term;
    return sqrt(dE2 > 0 ? dE2 : 0);
}

/* The k-th smallest of v[0..n) (Hoare's selection, expected linear time),
 * leaving v partitioned around it: a full sort cost a fifth of a compare. */
static float select_kth(float *v, size_t n, size_t k) {
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        float pivot = v[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot) i++;
            while (v[j] > pivot) j--;
            if (i <= j) {
                float t = v[i]; v[i] = v[j]; v[j] = t;
                i++;
                if (j == 0) break;
                j--;
            }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else return v[k];
    }
    return v[k];
}

int shim_compare_srgb8(const uint8_t *a, const uint8_t *b, int width, int height,
                       float *delta_e_map, shim_image_difference *out) {
    memset(out, 0, sizeof *out);
    if (!a || !b || width <= 0 || height <= 0)
        return -1;
    size_t n = (size_t)width * height;
    double *lx = malloc(sizeof(double) * n), *ly = malloc(sizeof(double) * n);
    float *de = delta_e_map ? delta_e_map : malloc(sizeof(float) * n);
    float *sorted = malloc(sizeof(float) * n);
    if (!lx || !ly || !de || !sorted) {
        free(lx); free(ly); free(sorted);
        if (de != delta_e_map) free(de);
        return -1;
    }
    double linear[256];
    for (int i = 0; i < 256; i++)
        linear[i] = srgb_to_linear(i / 255.0);
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *p = a + 3 * i, *q = b + 3 * i;
        lx[i] = luma(p);
        ly[i] = luma(q);
        /* Equal pixels differ by 0: the common case costs no maths. */
        double d = (p[0] == q[0] && p[1] == q[1] && p[2] == q[2]) ? 0 : ciede2000(lab_of(p, linear), lab_of(q, linear));
        de[i] = (float)d;
        sum += d;
    }
    int failed = ssim_luma(lx, ly, width, height, &out->ssim);
    out->mean_delta_e = sum / n;
    /* numpy.percentile(…, 99): linear between the two ranks around 0.99 (n - 1). */
    memcpy(sorted, de, sizeof(float) * n);
    double rank = 0.99 * (n - 1);
    size_t lo = (size_t)rank;
    double below = select_kth(sorted, n, lo), above = below;
    /* The next value up is the smallest of those after rank lo. */
    if (lo + 1 < n) {
        above = sorted[lo + 1];
        for (size_t i = lo + 2; i < n; i++)
            if (sorted[i] < above) above = sorted[i];
    }
    out->p99_delta_e = below + (rank - lo) * (above - below);
    free(lx); free(ly); free(sorted);
    if (de != delta_e_map) free(de);
    return failed;
}

/* MARK: The diff strip */

int shim_diff_strip_png(const uint8_t *baseline, const uint8_t *current, const float *delta_e_map,
                        int width, int height, void **png, size_t *png_len) {
    const int gap = 4;
    int strip_w = 3 * width + 2 * gap;
    size_t row = (size_t)strip_w * 3;
    uint8_t *strip = malloc(row * height);
    if (!strip) {
        vips_error("thumbs", "no memory for a %d x %d diff strip", strip_w, height);
        return -1;
    }
    memset(strip, 255, row * height);
    for (int r = 0; r < height; r++) {
        uint8_t *line = strip + (size_t)r * row;
        memcpy(line, baseline + (size_t)r * width * 3, (size_t)width * 3);
        memcpy(line + (size_t)(width + gap) * 3, current + (size_t)r * width * 3, (size_t)width * 3);
        uint8_t *heat = line + (size_t)(2 * (width + gap)) * 3;
        for (int c = 0; c < width; c++) {
            size_t i = (size_t)r * width + c;
            const uint8_t *p = current + 3 * i;
            double grey = 0.35 * luma(p);
            double d = delta_e_map[i], t = d >= 20 ? 1 : d / 20;
            /* Below 1 ΔE nobody sees a difference: grey. Above, black
             * through red to yellow, more opaque as it grows. */
            double alpha = d < 1 ? 0 : (0.4 + 0.6 * t);
            double red = 255 * (t * 2 > 1 ? 1 : t * 2 + 0.25 > 1 ? 1 : t * 2 + 0.25);
            double green = 255 * (t * 2 - 1 > 0 ? t * 2 - 1 : 0);
            heat[3 * c + 0] = (uint8_t)lround(grey * (1 - alpha) + red * alpha);
            heat[3 * c + 1] = (uint8_t)lround(grey * (1 - alpha) + green * alpha);
            heat[3 * c + 2] = (uint8_t)lround(grey * (1 - alpha));
        }
    }
    VipsImage *image = vips_image_new_from_memory(strip, row * height, strip_w, height, 3, VIPS_FORMAT_UCHAR);
    if (!image) {
        free(strip);
        return -1;
    }
    int failed = vips_pngsave_buffer(image, png, png_len, "compression", 6, NULL);
    g_object_unref(image);
    free(strip);
    return failed ? -1 : 0;
}
