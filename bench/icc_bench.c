/* Hand-run check and micro-benchmark of the cached ICC transform
 * (Sources/CVipsShim/icc_fast.c) against libvips's vips_icc_transform.
 *
 *   cc -O2 -o /tmp/icc_bench bench/icc_bench.c Sources/CVipsShim/icc_fast.c \
 *      -ISources/CVipsShim/include $(pkg-config --cflags --libs vips lcms2)
 *   /tmp/icc_bench [ITERATIONS=300] [photo.jpg ...]
 *   /tmp/icc_bench pipeline [ITERATIONS=20]
 *   /tmp/icc_bench corpus DIR [COUNT=4]
 *
 * For each test image (a synthetic photo-like 256x192 image, a 64^3 grid of
 * every colour, and thumbnails of the JPEGs given): converts the sRGB pixels
 * to Display P3 with libvips (profile attached), then back to sRGB both
 * through libvips (as shim_icc_to_srgb does) and through shim_icc_to_srgb8,
 * and prints the differences. Then times per-image cost of the three ways to
 * handle a tagged 256x192 thumbnail.
 *
 * `pipeline` makes one photo-like 4000x3000 JPEG (as make-corpus.sh does) in
 * three versions, untagged, sRGB-tagged and Display P3 (pixels converted,
 * profile embedded), and times a thumbs-like pipeline on each (load with
 * shrink 8, Lanczos3 resize to 256 px, profile step, JPEG save): CPU per
 * image, libvips icc_transform against the fast step.
 *
 * `corpus` writes COUNT such photos (4000x3000, Q86..94: 5 files each) three times, to
 * DIR/untagged, DIR/srgb (libvips's sRGB profile embedded, same pixels) and
 * DIR/p3 (pixels converted to Display P3, its profile embedded), for timing
 * the thumbs binary on each.
 */
#include "CVipsShim.h"
#include "../Sources/CVipsShim/icc_fast.h" /* shim_icc_cache_clear */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); /* CPU of all threads: the machine is shared */
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void die(const char *what) {
    fprintf(stderr, "%s: %s\n", what, vips_error_buffer());
    exit(1);
}

static unsigned char *pixels_of(VipsImage *image, size_t *size) {
    void *data = vips_image_write_to_memory(image, size);
    if (!data)
        die("write_to_memory");
    return data;
}

static void compare(const char *label, const unsigned char *a, const unsigned char *b, size_t n) {
    double sum = 0;
    int worst = 0;
    size_t off1 = 0;
    for (size_t i = 0; i < n; i++) {
        int d = abs((int) a[i] - (int) b[i]);
        sum += d;
        if (d > worst)
            worst = d;
        if (d > 1)
            off1++;
    }
    printf("  %-34s mean abs %.4f  max %d  >1 level %.3f%%\n", label, sum / n, worst, 100.0 * off1 / n);
}

static VipsImage *libvips_to_srgb(VipsImage *in) {
    VipsImage *out;
    if (vips_icc_transform(in, &out, "srgb", "input_profile", "srgb", "embedded", TRUE,
                           "intent", VIPS_INTENT_RELATIVE, "depth", 8, NULL))
        die("icc_transform");
    return out;
}

/* Tags an sRGB image with `profile` after converting its pixels there. */
static VipsImage *to_profile(VipsImage *srgb, const char *profile) {
    VipsImage *out;
    if (vips_icc_transform(srgb, &out, profile, "input_profile", "srgb",
                           "intent", VIPS_INTENT_RELATIVE, "depth", 8, NULL))
        die("icc_transform to profile");
    return out;
}

static void check(const char *label, VipsImage *srgb) {
    size_t n_orig, n_p3, n_ref;
    VipsImage *p3 = to_profile(srgb, "p3");
    const void *icc;
    size_t icc_length;
    if (vips_image_get_blob(p3, VIPS_META_ICC_NAME, &icc, &icc_length))
        die("no profile attached");
    unsigned char *orig = pixels_of(srgb, &n_orig);
    unsigned char *fast = pixels_of(p3, &n_p3);
    VipsImage *ref_image = libvips_to_srgb(p3);
    unsigned char *ref = pixels_of(ref_image, &n_ref);
    if (shim_icc_to_srgb8(fast, p3->Xsize, p3->Ysize, p3->Bands, icc, icc_length))
        die("shim_icc_to_srgb8");
    printf("%s (%dx%d, P3 profile %zu bytes)\n", label, p3->Xsize, p3->Ysize, icc_length);
    compare("fast vs libvips icc_transform", fast, ref, n_ref);
    compare("fast vs sRGB original", fast, orig, n_orig);
    compare("libvips vs sRGB original", ref, orig, n_orig);
    g_free(orig);
    g_free(fast);
    g_free(ref);
    g_object_unref(ref_image);
    g_object_unref(p3);
}

