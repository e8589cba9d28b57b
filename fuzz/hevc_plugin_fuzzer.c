/* Off CI. libFuzzer harness for thumbs' FFmpeg HEVC plugin for libheif
 * (Sources/CHeifShim/heif_hevc_ffmpeg.c): each input is what libheif would
 * push for one coded image (NAL units behind 4-byte big-endian lengths),
 * copied into an allocation of its own; the plugin rewrites it into Annex B,
 * has libavcodec decode it and copies the picture's planes into a
 * heif_image. FFmpeg and libheif are not instrumented: what is checked is
 * the plugin's own framing, buffer growth and plane copies.
 *
 * Built with -DHEVC_SEEDS instead, it is the seed maker: `hevc_seeds OUT
 * FILE.heic...` decodes each file's primary image through a plugin that
 * writes the bytes libheif pushes for its first tiles into OUT. Build and
 * run: fuzz/hevc.sh. */
#include "../Sources/CHeifShim/heif_hevc_ffmpeg.c"

#include <stdio.h>

#ifndef HEVC_SEEDS

/* The plugin calls FFmpeg and libheif through CLoadOnUse's tables. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void) argc;
    (void) argv;
    if (heif_library_load(NULL, 0) != 0 || ffmpeg_library_load(FFMPEG_FOR_CODEC, NULL, 0) != 0)
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    void *decoder = NULL;
    if (new_decoder(&decoder).code != heif_error_Ok)
        return 0;
    /* Two pushes, as libheif pushes the parameter sets and the item's data
     * in one call but a plugin must take any split. */
    size_t half = size / 2;
    if (push_data(decoder, data, half).code == heif_error_Ok && push_data(decoder, data + half, size - half).code == heif_error_Ok) {
        struct heif_image *image = NULL;
        if (decode_image(decoder, &image).code == heif_error_Ok && image)
            heif_image_release(image);
    }
    free_decoder(decoder);
    return 0;
}

#else

static const char *seed_dir;
static atomic_int seed_count;

/* push_data that also writes what it is given, the first 4 pictures of
 * each file only (one push per picture in libheif 1.15). */
static struct heif_error seed_push_data(void *decoder, const void *data, size_t size) {
    int n = atomic_fetch_add(&seed_count, 1);
    if (n % 48 < 4) {
        char path[4096];
        snprintf(path, sizeof path, "%s/tile-%03d.hevc", seed_dir, n);
        FILE *f = fopen(path, "wb");
        if (f) {
            fwrite(data, 1, size, f);
            fclose(f);
        }
    }
    return push_data(decoder, data, size);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: hevc_seeds OUT FILE.heic...\n");
        return 2;
    }
    seed_dir = argv[1];
    char why[256];
    if (heif_library_load(why, sizeof why) != 0 || ffmpeg_library_load(FFMPEG_FOR_CODEC, why, sizeof why) != 0) {
        fprintf(stderr, "%s\n", why);
        return 1;
    }
    struct heif_decoder_plugin seeding = ffmpeg_hevc_plugin;
    seeding.push_data = seed_push_data;
    for (int i = 2; i < argc; i++) {
        atomic_store(&seed_count, (i - 2) * 48);
        struct heif_context *ctx = heif_context_alloc();
        struct heif_image_handle *primary = NULL;
        struct heif_image *image = NULL;
        if (heif_context_read_from_file(ctx, argv[i], NULL).code == heif_error_Ok &&
            heif_context_get_primary_image_handle(ctx, &primary).code == heif_error_Ok) {
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
            heif_register_decoder(ctx, &seeding);
            struct heif_error err = heif_decode_image(primary, &image, heif_colorspace_RGB, heif_chroma_444, NULL);
            fprintf(stderr, "%s: %s\n", argv[i], err.message);
        }
        if (image)
            heif_image_release(image);
        if (primary)
            heif_image_handle_release(primary);
        heif_context_free(ctx);
    }
    return 0;
}

#endif
