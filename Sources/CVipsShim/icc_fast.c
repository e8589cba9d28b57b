/* A cached 8-bit colour transform from an embedded ICC profile to sRGB.
 *
 * libvips's vips_icc_transform builds a new lcms2 transform for every image
 * (opening both profiles and optimising the pipeline takes milliseconds) and
 * goes through float Lab between the two profiles. A batch of photos carries
 * only a handful of distinct profiles (Display P3 from phones, Adobe RGB from
 * cameras), so here each profile's transform is built once, as an 8-bit
 * RGB -> 8-bit sRGB transform that lcms2 optimises into a matrix-shaper or a
 * prelinearised 3D table, and kept in a small process-wide cache.
 *
 * The intent matches the libvips path in shim.c: relative colorimetric,
 * without black point compensation (libvips's default); a profile without
 * tables for it is transformed with those it has (lcms2's fallback). All lcms2 calls go
 * through a private context whose error handler is silent, so nothing here
 * touches the libvips error buffer or lcms2's global state that libvips set up.
 */
#include "CVipsShim.h"
#include "icc_fast.h"

#include <lcms2.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { CACHE_SLOTS = 16 };

/* A transform shared by every thread that uses it; freed when it has been
 * evicted from the cache and the last user has released it. */
typedef struct {
    cmsHTRANSFORM transform; /* NULL: lcms2 cannot use this profile */
    int users;               /* the cache counts as one user */
} shared_transform;

typedef struct {
    uint64_t hash;
    size_t length;
    unsigned char *bytes; /* the profile, compared in full on a hash match */
    int bands;
    uint64_t last_use;
    shared_transform *shared;
} cache_slot;

static cache_slot slots[CACHE_SLOTS];
static uint64_t use_clock;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static cmsContext context;
static cmsHPROFILE srgb_profile, srgb_grey_profile;
static pthread_once_t setup_once = PTHREAD_ONCE_INIT;

static void silent_errors(cmsContext id, cmsUInt32Number code, const char *text) {
    (void) id;
    (void) code;
    (void) text;
}

static void setup(void) {
    context = cmsCreateContext(NULL, NULL);
    if (!context)
        return;
    cmsSetLogErrorHandlerTHR(context, silent_errors);
    srgb_profile = cmsCreate_sRGBProfileTHR(context);
    /* Grey images come out as grey with the sRGB curve (libvips's B_W), so
     * that turning them into three bands later is a plain copy. */
    const cmsFloat64Number srgb_curve[5] = {2.4, 1.0 / 1.055, 0.055 / 1.055, 1.0 / 12.92, 0.04045};
    cmsToneCurve *curve = cmsBuildParametricToneCurve(context, 4, srgb_curve);
    if (curve) {
        srgb_grey_profile = cmsCreateGrayProfileTHR(context, cmsD50_xyY(), curve);
        cmsFreeToneCurve(curve);
    }
}

/* FNV-1a, 64 bit: profiles are a few KB, hashing one costs microseconds. */
static uint64_t hash_bytes(const unsigned char *bytes, size_t length) {
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < length; i++) {
        h ^= bytes[i];
        h *= 1099511628211ull;
    }
    return h;
}

static cmsHTRANSFORM build_transform(const void *icc, size_t icc_length, int bands) {
    if (!context || icc_length > UINT32_MAX)
        return NULL;
    cmsHPROFILE input = cmsOpenProfileFromMemTHR(context, icc, (cmsUInt32Number) icc_length);
    if (!input)
        return NULL;
    cmsHTRANSFORM transform = NULL;
    cmsProfileClassSignature class = cmsGetDeviceClass(input);
    cmsColorSpaceSignature space = cmsGetColorSpace(input);
    int usable_class = class == cmsSigInputClass || class == cmsSigDisplayClass ||
                       class == cmsSigOutputClass || class == cmsSigColorSpaceClass;
    int rgb = (bands == 3 || bands == 4) && space == cmsSigRgbData;
    int grey = (bands == 1 || bands == 2) && space == cmsSigGrayData;
    cmsHPROFILE output = rgb ? srgb_profile : srgb_grey_profile;
    /* lcms2 is asked for the transform itself, not whether the profile
     * declares the intent: for an intent a profile has no table of, lcms2
     * takes the tables it carries (A2B0, the perceptual one, or its
     * matrix and curves), as every peer does. A profile of the
     * colour-space class that declares only perceptual, or an input
     * profile built on LUTs (jpegli's XYB), is transformed, not refused. */
    if (usable_class && (rgb || grey) && output) {
        cmsUInt32Number format = bands == 4 ? TYPE_RGBA_8 : bands == 3 ? TYPE_RGB_8
                               : bands == 2 ? TYPE_GRAYA_8 : TYPE_GRAY_8;
        /* NOCACHE: the one-pixel cache is the only state cmsDoTransform
         * writes; without it one transform serves any number of threads. */
        cmsUInt32Number flags = cmsFLAGS_NOCACHE | (bands == 2 || bands == 4 ? cmsFLAGS_COPY_ALPHA : 0);
        transform = cmsCreateTransformTHR(context, input, format, output, format,
                                          INTENT_RELATIVE_COLORIMETRIC, flags);
    }
    cmsCloseProfile(input);
    return transform;
}

