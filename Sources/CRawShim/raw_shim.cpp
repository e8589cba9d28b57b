// Camera RAWs through LibRaw's C++ class (the thread-safe libraw_r), for
// CRawShim.h. C++ only to reach what the C API hides: where the thumbnail's
// bytes are in the file (so that thumbs decodes the preview in place,
// without LibRaw copying it).

#include "CRawShim.h"

#include <dlfcn.h>
#include <libraw.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

namespace {

/// The first message LibRaw's callbacks report, instead of its default
/// handlers, which print to stderr.
struct Complaint {
    char text[160];
    bool set;
};

void on_data_error(void *data, const char * /*file*/, const int offset) {
    Complaint *complaint = static_cast<Complaint *>(data);
    if (complaint->set)
        return;
    complaint->set = true;
    if (offset < 0)
        snprintf(complaint->text, sizeof complaint->text, "unexpected end of file");
    else
        snprintf(complaint->text, sizeof complaint->text, "corrupt data near byte %d", offset);
}

void on_memory_error(void *data, const char * /*file*/, const char *where) {
    Complaint *complaint = static_cast<Complaint *>(data);
    if (complaint->set)
        return;
    complaint->set = true;
    snprintf(complaint->text, sizeof complaint->text, "out of memory in %s", where ? where : "LibRaw");
}

/// A LibRaw object on the heap (it is large), quiet, with its complaints kept.
struct Session {
    LibRaw *raw;
    Complaint complaint;

    Session() : raw(new (std::nothrow) LibRaw(LIBRAW_OPTIONS_NONE)), complaint() {
        if (raw) {
            raw->set_dataerror_handler(on_data_error, &complaint);
            raw->set_memerror_handler(on_memory_error, &complaint);
        }
    }
    ~Session() { delete raw; }
    Session(const Session &) = delete;
    Session &operator=(const Session &) = delete;

    /// LibRaw's words for `code`, with what its callbacks said.
    int fail(int code, char *message, size_t length) const {
        if (message && length) {
            const char *words = libraw_strerror(code);
            if (complaint.set)
                snprintf(message, length, "%s (%s)", words, complaint.text);
            else
                snprintf(message, length, "%s", words);
        }
        return code == 0 ? LIBRAW_UNSPECIFIED_ERROR : code;
    }

    int open(const void *buf, size_t len) {
        // LibRaw only reads the buffer; its API takes it non-const.
        return raw->open_buffer(const_cast<void *>(buf), len);
    }
};

/// LibRaw's flip (dcraw's) as an EXIF orientation.
int orientation_of_flip(int flip) {
    static const int table[8] = {1, 2, 4, 3, 5, 8, 6, 7};
    return flip >= 0 && flip < 8 ? table[flip] : 1;
}

/// OpenMP threads for the calling thread's later parallel regions, through
/// the libgomp LibRaw loaded (looked up, so thumbs does not link it itself).
void limit_threads(int threads) {
    typedef void (*set_threads_fn)(int);
    static set_threads_fn set_threads =
        reinterpret_cast<set_threads_fn>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
    if (set_threads)
        set_threads(threads < 1 ? 1 : threads);
}

void copy_text(char *to, size_t size, const char *from) {
    snprintf(to, size, "%s", from);
}

} // namespace

