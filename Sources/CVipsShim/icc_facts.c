/* The facts of an ICC profile that ColourProfile judges, read by lcms2 (which
 * libvips links already) instead of a hand-written parser of untrusted bytes.
 * All lcms2 calls go through a private context with a silent error handler:
 * libvips routes lcms2's global error handler into its own error buffer. */
#include "CVipsICCFacts.h"

#include <lcms2.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

static cmsContext context;
static pthread_once_t setup_once = PTHREAD_ONCE_INIT;

static void silent(cmsContext id, cmsUInt32Number code, const char *text) {
    (void) id;
    (void) code;
    (void) text;
}

static void setup(void) {
    context = cmsCreateContext(NULL, NULL);
    if (context)
        cmsSetLogErrorHandlerTHR(context, silent);
}

static int read_xyz(cmsHPROFILE profile, cmsTagSignature tag, double out[3]) {
    if (!cmsIsTag(profile, tag))
        return SHIM_ICC_ABSENT;
    const cmsCIEXYZ *xyz = cmsReadTag(profile, tag);
    if (!xyz)
        return SHIM_ICC_MALFORMED;
    out[0] = xyz->X;
    out[1] = xyz->Y;
    out[2] = xyz->Z;
    return SHIM_ICC_READ;
}

static int read_curve(cmsHPROFILE profile, cmsTagSignature tag, float out[256]) {
    if (!cmsIsTag(profile, tag))
        return SHIM_ICC_ABSENT;
    const cmsToneCurve *curve = cmsReadTag(profile, tag);
    if (!curve)
        return SHIM_ICC_MALFORMED;
    for (int i = 0; i < 256; i++)
        out[i] = cmsEvalToneCurveFloat(curve, (cmsFloat32Number) i / 255.0f);
    return SHIM_ICC_READ;
}

/* Several tags: READ when all are read, ABSENT when none is present,
 * MALFORMED when one present is unreadable; a partial set counts as absent
 * unless one is malformed. */
static int combine(const int *states, int n) {
    int read = 0;
    for (int i = 0; i < n; i++) {
        if (states[i] == SHIM_ICC_MALFORMED)
            return SHIM_ICC_MALFORMED;
        read += states[i] == SHIM_ICC_READ;
    }
    return read == n ? SHIM_ICC_READ : SHIM_ICC_ABSENT;
}

int shim_icc_read_facts(const void *icc, size_t length, shim_icc_facts *facts) {
    memset(facts, 0, sizeof *facts);
    if (!icc || length < 132 || length > UINT32_MAX)
        return -1;
    const unsigned char *bytes = icc;
    uint32_t declared = (uint32_t) bytes[0] << 24 | (uint32_t) bytes[1] << 16 | (uint32_t) bytes[2] << 8 | bytes[3];
    if (declared > length)
        return -1;
    pthread_once(&setup_once, setup);
    if (!context)
        return -1;
    cmsHPROFILE profile = cmsOpenProfileFromMemTHR(context, icc, (cmsUInt32Number) length);
    if (!profile)
        return -1;

    cmsColorSpaceSignature space = cmsGetColorSpace(profile);
    facts->space = space == cmsSigRgbData ? 1 : space == cmsSigGrayData ? 2 : 0;
    facts->pcs_xyz = cmsGetPCS(profile) == cmsSigXYZData;
    const cmsTagSignature lookup[] = {cmsSigAToB0Tag, cmsSigAToB1Tag, cmsSigAToB2Tag,
                                      cmsSigDToB0Tag, cmsSigDToB1Tag, cmsSigDToB2Tag};
    for (size_t i = 0; i < sizeof lookup / sizeof lookup[0]; i++)
        facts->lookup_tables |= cmsIsTag(profile, lookup[i]) ? 1 : 0;

    if (facts->space == 1) {
        int colorants[3] = {read_xyz(profile, cmsSigRedColorantTag, facts->red),
                            read_xyz(profile, cmsSigGreenColorantTag, facts->green),
                            read_xyz(profile, cmsSigBlueColorantTag, facts->blue)};
        facts->colorants = combine(colorants, 3);
        int curves[3] = {read_curve(profile, cmsSigRedTRCTag, facts->curve[0]),
                         read_curve(profile, cmsSigGreenTRCTag, facts->curve[1]),
                         read_curve(profile, cmsSigBlueTRCTag, facts->curve[2])};
        facts->curves = combine(curves, 3);
    } else if (facts->space == 2) {
        facts->curves = read_curve(profile, cmsSigGrayTRCTag, facts->curve[0]);
    }
    facts->white = read_xyz(profile, cmsSigMediaWhitePointTag, facts->white_xyz);
    cmsCloseProfile(profile);
    return 0;
}
