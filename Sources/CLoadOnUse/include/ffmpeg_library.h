// FFmpeg's libraries, loaded on first use (ffmpeg_library.c).
//
// libavformat and what it brings (about 60 libraries: codecs, network and
// disc readers) take some 20 ms of every run's start when the executable
// links them, and most runs meet no video and no HEIC. So thumbs does not
// link FFmpeg: a decode that needs it calls ffmpeg_library_load first, and
// the calls below go through function pointers found with dlsym. Include
// this header instead of FFmpeg's own, after any other FFmpeg header: the
// function-like macros at its end turn each call `avcodec_open2(…)` into a
// call through the table, and they would rename FFmpeg's own declarations
// if those came later.
#ifndef FFMPEG_LIBRARY_H
#define FFMPEG_LIBRARY_H

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswscale/swscale.h>
#include <libavutil/avutil.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <stddef.h>

/// What a caller needs loaded: the codecs alone (a HEIC's HEVC tiles), or
/// also the demuxers and the scaler (a video's poster frame).
typedef enum {
    FFMPEG_FOR_CODEC = 1,
    FFMPEG_FOR_VIDEO = 2,
} ffmpeg_need;

#if LIBAVFORMAT_VERSION_MAJOR < 61
#define FFMPEG_STREAM_SIDE_DATA(X) X(avformat, av_stream_get_side_data)
#else
#define FFMPEG_STREAM_SIDE_DATA(X) X(avcodec, av_packet_side_data_get)
#endif

/// Every FFmpeg function thumbs calls, with the library that exports it.
#define FFMPEG_FUNCTIONS(X)                                                                                          \
    X(avutil, av_display_rotation_get)                                                                              \
    X(avutil, av_frame_alloc)                                                                                       \
    X(avutil, av_frame_clone)                                                                                       \
    X(avutil, av_frame_free)                                                                                        \
    X(avutil, av_frame_unref)                                                                                       \
    X(avutil, av_free)                                                                                              \
    X(avutil, av_freep)                                                                                             \
    X(avutil, av_get_pix_fmt_name)                                                                                  \
    X(avutil, av_image_get_buffer_size)                                                                             \
    X(avutil, av_log_format_line2)                                                                                  \
    X(avutil, av_log_set_callback)                                                                                  \
    X(avutil, av_log_set_level)                                                                                     \
    X(avutil, av_malloc)                                                                                            \
    X(avutil, av_pix_fmt_desc_get)                                                                                  \
    X(avutil, av_strerror)                                                                                          \
    X(avcodec, av_packet_alloc)                                                                                     \
    X(avcodec, av_packet_free)                                                                                      \
    X(avcodec, av_packet_move_ref)                                                                                  \
    X(avcodec, av_packet_unref)                                                                                     \
    X(avcodec, avcodec_alloc_context3)                                                                              \
    X(avcodec, avcodec_find_decoder)                                                                                \
    X(avcodec, avcodec_flush_buffers)                                                                               \
    X(avcodec, avcodec_free_context)                                                                                \
    X(avcodec, avcodec_get_name)                                                                                    \
    X(avcodec, avcodec_open2)                                                                                       \
    X(avcodec, avcodec_parameters_to_context)                                                                       \
    X(avcodec, avcodec_receive_frame)                                                                               \
    X(avcodec, avcodec_send_packet)                                                                                 \
    X(avformat, av_read_frame)                                                                                      \
    X(avformat, av_seek_frame)                                                                                      \
    X(avformat, avformat_alloc_context)                                                                             \
    X(avformat, avformat_close_input)                                                                               \
    X(avformat, avformat_find_stream_info)                                                                          \
    X(avformat, avformat_index_get_entries_count)                                                                   \
    X(avformat, avformat_open_input)                                                                                \
    X(avformat, avio_alloc_context)                                                                                 \
    X(avformat, avio_context_free)                                                                                  \
    X(swscale, sws_freeContext)                                                                                     \
    X(swscale, sws_getCoefficients)                                                                                 \
    X(swscale, sws_getContext)                                                                                      \
    X(swscale, sws_scale)                                                                                           \
    X(swscale, sws_setColorspaceDetails)                                                                            \
    FFMPEG_STREAM_SIDE_DATA(X)

/// The table the calls go through; a pointer is set once its library is
/// loaded, and never changes after.
typedef struct {
#define FFMPEG_FIELD(library, name) __typeof__(&name) name;
    FFMPEG_FUNCTIONS(FFMPEG_FIELD)
#undef FFMPEG_FIELD
} ffmpeg_functions;

extern ffmpeg_functions ffmpeg_library;

/// Loads what `need` asks for, once per process (any thread may call it):
/// 0, or -1 with the loader's message in `error` ("FFmpeg could not be
/// loaded: libavformat.so.59: cannot open shared object file …"). On the
/// first load FFmpeg is made quiet: it logs errors only, into a line per
/// thread (ffmpeg_library_last_log) and never to stderr.
int ffmpeg_library_load(ffmpeg_need need, char *error, size_t error_len);