extern "C" int shim_raw_facts_read(const void *buf, size_t len, shim_raw_facts *facts, char *message,
                                   size_t message_length) {
    try {
        memset(facts, 0, sizeof *facts);
        facts->thumb_offset = -1;
        Session session;
        if (!session.raw)
            return session.fail(LIBRAW_UNSUFFICIENT_MEMORY, message, message_length);
        int code = session.open(buf, len);
        if (code != LIBRAW_SUCCESS)
            return session.fail(code, message, message_length);
        const libraw_data_t &data = session.raw->imgdata;
        // LibRaw's output size (Fuji's 45° sensors turned, pixel aspect
        // applied), as stored: its flip swaps the sides back.
        int flip = data.sizes.flip;
        session.raw->adjust_sizes_info_only();
        bool swapped = (flip & 4) != 0;
        facts->width = swapped ? data.sizes.iheight : data.sizes.iwidth;
        facts->height = swapped ? data.sizes.iwidth : data.sizes.iheight;
        facts->raw_width = data.sizes.raw_width;
        facts->raw_height = data.sizes.raw_height;
        facts->orientation = orientation_of_flip(flip);
        copy_text(facts->make, sizeof facts->make, data.idata.make);
        copy_text(facts->model, sizeof facts->model, data.idata.model);
        facts->colors = data.idata.colors;
        facts->thumb_format = data.thumbnail.tformat;
        facts->thumb_width = data.thumbnail.twidth;
        facts->thumb_height = data.thumbnail.theight;
        facts->thumb_length = data.thumbnail.tlength;
        libraw_internal_data_t *internal = session.raw->get_internal_data_pointer();
        facts->thumb_offset = internal ? internal->internal_data.toffset : -1;
        return 0;
    } catch (...) {
        if (message && message_length)
            snprintf(message, message_length, "LibRaw failed to open the file");
        return LIBRAW_UNSPECIFIED_ERROR;
    }
}

extern "C" int shim_raw_develop(const void *buf, size_t len, int half_size, int threads, long long max_raw_pixels,
                                shim_raw_image *out, char *message, size_t message_length) {
    unsigned char *pixels = nullptr;
    try {
        memset(out, 0, sizeof *out);
        limit_threads(threads);
        Session session;
        if (!session.raw)
            return session.fail(LIBRAW_UNSUFFICIENT_MEMORY, message, message_length);
        libraw_output_params_t &params = session.raw->imgdata.params;
        params.half_size = half_size ? 1 : 0;
        params.output_bps = 8;
        params.output_color = 1;  // sRGB
        params.use_camera_wb = 1;
        params.user_flip = 0;     // stored orientation: the caller tags the flip
        params.user_qual = 0;     // bilinear: a thumbnail is a reduction anyway
        int code = session.open(buf, len);
        if (code != LIBRAW_SUCCESS)
            return session.fail(code, message, message_length);
        const libraw_data_t &data = session.raw->imgdata;
        long long sensor = (long long) data.sizes.raw_width * (long long) data.sizes.raw_height;
        if (sensor <= 0 || sensor > max_raw_pixels)
            return session.fail(LIBRAW_TOO_BIG, message, message_length);
        if ((code = session.raw->unpack()) != LIBRAW_SUCCESS)
            return session.fail(code, message, message_length);
        // LibRaw goes on past damaged or missing data (zeros) after telling
        // its callback: that is a failed file here, not a picture.
        if (session.complaint.set)
            return session.fail(LIBRAW_DATA_ERROR, message, message_length);
        if ((code = session.raw->dcraw_process()) != LIBRAW_SUCCESS)
            return session.fail(code, message, message_length);
        int width = 0, height = 0, colors = 0, bps = 0;
        session.raw->get_mem_image_format(&width, &height, &colors, &bps);
        if (width <= 0 || height <= 0 || bps != 8 || (colors != 1 && colors != 3))
            return session.fail(LIBRAW_UNSPECIFIED_ERROR, message, message_length);
        size_t stride = (size_t) width * (size_t) colors;
        pixels = static_cast<unsigned char *>(malloc(stride * (size_t) height));
        if (!pixels)
            return session.fail(LIBRAW_UNSUFFICIENT_MEMORY, message, message_length);
        if ((code = session.raw->copy_mem_image(pixels, (int) stride, 0)) != LIBRAW_SUCCESS) {
            free(pixels);
            return session.fail(code, message, message_length);
        }
        out->pixels = pixels;
        out->width = (size_t) width;
        out->height = (size_t) height;
        out->bands = colors;
        return 0;
    } catch (...) {
        free(pixels);
        memset(out, 0, sizeof *out);
        if (message && message_length)
            snprintf(message, message_length, "LibRaw failed to develop the file");
        return LIBRAW_UNSPECIFIED_ERROR;
    }
}
