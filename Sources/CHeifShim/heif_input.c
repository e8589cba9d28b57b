// libheif's reading of a file (see shim_heif_input in CHeifShim.h): from
// memory, or through a heif_reader whose reads are `pread`s on thumbs'
// descriptor, so that libheif takes into memory the boxes it parses and
// the coded data of what it decodes, never the whole file.
#include "CHeifShim.h"
#include "heif_internal.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

static int64_t reader_position(void *userdata) {
    return ((shim_heif_input *) userdata)->position;
}

/* Fills `data` with `size` bytes from the position on; 0, or -1 when the
 * file ends first or cannot be read (libheif then reports the file as
 * truncated). */
static int reader_read(void *data, size_t size, void *userdata) {
    shim_heif_input *input = userdata;
    if (input->position < 0 || (uint64_t) input->position + size > input->len)
        return -1;
    size_t done = 0;
    while (done < size) {
        ssize_t n = pread(input->fd, (char *) data + done, size - done, (off_t) input->position + (off_t) done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        done += (size_t) n;
    }
    input->position += (int64_t) size;
    input->bytes_read += size;
    return 0;
}

static int reader_seek(int64_t position, void *userdata) {
    shim_heif_input *input = userdata;
    if (position < 0 || (uint64_t) position > input->len)
        return -1;
    input->position = position;
    return 0;
}

/* The file does not grow: a size past its end is never reached. */
static enum heif_reader_grow_status reader_wait_for_file_size(int64_t target_size, void *userdata) {
    shim_heif_input *input = userdata;
    return target_size >= 0 && (uint64_t) target_size <= input->len ? heif_reader_grow_status_size_reached
                                                                      : heif_reader_grow_status_size_beyond_eof;
}

static const struct heif_reader descriptor_reader = {
    .reader_api_version = 1,
    .get_position = reader_position,
    .read = reader_read,
    .seek = reader_seek,
    .wait_for_file_size = reader_wait_for_file_size,
};

struct heif_error heif_read_input(struct heif_context *ctx, shim_heif_input *input) {
    if (input->buf)
        return heif_context_read_from_memory_without_copy(ctx, input->buf, input->len, NULL);
    input->position = 0;
    return heif_context_read_from_reader(ctx, &descriptor_reader, input, NULL);
}
