// FFmpeg's libraries, loaded on first use: see include/ffmpeg_library.h.
#include "ffmpeg_library.h"
#include "library_open.h"

#include <pthread.h>
#include <stdio.h>
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

/// Per library: loaded (its functions in the table), or the message of the
/// load that failed, which every later caller gets too.
static struct {
    int loaded;
    char failure[256];
} state[library_count];

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

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

/// Opens `id` and finds its functions; called with load_lock held.
static void load_one(ffmpeg_library_id id) {
    if (state[id].loaded || state[id].failure[0])
        return;
    void *handle = library_open(sonames[id], "FFmpeg", state[id].failure, sizeof state[id].failure);
    if (!handle)
        return;
    const char *missing = NULL;
#define FFMPEG_FIND(library, name)                                                                                 \
    if (library == id)                                                                                             \
        LIBRARY_FIND(handle, ffmpeg_library.name, #name, missing);
    FFMPEG_FUNCTIONS(FFMPEG_FIND)
#undef FFMPEG_FIND
    if (missing) {
        library_missing(sonames[id], "FFmpeg", missing, state[id].failure, sizeof state[id].failure);
        return;
    }
    state[id].loaded = 1;
    if (id == avutil) {
        av_log_set_level(AV_LOG_ERROR);
        av_log_set_callback(keep_log);
    }
}

int ffmpeg_library_load(ffmpeg_need need, char *error, size_t error_len) {
    static const ffmpeg_library_id for_codec[] = {avutil, avcodec};
    static const ffmpeg_library_id for_video[] = {avutil, avcodec, avformat, swscale};
    const ffmpeg_library_id *ids = need == FFMPEG_FOR_VIDEO ? for_video : for_codec;
    size_t count = need == FFMPEG_FOR_VIDEO ? sizeof for_video / sizeof *for_video : sizeof for_codec / sizeof *for_codec;
    int status = 0;
    pthread_mutex_lock(&load_lock);
    for (size_t i = 0; i < count && status == 0; i++) {
        load_one(ids[i]);
        if (!state[ids[i]].loaded) {
            if (error && error_len)
                snprintf(error, error_len, "%s", state[ids[i]].failure);
            status = -1;
        }
    }
    pthread_mutex_unlock(&load_lock);
    return status;
}
