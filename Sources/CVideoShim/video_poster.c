// A video's poster frame through FFmpeg's libraries, in process.
//
// The file is read through the caller's descriptor with pread (a custom
// AVIOContext): never reopened by name, never read whole. Only the packets of
// the video stream are demuxed (the others are discarded by the demuxer),
// only keyframes are handed to the decoder, one at a time, and every loop is
// bounded by the packet and byte budgets of shim_video_limits.
#include "CVideoShim.h"
#include "CVipsHDR.h"

#include "ffmpeg_library.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// MARK: - Limits

/// A file of more streams is refused: each stream costs the demuxer a parser
/// and an index, and no camera or phone writes more than a handful (the
/// fuzzer's files with hundreds of empty streams did).
static const unsigned max_streams = 64;
/// Containers whose header lacks the frame size (MPEG-TS, some AVI) are
/// probed over at most this much of their start: a camcorder's stream
/// shows its first keyframe within half a second.
static const int analyze_seconds = 5;
/// Bytes the demuxer may read beyond the packets' budget: the header and
/// its index (a long MP4's sample tables take a few MB; 64 MB is far past
/// any real one, and ends a file whose boxes point back at each other).
static const int64_t header_read_allowance = 64 << 20;
/// The AVIOContext's buffer: what one pread asks for.
static const int io_buffer_bytes = 64 << 10;
/// The poster frame is the first keyframe at or after this share of the
/// video's duration, and at most `poster_latest_seconds` in: past a fade in
/// from black, before the first scene has ended.
static const double poster_share_of_duration = 0.1;
static const double poster_latest_seconds = 1.0;
/// A keyframe this far before the target still counts (time bases round).
static const double timestamp_slack_seconds = 0.001;
/// Past the target by this much with no keyframe at or after it, the
/// keyframe before the target serves (a clip of one GOP).
static const double give_up_after_seconds = 10.0;
/// Samples of luma `frame_detail` reads: a grid of 64 × 48, enough to tell a
/// black or flat frame from a picture, and the same cost at any frame size.
static const int detail_columns = 64, detail_rows = 48;
/// Non-square samples are widened or heightened to the displayed shape up to
/// this ratio; a stream that claims more is shown as stored.
static const double max_sample_aspect = 4;

// MARK: - Messages

// FFmpeg prints nothing (ffmpeg_library.h); the last error it logged on this
// thread goes into the item's message.
static void fail_with(char *message, size_t size, const char *what, int err) {
    char text[128] = "";
    if (err < 0)
        av_strerror(err, text, sizeof text);
    const char *logged = ffmpeg_library_last_log();
    if (logged[0] && err < 0)
        snprintf(message, size, "%s: %s (%s)", what, text, logged);
    else if (err < 0)
        snprintf(message, size, "%s: %s", what, text);
    else
        snprintf(message, size, "%s", what);
}

// MARK: - Reading through the descriptor

typedef struct {
    int fd;
    int64_t size;
    int64_t position;
    /// Bytes the demuxer has read so far, and the most it may read.
    int64_t read_bytes;
    int64_t max_read_bytes;
} fd_source;

static int read_packet(void *opaque, uint8_t *buf, int buf_size) {
    fd_source *source = opaque;
    if (source->position >= source->size)
        return AVERROR_EOF;
    if (source->read_bytes >= source->max_read_bytes)
        return AVERROR(EFBIG);
    int64_t want = source->size - source->position;
    if (want > buf_size)
        want = buf_size;
    ssize_t n;
    do {
        n = pread(source->fd, buf, (size_t) want, (off_t) source->position);
    } while (n < 0 && errno == EINTR);
    if (n < 0)
        return AVERROR(errno);
    if (n == 0)
        return AVERROR_EOF;
    source->position += n;
    source->read_bytes += n;
    return (int) n;
}

static int64_t seek_source(void *opaque, int64_t offset, int whence) {
    fd_source *source = opaque;
    whence &= ~AVSEEK_FORCE;
    int64_t to;
    switch (whence) {
    case AVSEEK_SIZE: return source->size;
    case SEEK_SET: to = offset; break;
    case SEEK_CUR: to = source->position + offset; break;
    case SEEK_END: to = source->size + offset; break;
    default: return AVERROR(EINVAL);
    }
    if (to < 0)
        return AVERROR(EINVAL);
    source->position = to;
    return to;
}

