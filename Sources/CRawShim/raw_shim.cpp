// Camera RAWs through LibRaw's C++ class (the thread-safe libraw_r), for
// CRawShim.h. C++ to reach what the C API hides: where the thumbnail's bytes
// are in the file (so that thumbs decodes the preview in place, without
// LibRaw copying it), and LibRaw's datastreams (`BoundedStream`: an open
// file read by ranges, and a budget on LibRaw's reads).

#include "CRawShim.h"

#include <dlfcn.h>
#include <libraw.h>

#include <unistd.h>

#include <cerrno>
#include <cstdint>
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


/// `omp_in_parallel` of the libgomp LibRaw loaded (false without one).
bool in_parallel_region() {
    typedef int (*in_parallel_fn)(void);
    static in_parallel_fn in_parallel =
        reinterpret_cast<in_parallel_fn>(dlsym(RTLD_DEFAULT, "omp_in_parallel"));
    return in_parallel && in_parallel() != 0;
}

/// LibRaw's input, from memory or from an open file, with a budget.
///
/// From a file: pread through a 64 KiB window, so that opening a RAW reads
/// its directories and maker notes (a few small reads) instead of the whole
/// file, and a development reads the sensor data once, in large reads
/// straight into LibRaw's buffers. The descriptor is the caller's (never
/// closed here); a read error ends the data there (LibRaw then reports its
/// own "unexpected end"). From memory the whole buffer is the window.
/// Positions and lengths are clamped to the size as LibRaw's own
/// LibRaw_buffer_datastream clamps them.
///
/// The budget: some of LibRaw's parsers loop on counts read from the file
/// (parse_phase_one walks up to 2^32 entries of a damaged IIQ, reading on
/// past its end for minutes). Past a million reads at the end of the
/// data, or far more reads than any parse or decode of this many bytes
/// makes, the stream throws LibRaw's I/O exception, which LibRaw turns into
/// LIBRAW_IO_ERROR; never inside one of LibRaw's OpenMP regions (an
/// exception must not leave one), where the reads just see the end.
/// Only I/O: no byte of the file is interpreted here (scanf_one excepted,
/// on a NUL-terminated copy of at most 63 bytes).
class BoundedStream : public LibRaw_abstract_datastream {
  public:
    BoundedStream(const unsigned char *buf, INT64 size, Complaint *complaint)
        : fd_(-1), size_(size < 0 ? 0 : size), complaint_(complaint), window_(buf), window_length_((size_t) size_),
          own_(nullptr) {
        set_budget();
    }

    BoundedStream(int fd, INT64 size, Complaint *complaint)
        : fd_(fd), size_(size < 0 ? 0 : size), complaint_(complaint), window_(nullptr), window_length_(0),
          own_(static_cast<unsigned char *>(malloc(kWindow))) {
        window_ = own_;
        set_budget();
    }

    ~BoundedStream() override { free(own_); }
    BoundedStream(const BoundedStream &) = delete;
    BoundedStream &operator=(const BoundedStream &) = delete;

    int valid() override { return window_ != nullptr; }

    int read(void *ptr, size_t size, size_t nmemb) override {
        spend();
        if (size == 0 || nmemb == 0 || pos_ >= size_)
            return 0;
        size_t want = nmemb > SIZE_MAX / size ? SIZE_MAX : size * nmemb;
        if ((uint64_t) want > (uint64_t) (size_ - pos_))
            want = (size_t) (size_ - pos_);
        unsigned char *out = static_cast<unsigned char *>(ptr);
        size_t done = 0;
        while (done < want) {
            if (in_window()) {
                size_t at = (size_t) (pos_ - window_start_);
                size_t n = window_length_ - at;
                if (n > want - done)
                    n = want - done;
                memcpy(out + done, window_ + at, n);
                done += n;
                pos_ += (INT64) n;
            } else if (fd_ < 0) {
                break;
            } else if (want - done >= kWindow) {
                // Large reads (sensor data) go straight to LibRaw's buffer.
                ssize_t n = read_at(out + done, want - done, pos_);
                if (n <= 0)
                    break;
                done += (size_t) n;
                pos_ += n;
            } else if (!fill()) {
                break;
            }
        }
        // Whole elements read, rounded up (as LibRaw_buffer_datastream counts).
        return (int) ((done + size - 1) / size);
    }

    int seek(INT64 o, int whence) override {
        spend();
        INT64 base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? pos_ : whence == SEEK_END ? size_ : -1;
        if (base < 0)
            return 0;
        INT64 to;
        if (o > 0 && base > INT64_MAX - o)
            to = size_;
        else
            to = base + o;
        pos_ = to < 0 ? 0 : to > size_ ? size_ : to;
        return 0;
    }

    INT64 tell() override { return pos_; }
    INT64 size() override { return size_; }

    int get_char() override {
        spend();
        return next();
    }

    /// fgets: up to `sz` - 1 bytes, through the first newline.
    char *gets(char *s, int sz) override {
        spend();
        if (!s || sz < 1 || pos_ >= size_)
            return nullptr;
        int n = 0;
        while (n < sz - 1) {
            int c = next();
            if (c < 0)
                break;
            s[n++] = (char) c;
            if (c == '\n')
                break;
        }
        s[n] = 0;
        return s;
    }