static VipsImage *photo_like(int width, int height, int seed) {
    VipsImage *bands[3], *joined, *big, *u, *out;
    for (int b = 0; b < 3; b++) {
        VipsImage *noise;
        if (vips_gaussnoise(&noise, width / 16 + 1, height / 16 + 1, "sigma", 55.0, "mean", 128.0,
                            "seed", seed * 7 + b, NULL))
            die("gaussnoise");
        if (vips_resize(noise, &bands[b], 16, "kernel", VIPS_KERNEL_CUBIC, NULL))
            die("resize");
        g_object_unref(noise);
    }
    if (vips_bandjoin(bands, &joined, 3, NULL))
        die("bandjoin");
    for (int b = 0; b < 3; b++)
        g_object_unref(bands[b]);
    if (vips_extract_area(joined, &big, 0, 0, width, height, NULL) || vips_cast(big, &u, VIPS_FORMAT_UCHAR, NULL))
        die("cast");
    if (vips_copy(u, &out, "interpretation", VIPS_INTERPRETATION_sRGB, NULL))
        die("copy");
    g_object_unref(joined);
    g_object_unref(big);
    g_object_unref(u);
    VipsImage *memory = vips_image_copy_memory(out);
    g_object_unref(out);
    return memory;
}

static VipsImage *every_colour(void) {
    /* 64 levels per channel: 512 x 512 pixels. */
    unsigned char *p = malloc(512 * 512 * 3);
    for (int i = 0; i < 512 * 512; i++) {
        p[i * 3] = (unsigned char) ((i & 63) * 255 / 63);
        p[i * 3 + 1] = (unsigned char) (((i >> 6) & 63) * 255 / 63);
        p[i * 3 + 2] = (unsigned char) (((i >> 12) & 63) * 255 / 63);
    }
    VipsImage *image = vips_image_new_from_memory_copy(p, 512 * 512 * 3, 512, 512, 3, VIPS_FORMAT_UCHAR);
    free(p);
    image->Type = VIPS_INTERPRETATION_sRGB;
    return image;
}

static VipsImage *thumbnail_of(const char *path) {
    VipsImage *out;
    if (vips_thumbnail(path, &out, 256, "height", 256, "no_rotate", TRUE, "import_profile", "srgb",
                       "export_profile", "srgb", NULL))
        die(path);
    VipsImage *memory = vips_image_copy_memory(out);
    g_object_unref(out);
    return memory;
}

typedef enum { STEP_NONE, STEP_LIBVIPS, STEP_SKIP, STEP_FAST } profile_step;

/* One thumbnail of a JPEG in memory; returns the output size. */
static size_t pipeline_once(const void *jpeg, size_t length, profile_step step) {
    VipsImage *loaded, *resized, *converted = NULL;
    if (vips_jpegload_buffer((void *) jpeg, length, &loaded, "shrink", 8, "access", VIPS_ACCESS_SEQUENTIAL, NULL))
        die("jpegload");
    if (vips_resize(loaded, &resized, 256.0 / loaded->Xsize, "kernel", VIPS_KERNEL_LANCZOS3, NULL))
        die("resize");
    g_object_unref(loaded);
    const void *icc = NULL;
    size_t icc_length = 0;
    if (vips_image_get_typeof(resized, VIPS_META_ICC_NAME))
        vips_image_get_blob(resized, VIPS_META_ICC_NAME, &icc, &icc_length);
    switch (step) {
    case STEP_NONE:
        converted = resized;
        break;
    case STEP_LIBVIPS:
        converted = libvips_to_srgb(resized);
        g_object_unref(resized);
        break;
    case STEP_SKIP:
        if (vips_copy(resized, &converted, NULL))
            die("copy");
        vips_image_remove(converted, VIPS_META_ICC_NAME);
        g_object_unref(resized);
        break;
    case STEP_FAST:
        converted = vips_image_new_memory();
        if (vips_image_write(resized, converted))
            die("write");
        if (shim_icc_to_srgb8((unsigned char *) vips_image_get_data(converted), converted->Xsize, converted->Ysize,
                              converted->Bands, icc, icc_length))
            die("fast");
        vips_image_remove(converted, VIPS_META_ICC_NAME);
        g_object_unref(resized);
        break;
    }
    void *out;
    size_t out_length;
    if (vips_jpegsave_buffer(converted, &out, &out_length, "Q", 80, "strip", TRUE, NULL))
        die("jpegsave");
    g_free(out);
    g_object_unref(converted);
    return out_length;
}