// MARK: - Facts

/// EXIF orientation for the stream's display matrix: 6 when the picture is
/// turned 90° clockwise for display, 3 for 180°, 8 for 270°.
static int orientation_of(const AVStream *stream) {
    const uint8_t *matrix = NULL;
#if LIBAVFORMAT_VERSION_MAJOR < 61
    size_t size = 0;
    matrix = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size);
    if (size < 9 * sizeof(int32_t))
        matrix = NULL;
#else
    const AVPacketSideData *data = av_packet_side_data_get(stream->codecpar->coded_side_data,
                                                           stream->codecpar->nb_coded_side_data,
                                                           AV_PKT_DATA_DISPLAYMATRIX);
    if (data && data->size >= 9 * sizeof(int32_t))
        matrix = data->data;
#endif
    if (!matrix)
        return 1;
    // As ffmpeg's own get_rotation: the clockwise angle.
    double theta = -av_display_rotation_get((const int32_t *) matrix);
    if (isnan(theta))
        return 1;
    theta -= 360 * floor(theta / 360 + 0.9 / 360);
    int quarter = (int) lround(theta / 90) % 4;
    static const int orientations[4] = {1, 6, 3, 8};
    return orientations[quarter];
}

static double seconds(int64_t ts, AVRational base) {
    return ts == AV_NOPTS_VALUE ? 0 : (double) ts * av_q2d(base);
}

/// How much a frame shows: the standard deviation of its luma on a grid of
/// samples, on a 0–255 scale. A black or flat frame scores under a few.
static double frame_detail(const AVFrame *frame) {
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(frame->format);
    if (!desc || (desc->flags & (AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_HWACCEL)) ||
        !frame->data[0] || frame->width <= 0 || frame->height <= 0)
        return 255;  // not planar luma: taken as it is
    int depth = desc->comp[0].depth, step = desc->comp[0].step, offset = desc->comp[0].offset;
    int big = (desc->flags & AV_PIX_FMT_FLAG_BE) != 0;
    double scale = 255.0 / ((1 << depth) - 1);
    double sum = 0, squares = 0;
    int count = 0;
    for (int gy = 0; gy < detail_rows; gy++) {
        int y = (int) ((gy + 0.5) * frame->height / detail_rows);
        const uint8_t *row = frame->data[0] + (ptrdiff_t) y * frame->linesize[0];
        for (int gx = 0; gx < detail_columns; gx++) {
            int x = (int) ((gx + 0.5) * frame->width / detail_columns);
            const uint8_t *p = row + (ptrdiff_t) x * step + offset;
            int value;
            if (depth <= 8)
                value = p[0];
            else
                value = big ? (p[0] << 8 | p[1]) : (p[1] << 8 | p[0]);
            value >>= desc->comp[0].shift;
            double v = value * scale;
            sum += v;
            squares += v * v;
            count++;
        }
    }
    double mean = sum / count;
    double variance = squares / count - mean * mean;
    return variance > 0 ? sqrt(variance) : 0;
}

/// A frame this flat moves on to the next keyframe (a fade from black, a
/// title card of one colour).
static const double flat_detail = 6.0;

/// The frame as displayed (before the rotation of its orientation): the
/// stored `width` × `height` with non-square samples (`sar`) applied, as
/// long as that stays within `max_pixels` (0: no limit).
static void displayed_size(int width, int height, AVRational sar, int64_t max_pixels, int *out_w, int *out_h) {
    *out_w = width;
    *out_h = height;
    if (sar.num > 0 && sar.den > 0 && sar.num != sar.den) {
        double ratio = av_q2d(sar);
        if (ratio > 1 && ratio <= max_sample_aspect)
            *out_w = (int) lround(width * ratio);
        else if (ratio < 1 && ratio >= 1 / max_sample_aspect)
            *out_h = (int) lround(height / ratio);
    }
    if (max_pixels > 0 && (int64_t) *out_w * *out_h > max_pixels) {
        *out_w = width;
        *out_h = height;
    }
}