    /// One sscanf conversion at the position, which then moves past the
    /// token (at most 24 bytes), as LibRaw_buffer_datastream does.
    int scanf_one(const char *fmt, void *val) override {
        spend();
        if (pos_ >= size_)
            return 0;
        char text[64];
        INT64 start = pos_;
        int n = 0;
        while (n < (int) sizeof text - 1) {
            int c = next();
            if (c < 0)
                break;
            text[n++] = (char) c;
        }
        text[n] = 0;
        pos_ = start;
        int result = sscanf(text, fmt, val);
        if (result > 0) {
            int skipped = 0;
            while (pos_ < size_) {
                pos_++;
                skipped++;
                int at = (int) (pos_ - start);
                char c = at < n ? text[at] : 0;
                if (c == 0 || c == ' ' || c == '\t' || c == '\n' || skipped > 24)
                    break;
            }
        }
        return result;
    }

    int eof() override { return pos_ >= size_; }
    void *make_jas_stream() override { return nullptr; }

  private:
    static const size_t kWindow = 64 << 10;
    static const unsigned long long kPastEnd = 1000000;

    /// Reads allowed: 16 a byte and 8 million more. LibRaw's bit readers
    /// take a call a byte, some parsers a few; no real file comes near.
    void set_budget() { budget_ = 16ULL * (unsigned long long) size_ + (8ULL << 20); }

    /// One read or seek; throws when the budget is spent (see above).
    void spend() {
        operations_++;
        if (pos_ >= size_)
            past_end_++;
        if ((past_end_ > kPastEnd || operations_ > budget_) && !in_parallel_region()) {
            if (complaint_ && !complaint_->set) {
                complaint_->set = true;
                snprintf(complaint_->text, sizeof complaint_->text, "it kept reading %s: a damaged or hostile file",
                         past_end_ > kPastEnd ? "past the end of the file" : "the same bytes over and over");
            }
            throw LIBRAW_EXCEPTION_IO_CORRUPT;
        }
    }

    /// The byte at the position, or -1 at the end.
    int next() {
        if (pos_ >= size_ || (!in_window() && (fd_ < 0 || !fill())))
            return -1;
        unsigned char c = window_[pos_ - window_start_];
        pos_++;
        return c;
    }

    bool in_window() const { return pos_ >= window_start_ && pos_ < window_start_ + (INT64) window_length_; }

    /// The window at the position (from the file); false at the end or on a read error.
    bool fill() {
        window_start_ = pos_;
        window_length_ = 0;
        ssize_t n = read_at(own_, kWindow, pos_);
        if (n <= 0)
            return false;
        window_length_ = (size_t) n;
        return true;
    }

    /// Up to `count` bytes at `offset` (short only at the end of the file).
    ssize_t read_at(unsigned char *to, size_t count, INT64 offset) const {
        size_t done = 0;
        while (done < count) {
            ssize_t n = pread(fd_, to + done, count - done, (off_t) (offset + (INT64) done));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            done += (size_t) n;
        }
        return done > 0 ? (ssize_t) done : -1;
    }

    int fd_;
    INT64 size_;
    Complaint *complaint_;
    const unsigned char *window_;
    size_t window_length_;
    unsigned char *own_;
    INT64 pos_ = 0;
    INT64 window_start_ = 0;
    unsigned long long operations_ = 0;
    unsigned long long past_end_ = 0;
    unsigned long long budget_ = 0;
};

/// A LibRaw object on the heap (it is large), quiet, with its complaints kept.
struct Session {
    LibRaw *raw;
    Complaint complaint;
    /// LibRaw's input (LibRaw does not own it).
    BoundedStream *stream;

    Session() : raw(new (std::nothrow) LibRaw(LIBRAW_OPTIONS_NONE)), complaint(), stream(nullptr) {
        if (raw) {
            raw->set_dataerror_handler(on_data_error, &complaint);
            raw->set_memerror_handler(on_memory_error, &complaint);
        }
    }
    ~Session() {
        delete raw;
        delete stream;
    }
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

    int open(const shim_raw_input &input) {
        if (input.len > (size_t) INT64_MAX)
            return LIBRAW_TOO_BIG;
        if (input.buf)
            stream = new (std::nothrow)
                BoundedStream(static_cast<const unsigned char *>(input.buf), (INT64) input.len, &complaint);
        else if (input.fd >= 0)
            stream = new (std::nothrow) BoundedStream(input.fd, (INT64) input.len, &complaint);
        else
            return LIBRAW_IO_ERROR;
        if (!stream || !stream->valid())
            return LIBRAW_UNSUFFICIENT_MEMORY;
        return raw->open_datastream(stream);
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

extern "C" int shim_raw_facts_read(shim_raw_input input, shim_raw_facts *facts, char *message,
                                   size_t message_length) {
    try {
        memset(facts, 0, sizeof *facts);
        facts->thumb_offset = -1;
        Session session;
        if (!session.raw)
            return session.fail(LIBRAW_UNSUFFICIENT_MEMORY, message, message_length);
        int code = session.open(input);
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

extern "C" int shim_raw_develop(shim_raw_input input, int half_size, int threads, long long max_raw_pixels,
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
        int code = session.open(input);
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
