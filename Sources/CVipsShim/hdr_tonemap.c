// HDR pictures (PQ or HLG; BT.2020, Display P3 or BT.709 primaries) to SDR
// sRGB: video poster frames (CVideoShim) and HEIF/AVIF stills (CHeifShim).
//
// Signal to display light (PQ: SMPTE ST 2084's EOTF, absolute nits; HLG:
// BT.2100's inverse OETF and its OOTF for a 1000-nit display), then in
// linear light: reference white (203 nits, BT.2408) becomes SDR white's
// neighbourhood, highlights up to the content's peak are compressed by a
// curve on max(R,G,B) that is the identity below a knee (so colours keep
// their hue and mid-tones their contrast), BT.2020 primaries become BT.709
// (or Display P3's) by the 3×3 matrix, colours outside BT.709 are desaturated towards their
// own luminance (not clipped per channel, which shifts hue), and the sRGB
// curve encodes the result.
//
// HLG goes through its display light, as BT.2100 shows it, not BT.2408's
// scene-light conversion (inverse OETF, reference white scaled to SDR's,
// BT.709's camera curve). On HLG made from SDR pictures by BT.2100's OOTF
// (FFmpeg's zscale with agamma=0, the tests' HEICs) display light gives
// back the SDR picture (0.97 to 0.98 of its colourfulness, hues within
// 1 degree); scene light makes saturated colours brighter (0.75 red 191 to
// 221) and those it pushes out of BT.709 change hue (orange by 10 degrees).
// A gamma of 1.2 on each channel, which matches zscale's default
// approximate gamma, turns the same bars by 14 degrees. (For HLG straight
// from a camera, scene light is what an SDR camera would have recorded;
// display light keeps about 0.91 of that picture's colourfulness.)
#include "CVipsHDR.h"

#include <math.h>
#include <pthread.h>

static const double reference_white = 203.0;
/// The peak assumed for PQ content (most grading is to 1000 nits) and
/// HLG's nominal display.
static const double peak_nits = 1000.0;
/// Below this (relative to reference white, about 162 nits) the curve is
/// the identity. Content at reference white should come back as mastered
/// (issue 36), but SDR has no room above its white: the highlights up to
/// the peak need some. From 0.8 the curve takes reference white to 0.90
/// (sRGB 243 where SDR white is 255) and keeps 600 nits visibly brighter
/// (253); a knee at 0.5 took it to 0.75 (225), greying whites and bars.
static const double knee = 0.8;

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

void shim_hdr_pq_to_nits(const double signal[3], double nits[3]) {
    for (int i = 0; i < 3; i++)
        nits[i] = pq_eotf(signal[i]);
}

void shim_hdr_hlg_to_nits(const double signal[3], double nits[3]) {
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

/// Primaries to BT.709's (all D65), and the luminance weights of the
/// source's own primaries, which HLG's OOTF uses.
typedef struct {
    double m[9];
    double kr, kg, kb;
} primaries_conversion;

static const primaries_conversion from_bt2020 = {
    // BT.2087
    {1.660491, -0.587641, -0.072850, -0.124550, 1.132900, -0.008349, -0.018151, -0.100579, 1.118730},
    0.2627, 0.6780, 0.0593};
static const primaries_conversion from_p3 = {
    // Display P3 (SMPTE EG 432-1) to BT.709, by their primaries and D65.
    {1.224940, -0.224940, 0.000000, -0.042057, 1.042057, 0.000000, -0.019638, -0.078636, 1.098274},
    0.2290, 0.6917, 0.0793};
static const primaries_conversion from_bt709 = {{1, 0, 0, 0, 1, 0, 0, 0, 1}, 0.2126, 0.7152, 0.0722};

static const primaries_conversion *conversion_for(int primaries) {
    switch (primaries) {
    case SHIM_HDR_PRIMARIES_P3: return &from_p3;
    case SHIM_HDR_PRIMARIES_BT709: return &from_bt709;
    default: return &from_bt2020;
    }
}

/// Linear light in the source's primaries (1 = reference white) to an sRGB pixel.
static void map_pixel(const primaries_conversion *conv, double r, double g, double b, unsigned char out[3]) {
    // Highlights compressed on max(R,G,B): all three scaled alike.
    double m = fmax(r, fmax(g, b));
    if (m > knee) {
        double scale = tone_curve(m) / m;
        r *= scale, g *= scale, b *= scale;
    }
    const double *k = conv->m;
    double r7 = k[0] * r + k[1] * g + k[2] * b;
    double g7 = k[3] * r + k[4] * g + k[5] * b;
    double b7 = k[6] * r + k[7] * g + k[8] * b;
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

void shim_hdr_tonemap_linear(const double rgb2020[3], unsigned char out[3]) {
    pthread_once(&tables_once, make_tables);
    map_pixel(&from_bt2020, rgb2020[0], rgb2020[1], rgb2020[2], out);
}

void shim_hdr_tonemap_rows(const uint16_t *wide, unsigned char *rgb, size_t count, int transfer, int primaries) {
    pthread_once(&tables_once, make_tables);
    const primaries_conversion *conv = conversion_for(primaries);
    for (size_t i = 0; i < count; i++, wide += 3, rgb += 3) {
        double r, g, b;
        if (transfer == SHIM_HDR_PQ) {
            r = pq_table[wide[0]], g = pq_table[wide[1]], b = pq_table[wide[2]];
        } else {
            double sr = hlg_table[wide[0]], sg = hlg_table[wide[1]], sb = hlg_table[wide[2]];
            double ys = conv->kr * sr + conv->kg * sg + conv->kb * sb;
            // The table is coarse where ys^0.2 is steep: dark pixels compute it.
            double gain = ys < 1.0 / 64 ? (ys > 0 ? peak_nits / reference_white * pow(ys, 0.2) : 0)
                                         : hlg_gain[(int) lround(fmin(1, ys) * GAIN_STEPS)];
            r = sr * gain, g = sg * gain, b = sb * gain;
        }
        map_pixel(conv, r, g, b, rgb);
    }
}