/// The last error FFmpeg logged on this thread since ffmpeg_library_forget_log
/// ("moov atom not found" says more than av_strerror's "Invalid data found
/// when processing input"); "" when none.
const char *ffmpeg_library_last_log(void);
void ffmpeg_library_forget_log(void);

// The calls, through the table. A name used as a value (not called) is not
// renamed, and fails to link: add it to the table and call it.
#define av_display_rotation_get(...) ffmpeg_library.av_display_rotation_get(__VA_ARGS__)
#define av_frame_alloc(...) ffmpeg_library.av_frame_alloc(__VA_ARGS__)
#define av_frame_clone(...) ffmpeg_library.av_frame_clone(__VA_ARGS__)
#define av_frame_free(...) ffmpeg_library.av_frame_free(__VA_ARGS__)
#define av_frame_unref(...) ffmpeg_library.av_frame_unref(__VA_ARGS__)
#define av_free(...) ffmpeg_library.av_free(__VA_ARGS__)
#define av_freep(...) ffmpeg_library.av_freep(__VA_ARGS__)
#define av_get_pix_fmt_name(...) ffmpeg_library.av_get_pix_fmt_name(__VA_ARGS__)
#define av_image_get_buffer_size(...) ffmpeg_library.av_image_get_buffer_size(__VA_ARGS__)
#define av_log_format_line2(...) ffmpeg_library.av_log_format_line2(__VA_ARGS__)
#define av_log_set_callback(...) ffmpeg_library.av_log_set_callback(__VA_ARGS__)
#define av_log_set_level(...) ffmpeg_library.av_log_set_level(__VA_ARGS__)
#define av_malloc(...) ffmpeg_library.av_malloc(__VA_ARGS__)
#define av_pix_fmt_desc_get(...) ffmpeg_library.av_pix_fmt_desc_get(__VA_ARGS__)
#define av_strerror(...) ffmpeg_library.av_strerror(__VA_ARGS__)
#define av_packet_alloc(...) ffmpeg_library.av_packet_alloc(__VA_ARGS__)
#define av_packet_free(...) ffmpeg_library.av_packet_free(__VA_ARGS__)
#define av_packet_move_ref(...) ffmpeg_library.av_packet_move_ref(__VA_ARGS__)
#define av_packet_unref(...) ffmpeg_library.av_packet_unref(__VA_ARGS__)
#define avcodec_alloc_context3(...) ffmpeg_library.avcodec_alloc_context3(__VA_ARGS__)
#define avcodec_find_decoder(...) ffmpeg_library.avcodec_find_decoder(__VA_ARGS__)
#define avcodec_flush_buffers(...) ffmpeg_library.avcodec_flush_buffers(__VA_ARGS__)
#define avcodec_free_context(...) ffmpeg_library.avcodec_free_context(__VA_ARGS__)
#define avcodec_get_name(...) ffmpeg_library.avcodec_get_name(__VA_ARGS__)
#define avcodec_open2(...) ffmpeg_library.avcodec_open2(__VA_ARGS__)
#define avcodec_parameters_to_context(...) ffmpeg_library.avcodec_parameters_to_context(__VA_ARGS__)
#define avcodec_receive_frame(...) ffmpeg_library.avcodec_receive_frame(__VA_ARGS__)
#define avcodec_send_packet(...) ffmpeg_library.avcodec_send_packet(__VA_ARGS__)
#define av_read_frame(...) ffmpeg_library.av_read_frame(__VA_ARGS__)
#define av_seek_frame(...) ffmpeg_library.av_seek_frame(__VA_ARGS__)
#define avformat_alloc_context(...) ffmpeg_library.avformat_alloc_context(__VA_ARGS__)
#define avformat_close_input(...) ffmpeg_library.avformat_close_input(__VA_ARGS__)
#define avformat_find_stream_info(...) ffmpeg_library.avformat_find_stream_info(__VA_ARGS__)
#define avformat_index_get_entries_count(...) ffmpeg_library.avformat_index_get_entries_count(__VA_ARGS__)
#define avformat_open_input(...) ffmpeg_library.avformat_open_input(__VA_ARGS__)
#define avio_alloc_context(...) ffmpeg_library.avio_alloc_context(__VA_ARGS__)
#define avio_context_free(...) ffmpeg_library.avio_context_free(__VA_ARGS__)
#define sws_freeContext(...) ffmpeg_library.sws_freeContext(__VA_ARGS__)
#define sws_getCoefficients(...) ffmpeg_library.sws_getCoefficients(__VA_ARGS__)
#define sws_getContext(...) ffmpeg_library.sws_getContext(__VA_ARGS__)
#define sws_scale(...) ffmpeg_library.sws_scale(__VA_ARGS__)
#define sws_setColorspaceDetails(...) ffmpeg_library.sws_setColorspaceDetails(__VA_ARGS__)
#if LIBAVFORMAT_VERSION_MAJOR < 61
#define av_stream_get_side_data(...) ffmpeg_library.av_stream_get_side_data(__VA_ARGS__)
#else
#define av_packet_side_data_get(...) ffmpeg_library.av_packet_side_data_get(__VA_ARGS__)
#endif

#endif
