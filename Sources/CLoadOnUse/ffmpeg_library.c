// FFmpeg's libraries, loaded on first use: see include/ffmpeg_library.h.
#include "ffmpeg_library.h"
#include "library_open.h"

#include <string.h>

ffmpeg_functions ffmpeg_library;

#define FFMPEG_STRINGIFY(x) #x
#define FFMPEG_SONAME(name, major) "lib" name ".so." FFMPEG_STRINGIFY(major)

/// The libraries in load order (each after those it links), by the major
/// version of the headers thumbs was built with: the soname Debian's
/// runtime packages (libavcodec59, …) install.
typedef enum { avutil, avcodec, avformat, swscale, library_count } ffmpeg_library_id;

static const char *const sonames[library_count] = {
    [avutil] = FFMPEG_SONAME("avutil", LIBAVUTIL_VERSION_MAJOR),
    [avcodec] = FFMPEG_SONAME("avcodec", LIBAVCODEC_VERSION_MAJOR),
    [avformat] = FFMPEG_SONAME("avformat", LIBAVFORMAT_VERSION_MAJOR),
    [swscale] = FFMPEG_SONAME("swscale", LIBSWSCALE_VERSION_MAJOR),
};

// MARK: - Quiet logging

static _Thread_local char last_log[160];

static void keep_log(void *avcl, int level, const char *fmt, va_list vl) {
    if (level > AV_LOG_ERROR)
        return;
    int print_prefix = 0;
    char line[sizeof last_log];
    av_log_format_line2(avcl, level, fmt, vl, line, sizeof line, &print_prefix);
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == ' ' || line[n - 1] == '.'))
        line[--n] = 0;
    if (n > 0)
        memcpy(last_log, line, n + 1);
}

const char *ffmpeg_library_last_log(void) { return last_log; }

void ffmpeg_library_forget_log(void) { last_log[0] = 0; }

// MARK: - Loading

static void find(size_t id, void *handle, const char **missing) {
#define FFMPEG_FIND(library, name)                                                                                 \
    if ((size_t) library == id)                                                                                       \
        LIBRARY_FIND(handle, ffmpeg_library.name, #name, *missing);
    FFMPEG_FUNCTIONS(FFMPEG_FIND)
#undef FFMPEG_FIND
}

/// FFmpeg made quiet as soon as libavutil is in, before any other call.
static void loaded(size_t id) {
    if (id == avutil) {
        av_log_set_level(AV_LOG_ERROR);
        av_log_set_callback(keep_log);
    }
}

static library_group ffmpeg = LIBRARY_GROUP("FFmpeg", sonames, library_count, find, loaded);

int ffmpeg_library_load(ffmpeg_need need, char *error, size_t error_len) {
    // The load order puts what a HEIC's tiles need first: libavutil and libavcodec.
    size_t needed = need == FFMPEG_FOR_VIDEO ? library_count : avcodec + 1;
    return library_group_load(&ffmpeg, needed, error, error_len);
}