static void *make_jpeg(VipsImage *image, const char *options, size_t *length) {
    void *buf;
    if (vips_image_write_to_buffer(image, options, &buf, length, NULL))
        die("write_to_buffer");
    return buf;
}

/* A 4000x3000 photo-like sRGB image in memory: colour fields and detail. */
static VipsImage *big_photo(int seed) {
    VipsImage *base = photo_like(4000, 3000, seed), *noise, *sum, *detailed, *srgb;
    if (vips_gaussnoise(&noise, 4000, 3000, "sigma", 6.0, "mean", 0.0, "seed", seed + 9, NULL) ||
        vips_add(base, noise, &sum, NULL) || vips_cast(sum, &detailed, VIPS_FORMAT_UCHAR, NULL) ||
        vips_copy(detailed, &srgb, "interpretation", VIPS_INTERPRETATION_sRGB, NULL))
        die("detail");
    VipsImage *memory = vips_image_copy_memory(srgb);
    g_object_unref(base);
    g_object_unref(noise);
    g_object_unref(sum);
    g_object_unref(detailed);
    g_object_unref(srgb);
    return memory;
}

static int write_corpus(const char *dir, int count) {
    char path[4096];
    const char *subdirs[3] = {"untagged", "srgb", "p3"};
    for (int d = 0; d < 3; d++) {
        snprintf(path, sizeof path, "%s/%s", dir, subdirs[d]);
        g_mkdir_with_parents(path, 0755);
    }
    for (int i = 1; i <= count; i++) {
        VipsImage *photo = big_photo(i);
        VipsImage *p3 = to_profile(photo, "p3");
        /* Five qualities per photo: more distinct files (thumbs skips
         * duplicates) for the cost of one photo. */
        for (int q = 86; q <= 94; q += 2) {
            snprintf(path, sizeof path, "%s/untagged/photo_%04d_q%d.jpg[Q=%d,strip]", dir, i, q, q);
            if (vips_image_write_to_file(photo, path, NULL))
                die(path);
            snprintf(path, sizeof path, "%s/srgb/photo_%04d_q%d.jpg[Q=%d,profile=srgb]", dir, i, q, q);
            if (vips_image_write_to_file(photo, path, NULL))
                die(path);
            snprintf(path, sizeof path, "%s/p3/photo_%04d_q%d.jpg[Q=%d]", dir, i, q, q);
            if (vips_image_write_to_file(p3, path, NULL))
                die(path);
        }
        g_object_unref(p3);
        g_object_unref(photo);
    }
    printf("%d photos in %s/{untagged,srgb,p3}\n", count, dir);
    return 0;
}

static int pipeline_bench(int iterations) {
    VipsImage *p3;
    VipsImage *srgb_memory = big_photo(3);
    p3 = to_profile(srgb_memory, "p3");
    size_t plain_length, tagged_length, p3_length;
    void *plain = make_jpeg(srgb_memory, ".jpg[Q=90,strip]", &plain_length);
    void *tagged = make_jpeg(srgb_memory, ".jpg[Q=90,profile=srgb]", &tagged_length);
    void *p3_jpeg = make_jpeg(p3, ".jpg[Q=90]", &p3_length);
    VipsImage *check;
    const void *icc;
    size_t icc_length;
    if (vips_jpegload_buffer(p3_jpeg, p3_length, &check, NULL) ||
        vips_image_get_blob(check, VIPS_META_ICC_NAME, &icc, &icc_length))
        die("P3 JPEG has no profile");
    printf("4000x3000 JPEGs: untagged %zu bytes, sRGB-tagged %zu, P3 %zu (profile %zu bytes)\n", plain_length,
           tagged_length, p3_length, icc_length);
    g_object_unref(check);

    struct { const char *label; void *jpeg; size_t length; profile_step step; } runs[] = {
        {"untagged", plain, plain_length, STEP_NONE},
        {"sRGB-tagged, libvips icc_transform", tagged, tagged_length, STEP_LIBVIPS},
        {"sRGB-tagged, skip", tagged, tagged_length, STEP_SKIP},
        {"P3, libvips icc_transform", p3_jpeg, p3_length, STEP_LIBVIPS},
        {"P3, cached lcms 8-bit", p3_jpeg, p3_length, STEP_FAST},
    };
    int n = sizeof runs / sizeof runs[0];
    double cpu[5] = {0};
    /* Interleaved rounds, so that changes in machine load hit every run. */
    for (int round = 0; round < iterations; round++)
        for (int r = 0; r < n; r++) {
            double start = now();
            pipeline_once(runs[r].jpeg, runs[r].length, runs[r].step);
            cpu[r] += now() - start;
        }
    for (int r = 0; r < n; r++)
        printf("  %-36s %.2f ms CPU/image  (%.3fx untagged)\n", runs[r].label, cpu[r] * 1000 / iterations,
               cpu[r] / cpu[0]);
    return 0;
}