// MARK: - Conversion

static int sws_colorspace(const AVFrame *frame) {
    switch (frame->colorspace) {
    case AVCOL_SPC_BT709: return SWS_CS_ITU709;
    case AVCOL_SPC_BT2020_NCL:
    case AVCOL_SPC_BT2020_CL: return SWS_CS_BT2020;
    case AVCOL_SPC_SMPTE240M: return SWS_CS_SMPTE240M;
    case AVCOL_SPC_FCC: return SWS_CS_FCC;
    case AVCOL_SPC_BT470BG:
    case AVCOL_SPC_SMPTE170M: return SWS_CS_ITU601;
    default:
        // Unspecified: HD and larger are BT.709, as players assume.
        return frame->height >= 720 ? SWS_CS_ITU709 : SWS_CS_ITU601;
    }
}

/// The frame as 8-bit RGB of out_w × out_h (SDR), or tone-mapped from
/// 16-bit RGB (HDR); NULL when swscale refuses it.
static unsigned char *convert(const AVFrame *frame, int out_w, int out_h, int hdr, char *message, size_t message_size) {
    enum AVPixelFormat target = hdr ? AV_PIX_FMT_RGB48 : AV_PIX_FMT_RGB24;
    // Scaled down by a whole factor: an area average (chroma is then at
    // full resolution or more). At full size: bicubic chroma, interpolated
    // for every pixel.
    int scaled = out_w * 2 <= frame->width || out_h * 2 <= frame->height;
    int flags = scaled ? SWS_AREA | SWS_ACCURATE_RND : SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT;
    struct SwsContext *sws = sws_getContext(frame->width, frame->height, frame->format, out_w, out_h, target, flags,
                                            NULL, NULL, NULL);
    if (!sws) {
        snprintf(message, message_size, "cannot convert the frame's pixels (%s) to RGB",
                 av_get_pix_fmt_name(frame->format) ? av_get_pix_fmt_name(frame->format) : "unknown");
        return NULL;
    }
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(frame->format);
    if (desc && !(desc->flags & AV_PIX_FMT_FLAG_RGB)) {
        int full = frame->color_range == AVCOL_RANGE_JPEG;
        const int *coefficients = sws_getCoefficients(hdr ? SWS_CS_BT2020 : sws_colorspace(frame));
        sws_setColorspaceDetails(sws, coefficients, full, sws_getCoefficients(SWS_CS_DEFAULT), 1, 0, 1 << 16, 1 << 16);
    }
    size_t row = (size_t) out_w * 3;
    unsigned char *rgb = malloc(row * (size_t) out_h);
    uint16_t *wide = hdr ? malloc(row * 2 * (size_t) out_h) : NULL;
    if (!rgb || (hdr && !wide)) {
        free(rgb);
        free(wide);
        sws_freeContext(sws);
        snprintf(message, message_size, "no memory for a %d×%d frame", out_w, out_h);
        return NULL;
    }
    uint8_t *planes[4] = {hdr ? (uint8_t *) wide : rgb, NULL, NULL, NULL};
    int strides[4] = {(int) (hdr ? row * 2 : row), 0, 0, 0};
    int rows = sws_scale(sws, (const uint8_t *const *) frame->data, frame->linesize, 0, frame->height, planes, strides);
    sws_freeContext(sws);
    if (rows != out_h) {
        free(rgb);
        free(wide);
        snprintf(message, message_size, "cannot convert the frame's pixels to RGB");
        return NULL;
    }
    if (hdr) {
        shim_hdr_tonemap_rows(wide, rgb, (size_t) out_w * (size_t) out_h, hdr, SHIM_HDR_PRIMARIES_BT2020);
        free(wide);
    }
    return rgb;
}

// MARK: - Decoding

/// Decodes one packet on its own (the decoder is flushed before and
/// drained after): a keyframe gives its frame.
static int decode_one(AVCodecContext *codec, const AVPacket *packet, AVFrame *frame) {
    avcodec_flush_buffers(codec);
    int err = avcodec_send_packet(codec, packet);
    if (err < 0)
        return err;
    err = avcodec_send_packet(codec, NULL);
    if (err < 0 && err != AVERROR_EOF)
        return err;
    return avcodec_receive_frame(codec, frame);
}