static void release(shared_transform *shared) {
    pthread_mutex_lock(&cache_lock);
    int last = --shared->users == 0;
    pthread_mutex_unlock(&cache_lock);
    if (last) {
        if (shared->transform)
            cmsDeleteTransform(shared->transform);
        free(shared);
    }
}

/* With cache_lock held: the cached transform for this profile and band
 * count, marked used and with one more user, or NULL. */
static shared_transform *take_cached(uint64_t hash, const unsigned char *icc, size_t icc_length, int bands) {
    for (int i = 0; i < CACHE_SLOTS; i++) {
        cache_slot *slot = &slots[i];
        if (slot->shared && slot->hash == hash && slot->length == icc_length &&
            slot->bands == bands && memcmp(slot->bytes, icc, icc_length) == 0) {
            slot->last_use = ++use_clock;
            slot->shared->users++;
            return slot->shared;
        }
    }
    return NULL;
}

/* The cached transform for this profile and band count, built on a miss.
 * The caller releases it. NULL only when out of memory. */
static shared_transform *acquire(const unsigned char *icc, size_t icc_length, int bands) {
    uint64_t hash = hash_bytes(icc, icc_length);

    pthread_mutex_lock(&cache_lock);
    shared_transform *cached = take_cached(hash, icc, icc_length, bands);
    pthread_mutex_unlock(&cache_lock);
    if (cached)
        return cached;

    /* Built outside the lock: two threads may build the same transform at
     * once; the second one to finish finds the first in the cache and
     * drops its own. */
    shared_transform *built = malloc(sizeof *built);
    unsigned char *copy = malloc(icc_length);
    if (!built || !copy) {
        free(built);
        free(copy);
        return NULL;
    }
    memcpy(copy, icc, icc_length);
    built->transform = build_transform(icc, icc_length, bands);
    built->users = 2; /* the cache and the caller */

    shared_transform *evicted = NULL;
    unsigned char *evicted_bytes = NULL;
    pthread_mutex_lock(&cache_lock);
    cached = take_cached(hash, icc, icc_length, bands);
    if (cached) {
        /* Another thread won the race: use its transform. */
        pthread_mutex_unlock(&cache_lock);
        if (built->transform)
            cmsDeleteTransform(built->transform);
        free(built);
        free(copy);
        return cached;
    }
    cache_slot *target = &slots[0];
    for (int i = 0; i < CACHE_SLOTS; i++) {
        cache_slot *slot = &slots[i];
        if (!slot->shared) {
            target = slot;
            break;
        }
        if (slot->last_use < target->last_use)
            target = slot;
    }
    if (target->shared) {
        evicted = target->shared;
        evicted_bytes = target->bytes;
    }
    target->hash = hash;
    target->length = icc_length;
    target->bytes = copy;
    target->bands = bands;
    target->last_use = ++use_clock;
    target->shared = built;
    pthread_mutex_unlock(&cache_lock);

    free(evicted_bytes);
    if (evicted)
        release(evicted);
    return built;
}

int shim_icc_srgb8_available(const void *icc, size_t icc_length, int bands) {
    if (!icc || icc_length < 132 || bands < 1 || bands > 4)
        return 0;
    pthread_once(&setup_once, setup);
    shared_transform *shared = acquire(icc, icc_length, bands);
    if (!shared)
        return 0;
    int available = shared->transform != NULL;
    release(shared);
    return available;
}

int shim_icc_to_srgb8(unsigned char *pixels, size_t width, size_t height, int bands,
                      const void *icc, size_t icc_length) {
    if (!pixels || !icc || icc_length < 132 || bands < 1 || bands > 4 || width > UINT32_MAX / 2)
        return -1;
    pthread_once(&setup_once, setup);
    shared_transform *shared = acquire(icc, icc_length, bands);
    if (!shared)
        return -1;
    if (!shared->transform) {
        release(shared);
        return -1;
    }
    /* Rows in chunks so that a pixel count always fits lcms2's 32 bits. */
    size_t row_bytes = width * (size_t) bands;
    size_t rows_per_chunk = width ? (size_t) (UINT32_MAX / 2) / width : 1;
    if (rows_per_chunk == 0)
        rows_per_chunk = 1;
    for (size_t y = 0; y < height; y += rows_per_chunk) {
        size_t rows = height - y < rows_per_chunk ? height - y : rows_per_chunk;
        unsigned char *start = pixels + y * row_bytes;
        cmsDoTransform(shared->transform, start, start, (cmsUInt32Number) (rows * width));
    }
    release(shared);
    return 0;
}

void shim_icc_cache_clear(void) {
    shared_transform *dropped[CACHE_SLOTS];
    unsigned char *bytes[CACHE_SLOTS];
    pthread_mutex_lock(&cache_lock);
    for (int i = 0; i < CACHE_SLOTS; i++) {
        dropped[i] = slots[i].shared;
        bytes[i] = slots[i].bytes;
        memset(&slots[i], 0, sizeof slots[i]);
    }
    pthread_mutex_unlock(&cache_lock);
    for (int i = 0; i < CACHE_SLOTS; i++) {
        free(bytes[i]);
        if (dropped[i])
            release(dropped[i]);
    }
}
