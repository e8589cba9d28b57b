// A libheif decoder plugin that decodes HEVC images with FFmpeg's
// libavcodec instead of libde265 (see heif_hevc_ffmpeg.h).
//
// libheif 1.15 hands a plugin one coded image at a time (for a grid, one
// tile): the hvcC's parameter sets and the item's data, each NAL unit
// behind a 4-byte big-endian length (libheif writes the parameter sets so,
// and iPhones, libheif's encoder and the libvips test images store 4-byte
// lengths; libheif's libde265 plugin reads the same framing). The plugin
// rewrites the lengths into Annex B start codes, which have the same size,
// and has libavcodec decode the one intra picture. The picture goes back to
// libheif as its YCbCr planes with the colour description of the stream's
// VUI, as libheif's libde265 plugin does, so libheif's conversion, grid
// assembly and transformations see what they would see from libde265: HEVC
// decoding is exact, and both decoders give the same samples.
#include "CHeifShim.h"
#include "heif_hevc_ffmpeg.h"

#include <libheif/heif_plugin.h>

#include "ffmpeg_library.h"
#include "heif_library.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* What libheif pushed: the coded image, Annex B once decoded. */
typedef struct {
    uint8_t *data;
    size_t length;
    size_t capacity;
} ffmpeg_hevc_decoder;

static atomic_ulong pictures_decoded;

/* heif_ffmpeg_picture_threads: per thread, so that only the pictures
 * decoded on the thread that set it (one that is not a grid) use more. */
static _Thread_local int picture_threads = 1;

void heif_ffmpeg_picture_threads(int threads) {
    picture_threads = threads > 1 ? threads : 1;
}

static const struct heif_error ok = {heif_error_Ok, heif_suberror_Unspecified, "Success"};

static struct heif_error plugin_error(enum heif_suberror_code subcode, const char *message) {
    struct heif_error err = {heif_error_Decoder_plugin_error, subcode, message};
    return err;
}

static const char *plugin_name(void) {
    return "FFmpeg libavcodec HEVC (thumbs)";
}

/* HEVC only, ahead of libde265 (priority 100). */
static int supports_format(enum heif_compression_format format) {
    return format == heif_compression_HEVC ? SHIM_HEIF_FFMPEG_PRIORITY : 0;
}

static struct heif_error new_decoder(void **decoder) {
    ffmpeg_hevc_decoder *created = calloc(1, sizeof *created);
    if (!created)
        return plugin_error(heif_suberror_Unspecified, "out of memory");
    *decoder = created;
    return ok;
}

static void free_decoder(void *decoder) {
    ffmpeg_hevc_decoder *d = decoder;
    if (!d)
        return;
    free(d->data);
    free(d);
}

/* Appends `size` bytes; the buffer keeps libavcodec's padding past them. */
static struct heif_error push_data(void *decoder, const void *data, size_t size) {
    ffmpeg_hevc_decoder *d = decoder;
    if (size > SIZE_MAX - d->length - AV_INPUT_BUFFER_PADDING_SIZE)
        return plugin_error(heif_suberror_Unspecified, "coded image too large");
    size_t need = d->length + size + AV_INPUT_BUFFER_PADDING_SIZE;
    if (need > d->capacity) {
        size_t capacity = d->capacity ? d->capacity : 65536;
        while (capacity < need)
            capacity = capacity > SIZE_MAX / 2 ? need : capacity * 2;
        uint8_t *grown = realloc(d->data, capacity);
        if (!grown)
            return plugin_error(heif_suberror_Unspecified, "out of memory");
        d->data = grown;
        d->capacity = capacity;
    }
    memcpy(d->data + d->length, data, size);
    d->length += size;
    memset(d->data + d->length, 0, AV_INPUT_BUFFER_PADDING_SIZE);
    return ok;
}