typedef struct {
    AVFormatContext *format;
    AVIOContext *io;
    AVCodecContext *codec;
    AVPacket *packet, *fallback;
    AVFrame *frame, *best;
} session;

static void close_session(session *s) {
    av_frame_free(&s->frame);
    av_frame_free(&s->best);
    av_packet_free(&s->packet);
    av_packet_free(&s->fallback);
    avcodec_free_context(&s->codec);
    avformat_close_input(&s->format);
    if (s->io) {
        av_freep(&s->io->buffer);
        avio_context_free(&s->io);
    }
}

/// Opens the container read through `source` into `s` (its header only):
/// 0, or SHIM_VIDEO_DECODE or SHIM_VIDEO_UNSUPPORTED with the reason in
/// `message`.
static int open_container(session *s, fd_source *source, char *message, size_t message_size) {
    unsigned char *buffer = av_malloc(io_buffer_bytes);
    s->format = avformat_alloc_context();
    if (buffer)
        s->io = avio_alloc_context(buffer, io_buffer_bytes, 0, source, read_packet, NULL, seek_source);
    if (!s->format || !s->io) {
        if (!s->io)
            av_free(buffer);
        fail_with(message, message_size, "no memory to open the video", AVERROR(ENOMEM));
        return SHIM_VIDEO_DECODE;
    }
    s->format->pb = s->io;
    s->format->flags |= AVFMT_FLAG_CUSTOM_IO;
    int err = avformat_open_input(&s->format, NULL, NULL, NULL);
    if (err < 0) {
        // avformat_open_input frees the context on failure, not our AVIO.
        fail_with(message, message_size, "cannot read the container", err);
        return SHIM_VIDEO_DECODE;
    }
    if (s->format->nb_streams > max_streams) {
        snprintf(message, message_size, "the file has %u streams; thumbs reads videos of at most %u",
                 s->format->nb_streams, max_streams);
        return SHIM_VIDEO_UNSUPPORTED;
    }
    return 0;
}

/// The first video stream that is not an attached picture (a cover), or -1.
static int video_stream(const AVFormatContext *format) {
    for (unsigned i = 0; i < format->nb_streams; i++) {
        const AVStream *st = format->streams[i];
        if (st->codecpar->codec_type == AVMEDIA_TYPE_VIDEO && !(st->disposition & AV_DISPOSITION_ATTACHED_PIC))
            return (int) i;
    }
    return -1;
}

int shim_video_header_read(int fd, int64_t size, shim_video_header *out) {
    memset(out, 0, sizeof *out);
    if (ffmpeg_library_load(FFMPEG_FOR_VIDEO, NULL, 0) != 0)
        return -1;
    ffmpeg_library_forget_log();
    out->orientation = 1;
    session s = {0};
    fd_source source = {.fd = fd, .size = size, .max_read_bytes = header_read_allowance};
    char message[160];
    int result = open_container(&s, &source, message, sizeof message);
    if (result == 0) {
        out->container_bytes = io_buffer_bytes;
        for (unsigned i = 0; i < s.format->nb_streams; i++)
            out->container_bytes += (int64_t) avformat_index_get_entries_count(s.format->streams[i]) * sizeof(AVIndexEntry);
        int index = video_stream(s.format);
        if (index >= 0) {
            const AVStream *stream = s.format->streams[index];
            const AVCodecParameters *par = stream->codecpar;
            out->orientation = orientation_of(stream);
            out->hdr = par->color_trc == AVCOL_TRC_SMPTE2084 ? 1 : par->color_trc == AVCOL_TRC_ARIB_STD_B67 ? 2 : 0;
            if (par->width > 0 && par->height > 0) {
                out->stored_width = par->width;
                out->stored_height = par->height;
                displayed_size(par->width, par->height, par->sample_aspect_ratio, 0, &out->width, &out->height);
                if (par->format >= 0) {
                    int bytes = av_image_get_buffer_size(par->format, par->width, par->height, 1);
                    if (bytes > 0)
                        out->frame_bytes = bytes;
                }
            }
        }
    }
    close_session(&s);
    return result == 0 ? 0 : -1;
}