int main(int argc, char **argv) {
    if (VIPS_INIT(argv[0]))
        die("init");
    vips_cache_set_max(0);
    if (argc > 2 && strcmp(argv[1], "corpus") == 0)
        return write_corpus(argv[2], argc > 3 ? atoi(argv[3]) : 4);
    if (argc > 1 && strcmp(argv[1], "pipeline") == 0)
        return pipeline_bench(argc > 2 ? atoi(argv[2]) : 20);
    int iterations = argc > 1 ? atoi(argv[1]) : 300;

    VipsImage *photo = photo_like(256, 192, 1);
    check("photo-like 256x192", photo);
    VipsImage *grid = every_colour();
    check("every colour (64 levels per channel)", grid);
    g_object_unref(grid);
    for (int i = 2; i < argc; i++) {
        VipsImage *thumb = thumbnail_of(argv[i]);
        check(argv[i], thumb);
        g_object_unref(thumb);
    }

    /* Timing on 256x192 images tagged P3 and tagged sRGB. */
    VipsImage *p3 = to_profile(photo, "p3");
    VipsImage *srgb_tagged = to_profile(photo, "srgb");
    const void *icc;
    size_t icc_length;
    vips_image_get_blob(p3, VIPS_META_ICC_NAME, &icc, &icc_length);

    const char *names[2] = {"P3-tagged", "sRGB-tagged"};
    VipsImage *tagged[2] = {p3, srgb_tagged};
    printf("\nper-image CPU cost (all threads), 256x192, %d iterations (ms)\n", iterations);
    for (int t = 0; t < 2; t++) {
        VipsImage *in = tagged[t];
        const void *blob;
        size_t blob_length;
        vips_image_get_blob(in, VIPS_META_ICC_NAME, &blob, &blob_length);

        double start = now();
        for (int i = 0; i < iterations; i++) {
            VipsImage *out = libvips_to_srgb(in);
            size_t n;
            g_free(pixels_of(out, &n));
            g_object_unref(out);
        }
        double libvips_ms = (now() - start) * 1000 / iterations;

        shim_icc_cache_clear();
        start = now();
        for (int i = 0; i < iterations; i++) {
            VipsImage *memory = vips_image_new_memory();
            if (vips_image_write(in, memory))
                die("write");
            unsigned char *px = (unsigned char *) vips_image_get_data(memory);
            if (shim_icc_to_srgb8(px, memory->Xsize, memory->Ysize, memory->Bands, blob, blob_length))
                die("fast");
            vips_image_remove(memory, VIPS_META_ICC_NAME);
            g_object_unref(memory);
        }
        double fast_ms = (now() - start) * 1000 / iterations;

        start = now();
        for (int i = 0; i < iterations; i++) {
            VipsImage *copy;
            if (vips_copy(in, &copy, NULL))
                die("copy");
            vips_image_remove(copy, VIPS_META_ICC_NAME);
            size_t n;
            g_free(pixels_of(copy, &n));
            g_object_unref(copy);
        }
        double skip_ms = (now() - start) * 1000 / iterations;

        start = now();
        for (int i = 0; i < iterations; i++) {
            VipsImage *copy;
            if (vips_copy(in, &copy, NULL))
                die("copy");
            size_t n;
            g_free(pixels_of(copy, &n));
            g_object_unref(copy);
        }
        double none_ms = (now() - start) * 1000 / iterations;

        printf("%-12s libvips icc_transform %.3f | cached lcms 8-bit %.3f | skip (copy, drop profile) %.3f | "
               "nothing (copy) %.3f\n",
               names[t], libvips_ms, fast_ms, skip_ms, none_ms);
    }
    g_object_unref(p3);
    g_object_unref(srgb_tagged);
    g_object_unref(photo);
    return 0;
}