int shim_hevc_length_prefixed_to_annexb(uint8_t *data, size_t length) {
    size_t at = 0;
    while (at < length) {
        if (length - at < 4)
            return -1;
        uint32_t nal = (uint32_t) data[at] << 24 | (uint32_t) data[at + 1] << 16 | (uint32_t) data[at + 2] << 8 |
                       (uint32_t) data[at + 3];
        if (nal == 0 || nal > length - at - 4)
            return -1;
        data[at] = 0;
        data[at + 1] = 0;
        data[at + 2] = 0;
        data[at + 3] = 1;
        at += 4 + (size_t) nal;
    }
    return 0;
}

/* The heif_image for `frame`'s planes (8-bit 4:2:0, 4:2:2, 4:4:4 or grey),
 * or an error for any other layout (libheif then fails the decode, and
 * shim_heif_decode_primary_reduced decodes again with libde265). */
static struct heif_error frame_to_heif_image(const AVFrame *frame, struct heif_image **out) {
    enum heif_colorspace colorspace = heif_colorspace_YCbCr;
    enum heif_chroma chroma;
    int planes = 3, shift_x = 1, shift_y = 1;
    switch (frame->format) {
    case AV_PIX_FMT_YUV420P:
    case AV_PIX_FMT_YUVJ420P:
        chroma = heif_chroma_420;
        break;
    case AV_PIX_FMT_YUV422P:
    case AV_PIX_FMT_YUVJ422P:
        chroma = heif_chroma_422;
        shift_y = 0;
        break;
    case AV_PIX_FMT_YUV444P:
    case AV_PIX_FMT_YUVJ444P:
        chroma = heif_chroma_444;
        shift_x = shift_y = 0;
        break;
    case AV_PIX_FMT_GRAY8:
        colorspace = heif_colorspace_monochrome;
        chroma = heif_chroma_monochrome;
        planes = 1;
        break;
    default:
        return plugin_error(heif_suberror_Unsupported_color_conversion, "pixel layout not taken by the FFmpeg plugin");
    }
    int width = frame->width, height = frame->height;
    if (width <= 0 || height <= 0)
        return plugin_error(heif_suberror_Invalid_image_size, "empty picture");
    struct heif_error err = heif_image_create(width, height, colorspace, chroma, out);
    if (err.code != heif_error_Ok)
        return err;
    static const enum heif_channel channels[3] = {heif_channel_Y, heif_channel_Cb, heif_channel_Cr};
    for (int c = 0; c < planes; c++) {
        int w = c ? (width + (1 << shift_x) - 1) >> shift_x : width;
        int h = c ? (height + (1 << shift_y) - 1) >> shift_y : height;
        err = heif_image_add_plane(*out, channels[c], w, h, 8);
        if (err.code != heif_error_Ok) {
            heif_image_release(*out);
            *out = NULL;
            return err;
        }
        int stride = 0;
        uint8_t *dst = heif_image_get_plane(*out, channels[c], &stride);
        for (int y = 0; y < h; y++)
            memcpy(dst + (size_t) y * (size_t) stride, frame->data[c] + (ptrdiff_t) y * frame->linesize[c], (size_t) w);
    }
    /* The stream's own colour description, as libheif's libde265 plugin
     * sets it (FFmpeg's AVCOL_* codes are ISO/IEC 23091-2's); an nclx box
     * on the item overrides it in libheif. */
    struct heif_color_profile_nclx *nclx = heif_nclx_color_profile_alloc();
    if (nclx) {
        heif_nclx_color_profile_set_color_primaries(nclx, (uint16_t) frame->color_primaries);
        heif_nclx_color_profile_set_transfer_characteristics(nclx, (uint16_t) frame->color_trc);
        heif_nclx_color_profile_set_matrix_coefficients(nclx, (uint16_t) frame->colorspace);
        nclx->full_range_flag = frame->color_range == AVCOL_RANGE_JPEG || frame->format == AV_PIX_FMT_YUVJ420P ||
                                frame->format == AV_PIX_FMT_YUVJ422P || frame->format == AV_PIX_FMT_YUVJ444P;
        heif_image_set_nclx_color_profile(*out, nclx);
        heif_nclx_color_profile_free(nclx);
    }
    return ok;
}

/* Decodes the one picture pushed, on the calling thread: libheif decodes a
 * grid's tiles on its own threads, one plugin decoder each. */
