// HDR video (PQ or HLG, BT.2020) to SDR sRGB.
//
// Signal to display light (PQ: SMPTE ST 2084's EOTF, absolute nits; HLG:
// BT.2100's inverse OETF and its OOTF for a 1000-nit display), then in
// linear light: reference white (203 nits, BT.2408) becomes SDR white's
// neighbourhood, highlights up to the content's peak are compressed by a
// curve on max(R,G,B) that is the identity below a knee (so colours keep
// their hue and mid-tones their contrast), BT.2020 primaries become BT.709
// by the 3×3 matrix, colours outside BT.709 are desaturated towards their
// own luminance (not clipped per channel, which shifts hue), and the sRGB
// curve encodes the result.
#include "CVideoShim.h"
#include "video_tonemap.h"

#include <math.h>
#include <pthread.h>

static const double reference_white = 203.0;
/// The peak assumed for PQ content (most grading is to 1000 nits) and
/// HLG's nominal display.
static const double peak_nits = 1000.0;
/// Below this (relative to reference white) the curve is the identity.
static const double knee = 0.5;

static double pq_eotf(double e) {
    const double m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128;
    const double c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32;
    if (e <= 0)
        return 0;
    double p = pow(e, 1 / m2);
    double n = p - c1;
    if (n < 0)
        n = 0;
    return 10000.0 * pow(n / (c2 - c3 * p), 1 / m1);
}

static double hlg_inverse_oetf(double e) {
    const double a = 0.17883277, b = 1 - 4 * a, c = 0.5 - a * log(4 * a);
    if (e <= 0)
        return 0;
    return e <= 0.5 ? e * e / 3 : (exp((e - c) / a) + b) / 12;
}

void shim_video_pq_to_nits(const double signal[3], double nits[3]) {
    for (int i = 0; i < 3; i++)
        nits[i] = pq_eotf(signal[i]);
}

void shim_video_hlg_to_nits(const double signal[3], double nits[3]) {
    double scene[3];
    for (int i = 0; i < 3; i++)
        scene[i] = hlg_inverse_oetf(signal[i]);
    double ys = 0.2627 * scene[0] + 0.6780 * scene[1] + 0.0593 * scene[2];
    double gain = ys > 0 ? pow(ys, 1.2 - 1) : 0;
    for (int i = 0; i < 3; i++)
        nits[i] = peak_nits * gain * scene[i];
}

/// Identity below `knee`, then extended Reinhard on the rest, reaching 1
/// at the peak with the slope continuous at the knee.
static double tone_curve(double x) {
    if (x <= knee)
        return x;
    const double range = 1 - knee, white = (peak_nits / reference_white - knee) / range;
    double u = (x - knee) / range;
    if (u > white)
        return 1;
    return knee + range * u * (1 + u / (white * white)) / (1 + u);
}

static double srgb_oetf(double v) {
    return v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055;
}

// Tables, made once: 16-bit signal → linear (PQ nits / HLG scene light),
// HLG's OOTF gain by scene luminance, linear → sRGB byte.
#define GAIN_STEPS 4096
#define SRGB_STEPS 8192
static float pq_table[65536], hlg_table[65536], hlg_gain[GAIN_STEPS + 1];
static unsigned char srgb_table[SRGB_STEPS + 1];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void make_tables(void) {
    for (int i = 0; i < 65536; i++) {
        pq_table[i] = (float) (pq_eotf(i / 65535.0) / reference_white);
        hlg_table[i] = (float) hlg_inverse_oetf(i / 65535.0);
    }
    for (int i = 0; i <= GAIN_STEPS; i++)
        hlg_gain[i] = (float) (i ? peak_nits / reference_white * pow((double) i / GAIN_STEPS, 0.2) : 0);
    for (int i = 0; i <= SRGB_STEPS; i++)
        srgb_table[i] = (unsigned char) lround(255 * srgb_oetf((double) i / SRGB_STEPS));
}

/// Linear BT.2020 (1 = reference white) to an sRGB pixel.
static void map_pixel(double r, double g, double b, unsigned char out[3]) {
    // Highlights compressed on max(R,G,B): all three scaled alike.
    double m = fmax(r, fmax(g, b));
    if (m > knee) {
        double scale = tone_curve(m) / m;
        r *= scale, g *= scale, b *= scale;
    }
    // BT.2020 → BT.709 primaries (both D65; BT.2087).
    double r7 = 1.660491 * r - 0.587641 * g - 0.072850 * b;
    double g7 = -0.124550 * r + 1.132900 * g - 0.008349 * b;
    double b7 = -0.018151 * r - 0.100579 * g + 1.118730 * b;
    // Out of gamut: towards the colour's own luminance until it fits.
    double y = 0.2126 * r7 + 0.7152 * g7 + 0.0722 * b7;
    if (y < 0)
        y = 0;
    double low = fmin(r7, fmin(g7, b7)), high = fmax(r7, fmax(g7, b7));
    double t = 1;
    if (low < 0 && y - low > 0)
        t = fmin(t, y / (y - low));
    if (high > 1 && high - y > 0 && y < 1)
        t = fmin(t, (1 - y) / (high - y));
    if (t < 1) {
        r7 = y + t * (r7 - y), g7 = y + t * (g7 - y), b7 = y + t * (b7 - y);
    }
    double c[3] = {r7, g7, b7};
    for (int i = 0; i < 3; i++) {
        double v = c[i] < 0 ? 0 : c[i] > 1 ? 1 : c[i];
        out[i] = srgb_table[(int) lround(v * SRGB_STEPS)];
    }
}

void shim_video_tonemap_linear(const double rgb2020[3], unsigned char out[3]) {
    pthread_once(&tables_once, make_tables);
    map_pixel(rgb2020[0], rgb2020[1], rgb2020[2], out);
}

void shim_video_tonemap_rows(const uint16_t *wide, unsigned char *rgb, size_t count, int hdr) {
    pthread_once(&tables_once, make_tables);
    for (size_t i = 0; i < count; i++, wide += 3, rgb += 3) {
        double r, g, b;
        if (hdr == 1) {
            r = pq_table[wide[0]], g = pq_table[wide[1]], b = pq_table[wide[2]];
        } else {
            double sr = hlg_table[wide[0]], sg = hlg_table[wide[1]], sb = hlg_table[wide[2]];
            double ys = 0.2627 * sr + 0.6780 * sg + 0.0593 * sb;
            // The table is coarse where ys^0.2 is steep: dark pixels compute it.
            double gain = ys < 1.0 / 64 ? (ys > 0 ? peak_nits / reference_white * pow(ys, 0.2) : 0)
                                         : hlg_gain[(int) lround(fmin(1, ys) * GAIN_STEPS)];
            r = sr * gain, g = sg * gain, b = sb * gain;
        }
        map_pixel(r, g, b, rgb);
    }
}