int shim_video_poster(int fd, int64_t size, const shim_video_limits *limits, shim_video_frame *out,
                      char *message, size_t message_size) {
    memset(out, 0, sizeof *out);
    message[0] = 0;
    if (ffmpeg_library_load(FFMPEG_FOR_VIDEO, message, message_size) != 0)
        return SHIM_VIDEO_UNSUPPORTED;
    ffmpeg_library_forget_log();
    session s = {0};
    fd_source source = {.fd = fd, .size = size, .max_read_bytes = limits->max_packet_bytes + header_read_allowance};
    int result = SHIM_VIDEO_DECODE, err;

    if ((result = open_container(&s, &source, message, message_size)) != 0)
        goto done;
    result = SHIM_VIDEO_DECODE;
    snprintf(out->container, sizeof out->container, "%s", s.format->iformat->name);
    // Containers whose header lacks the frame size (MPEG-TS, some AVI)
    // need a look at the first packets; MP4, MOV and Matroska do not.
    int known = 0;
    for (unsigned i = 0; i < s.format->nb_streams; i++) {
        AVCodecParameters *p = s.format->streams[i]->codecpar;
        if (p->codec_type == AVMEDIA_TYPE_VIDEO && p->width > 0 && p->height > 0 &&
            !(s.format->streams[i]->disposition & AV_DISPOSITION_ATTACHED_PIC))
            known = 1;
    }
    if (!known) {
        s.format->max_analyze_duration = analyze_seconds * AV_TIME_BASE;
        if ((err = avformat_find_stream_info(s.format, NULL)) < 0) {
            fail_with(message, message_size, "cannot read the streams", err);
            goto done;
        }
        if (s.format->nb_streams > max_streams) {
            snprintf(message, message_size, "the file has %u streams; thumbs reads videos of at most %u",
                     s.format->nb_streams, max_streams);
            result = SHIM_VIDEO_UNSUPPORTED;
            goto done;
        }
    }
    int index = video_stream(s.format);
    for (unsigned i = 0; i < s.format->nb_streams; i++) {
        if ((int) i != index)
            s.format->streams[i]->discard = AVDISCARD_ALL;
    }
    if (index < 0) {
        snprintf(message, message_size, "the file has no video stream (%u other stream%s)", s.format->nb_streams,
                 s.format->nb_streams == 1 ? "" : "s");
        result = SHIM_VIDEO_UNSUPPORTED;
        goto done;
    }
    AVStream *stream = s.format->streams[index];
    AVCodecParameters *par = stream->codecpar;
    snprintf(out->codec, sizeof out->codec, "%s", avcodec_get_name(par->codec_id));
    out->orientation = orientation_of(stream);
    out->width = par->width;
    out->height = par->height;
    if (par->width <= 0 || par->height <= 0) {
        snprintf(message, message_size, "the video stream (%s) has no frame size", out->codec);
        goto done;
    }
    if (limits->max_pixels > 0 && (int64_t) par->width * par->height > limits->max_pixels) {
        result = SHIM_VIDEO_TOO_LARGE;
        goto done;
    }
    AVRational rate = stream->avg_frame_rate.num > 0 && stream->avg_frame_rate.den > 0 ? stream->avg_frame_rate
                                                                                     : stream->r_frame_rate;
    out->fps = rate.num > 0 && rate.den > 0 ? av_q2d(rate) : 0;
    // The container's duration is what players show (ffprobe's
    // format.duration: the longest stream, an edit list applied); the video
    // stream's own is often a frame or an audio tail shorter. The manifest
    // gives the container's where it has one, the stream's where not; the
    // poster frame is placed on the stream's, where it has one.
    double stream_duration = stream->duration != AV_NOPTS_VALUE && stream->duration > 0
                                 ? seconds(stream->duration, stream->time_base)
                                 : 0;
    double container_duration = s.format->duration != AV_NOPTS_VALUE && s.format->duration > 0
                                    ? (double) s.format->duration / AV_TIME_BASE
                                    : 0;
    if (!isfinite(stream_duration) || stream_duration < 0)
        stream_duration = 0;
    if (!isfinite(container_duration) || container_duration < 0)
        container_duration = 0;
    out->duration = container_duration > 0 ? container_duration : stream_duration;
    double timeline = stream_duration > 0 ? stream_duration : container_duration;

    const AVCodec *decoder = avcodec_find_decoder(par->codec_id);
    if (!decoder) {
        snprintf(message, message_size, "no decoder for the video's codec (%s)", out->codec);
        result = SHIM_VIDEO_UNSUPPORTED;
        goto done;
    }
    s.codec = avcodec_alloc_context3(decoder);
    if (!s.codec || (err = avcodec_parameters_to_context(s.codec, par)) < 0) {
        fail_with(message, message_size, "cannot set the decoder up", s.codec ? err : AVERROR(ENOMEM));
        goto done;
    }
    s.codec->thread_count = limits->threads > 0 ? limits->threads : 1;
    s.codec->thread_type = FF_THREAD_SLICE;
    // Only keyframes are sent; the decoder may drop what refers to nothing.
    s.codec->skip_frame = AVDISCARD_NONREF;
    s.codec->pkt_timebase = stream->time_base;
    if ((err = avcodec_open2(s.codec, decoder, NULL)) < 0) {
        fail_with(message, message_size, "cannot open the decoder", err);
        goto done;
    }

    int64_t start = stream->start_time != AV_NOPTS_VALUE ? stream->start_time : 0;
    double target = timeline > 0 ? fmin(poster_latest_seconds, poster_share_of_duration * timeline) : 0;
    int64_t target_ts = start + (int64_t) llround(target / av_q2d(stream->time_base));
    // A keyframe a hair before the target (rounding of time bases) counts.
    int64_t slack = (int64_t) llround(timestamp_slack_seconds / av_q2d(stream->time_base));
    // Past this with no keyframe at or after the target, the one before it serves.
    int64_t give_up_ts = target_ts + (int64_t) llround(give_up_after_seconds / av_q2d(stream->time_base));
    if (target > 0 && av_seek_frame(s.format, index, target_ts, AVSEEK_FLAG_BACKWARD) < 0)
        av_seek_frame(s.format, index, start, AVSEEK_FLAG_BACKWARD);

    s.packet = av_packet_alloc();
    s.fallback = av_packet_alloc();
    s.frame = av_frame_alloc();
    if (!s.packet || !s.fallback || !s.frame) {
        fail_with(message, message_size, "no memory to decode the video", AVERROR(ENOMEM));
        goto done;
    }
    double best_detail = -1;
    int64_t bytes = 0, best_ts = AV_NOPTS_VALUE;
    int last_error = 0, have_fallback = 0;
    const char *stopped = NULL;
    while (best_detail < flat_detail && out->frames_decoded < limits->max_candidates) {
        if (out->packets_read >= limits->max_packets || bytes >= limits->max_packet_bytes) {
            stopped = "the packet budget ran out";
            break;
        }
        err = av_read_frame(s.format, s.packet);
        if (err < 0) {
            if (err != AVERROR_EOF)
                last_error = err;
            break;
        }
        out->packets_read++;
        bytes += s.packet->size;
        int64_t ts = s.packet->pts != AV_NOPTS_VALUE ? s.packet->pts : s.packet->dts;
        if (s.packet->stream_index != index || !(s.packet->flags & AV_PKT_FLAG_KEY)) {
            int late = ts != AV_NOPTS_VALUE && ts > give_up_ts && best_detail < 0 && have_fallback;
            av_packet_unref(s.packet);
            if (late)
                break;
            continue;
        }
        if (ts != AV_NOPTS_VALUE && ts < target_ts - slack) {
            av_packet_unref(s.fallback);
            av_packet_move_ref(s.fallback, s.packet);
            have_fallback = 1;
            continue;
        }
        err = decode_one(s.codec, s.packet, s.frame);
        av_packet_unref(s.packet);
        out->frames_decoded++;
        if (err < 0) {
            last_error = err;
            continue;
        }
        double detail = frame_detail(s.frame);
        if (detail > best_detail) {
            best_detail = detail;
            av_frame_free(&s.best);
            s.best = av_frame_clone(s.frame);
            best_ts = s.frame->best_effort_timestamp != AV_NOPTS_VALUE ? s.frame->best_effort_timestamp : ts;
        }
        av_frame_unref(s.frame);
    }
    // No keyframe at or after the target (a clip of one GOP): the last one before it.
    if (!s.best && have_fallback) {
        int64_t ts = s.fallback->pts != AV_NOPTS_VALUE ? s.fallback->pts : s.fallback->dts;
        err = decode_one(s.codec, s.fallback, s.frame);
        out->frames_decoded++;
        if (err < 0) {
            last_error = err;
        } else {
            s.best = av_frame_clone(s.frame);
            best_ts = s.frame->best_effort_timestamp != AV_NOPTS_VALUE ? s.frame->best_effort_timestamp : ts;
        }
    }
    if (!s.best) {
        if (last_error < 0)
            fail_with(message, message_size, "no frame could be decoded", last_error);
        else if (stopped)
            snprintf(message, message_size, "no frame could be decoded: %s (%d packets, %lld bytes)", stopped,
                     out->packets_read, (long long) bytes);
        else if (out->packets_read == 0 && stream->nb_frames > 0)
            // The index (moov) is whole but the data it points at is not
            // there: a copy or download that stopped part way.
            snprintf(message, message_size,
                     "the file is cut short: its index lists %lld frames of the video stream (%s), but none of their data is in the file",
                     (long long) stream->nb_frames, out->codec);
        else if (out->packets_read == 0)
            snprintf(message, message_size, "no frame could be decoded: the file holds no data of the video stream (%s)",
                     out->codec);
        else
            snprintf(message, message_size, "no frame could be decoded: the video stream (%s) has no keyframe", out->codec);
        goto done;
    }
    AVFrame *best = s.best;
    if (best->width <= 0 || best->height <= 0) {
        snprintf(message, message_size, "the decoded frame has no size");
        goto done;
    }
    if (limits->max_pixels > 0 && (int64_t) best->width * best->height > limits->max_pixels) {
        out->width = best->width;
        out->height = best->height;
        result = SHIM_VIDEO_TOO_LARGE;
        goto done;
    }
    out->frame_time = best_ts != AV_NOPTS_VALUE ? fmax(0, seconds(best_ts - start, stream->time_base)) : 0;
    enum AVColorTransferCharacteristic trc = best->color_trc != AVCOL_TRC_UNSPECIFIED ? best->color_trc : par->color_trc;
    out->hdr = trc == AVCOL_TRC_SMPTE2084 ? 1 : trc == AVCOL_TRC_ARIB_STD_B67 ? 2 : 0;
    // Non-square samples (anamorphic DV, some phones): widened or heightened
    // to the displayed shape, never more than 4 times.
    int out_w, out_h;
    AVRational sar = best->sample_aspect_ratio.num > 0 ? best->sample_aspect_ratio : par->sample_aspect_ratio;
    displayed_size(best->width, best->height, sar, limits->max_pixels, &out_w, &out_h);
    // The displayed size is the item's; the pixels may be fewer.
    out->width = out_w;
    out->height = out_h;
    int shrink = limits->shrink_for ? limits->shrink_for(limits->context, out_w, out_h, out->orientation) : 1;
    if (shrink > 1 && shrink <= 8) {
        out_w = (out_w + shrink - 1) / shrink;
        out_h = (out_h + shrink - 1) / shrink;
    }
    out->pixels_width = out_w;
    out->pixels_height = out_h;
    out->pixels = convert(best, out_w, out_h, out->hdr, message, message_size);
    if (!out->pixels)
        goto done;
    result = SHIM_VIDEO_OK;

done:
    close_session(&s);
    if (result != SHIM_VIDEO_OK && !message[0] && result != SHIM_VIDEO_TOO_LARGE)
        snprintf(message, message_size, "cannot decode the video");
    return result;
}