static struct heif_error decode_image(void *decoder, struct heif_image **out) {
    ffmpeg_hevc_decoder *d = decoder;
    *out = NULL;
    if (!d->data || d->length == 0 || d->length > INT_MAX || shim_hevc_length_prefixed_to_annexb(d->data, d->length) != 0)
        return plugin_error(heif_suberror_End_of_data, "malformed HEVC NAL unit lengths");
    const AVCodec *codec = avcodec_find_decoder(AV_CODEC_ID_HEVC);
    if (!codec)
        return plugin_error(heif_suberror_Unsupported_codec, "FFmpeg has no HEVC decoder");
    AVCodecContext *context = avcodec_alloc_context3(codec);
    AVPacket *packet = av_packet_alloc();
    AVFrame *frame = av_frame_alloc();
    struct heif_error err = plugin_error(heif_suberror_Unspecified, "FFmpeg could not decode the HEVC picture");
    if (!context || !packet || !frame)
        goto done;
    /* Slice threads only (HEVC's wavefronts and slices, the same samples
     * as one thread): frame threads would hold a frame per thread for a
     * stream of one picture. */
    context->thread_count = picture_threads;
    context->thread_type = FF_THREAD_SLICE;
    /* FFmpeg prints nothing: a damaged tile fails the decode (libde265 then
     * has its turn, and the item gets libheif's message). The offset makes
     * this context's messages finer than trace, which neither FFmpeg's
     * default log callback nor the video shim's (video_poster.c) passes on. */
    context->log_level_offset = 2 * AV_LOG_TRACE;
    if (avcodec_open2(context, codec, NULL) < 0)
        goto done;
    packet->data = d->data;
    packet->size = (int) d->length;
    if (avcodec_send_packet(context, packet) < 0 || avcodec_send_packet(context, NULL) < 0)
        goto done;
    if (avcodec_receive_frame(context, frame) < 0)
        goto done;
    err = frame_to_heif_image(frame, out);
    if (err.code == heif_error_Ok)
        atomic_fetch_add_explicit(&pictures_decoded, 1, memory_order_relaxed);
done:
    av_frame_free(&frame);
    av_packet_free(&packet);
    avcodec_free_context(&context);
    return err;
}

/* The plugin that fails every decode, as a damaged tile would
 * (SHIM_HEIF_HEVC_FFMPEG_FAILING: the tests' way to the libde265 retry). */
static struct heif_error decode_image_failing(void *decoder, struct heif_image **out) {
    (void) decoder;
    *out = NULL;
    return plugin_error(heif_suberror_Unspecified, "FFmpeg could not decode the HEVC picture");
}

static const struct heif_decoder_plugin failing_plugin = {
    .plugin_api_version = 1,
    .get_plugin_name = plugin_name,
    .does_support_format = supports_format,
    .new_decoder = new_decoder,
    .free_decoder = free_decoder,
    .push_data = push_data,
    .decode_image = decode_image_failing,
};

static const struct heif_decoder_plugin ffmpeg_hevc_plugin = {
    .plugin_api_version = 1,
    .get_plugin_name = plugin_name,
    .init_plugin = NULL,
    .deinit_plugin = NULL,
    .does_support_format = supports_format,
    .new_decoder = new_decoder,
    .free_decoder = free_decoder,
    .push_data = push_data,
    .decode_image = decode_image,
};

/* heif_register_decoder is deprecated in favour of a process-wide
 * registration, which would also route libvips's heifload (in the same
 * process) through this plugin. Per context is what is meant here. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
int heif_use_ffmpeg_hevc(struct heif_context *ctx, int failing) {
    if (ffmpeg_library_load(FFMPEG_FOR_CODEC, NULL, 0) != 0)
        return -1;
    return heif_register_decoder(ctx, failing ? &failing_plugin : &ffmpeg_hevc_plugin).code == heif_error_Ok ? 0 : -1;
}
#pragma GCC diagnostic pop

unsigned long shim_heif_ffmpeg_pictures_decoded(void) {
    return atomic_load_explicit(&pictures_decoded, memory_order_relaxed);
}
