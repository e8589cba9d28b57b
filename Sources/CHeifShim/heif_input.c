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

/* Copies `n` bytes at `at` of the file into `dst`; 0, or -1 past its end or
 * when it cannot be read. Counted in bytes_read, as libheif's reads are. */
static int read_at(shim_heif_input *input, uint64_t at, uint8_t *dst, size_t n) {
    if (at > input->len || n > input->len - at)
        return -1;
    if (input->buf) {
        for (size_t i = 0; i < n; i++)
            dst[i] = ((const uint8_t *) input->buf)[at + i];
        return 0;
    }
    size_t done = 0;
    while (done < n) {
        ssize_t got = pread(input->fd, dst + done, n - done, (off_t) (at + done));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        done += (size_t) got;
    }
    input->bytes_read += n;
    return 0;
}

static uint32_t be32(const uint8_t *p) {
    return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3];
}

#define FOURCC(a, b, c, d) ((uint32_t) (a) << 24 | (uint32_t) (b) << 16 | (uint32_t) (c) << 8 | (uint32_t) (d))

/* The box at `at`, which must end by `end`: its type, where its content
 * starts and where it ends. 0, or -1 when it does not fit. */
static int box_at(shim_heif_input *input, uint64_t at, uint64_t end, uint32_t *type, uint64_t *content,
                  uint64_t *box_end) {
    uint8_t header[16];
    if (end < at || end - at < 8 || read_at(input, at, header, 8) != 0)
        return -1;
    uint64_t size = be32(header);
    *type = be32(header + 4);
    *content = at + 8;
    if (size == 1) {
        if (end - at < 16 || read_at(input, at + 8, header + 8, 8) != 0)
            return -1;
        size = (uint64_t) be32(header + 8) << 32 | be32(header + 12);
        *content = at + 16;
    } else if (size == 0) {
        size = end - at;
    }
    if (size < *content - at || size > end - at)
        return -1;
    *box_end = at + size;
    return 0;
}

/* The first child of type `want` in [at, end): its content and end. 0, or -1. */
static int find_box(shim_heif_input *input, uint64_t at, uint64_t end, uint32_t want, uint64_t *content,
                    uint64_t *box_end) {
    while (at < end) {
        uint32_t type;
        if (box_at(input, at, end, &type, content, box_end) != 0)
            return -1;
        if (type == want)
            return 0;
        at = *box_end;
    }
    return -1;
}

/* The top-level meta box's children (past its version and flags) and the
 * primary item's id (pitm). 0, or -1. */
static int find_meta(shim_heif_input *input, uint64_t *meta, uint64_t *meta_end, uint32_t *primary) {
    uint64_t c, e;
    uint8_t b[8];
    if (find_box(input, 0, input->len, FOURCC('m', 'e', 't', 'a'), meta, meta_end) != 0)
        return -1;
    *meta += 4; /* a full box: version and flags */
    if (find_box(input, *meta, *meta_end, FOURCC('p', 'i', 't', 'm'), &c, &e) != 0 || read_at(input, c, b, 4) != 0)
        return -1;
    if (b[0] == 0) {
        if (read_at(input, c + 4, b + 4, 2) != 0)
            return -1;
        *primary = (uint32_t) b[4] << 8 | b[5];
    } else {
        if (read_at(input, c + 4, b + 4, 4) != 0)
            return -1;
        *primary = be32(b + 4);
    }
    return 0;
}

int heif_primary_is_grid(shim_heif_input *input) {
    uint64_t meta, meta_end, iinf, iinf_end, c, e;
    uint32_t primary, type;
    uint8_t b[16];
    if (find_meta(input, &meta, &meta_end, &primary) != 0 ||
        find_box(input, meta, meta_end, FOURCC('i', 'i', 'n', 'f'), &iinf, &iinf_end) != 0 ||
        read_at(input, iinf, b, 1) != 0)
        return -1;
    /* Version and flags, then a count of 16 bits (version 0) or 32. */
    for (uint64_t at = iinf + 4 + (b[0] == 0 ? 2 : 4); at < iinf_end; at = e) {
        if (box_at(input, at, iinf_end, &type, &c, &e) != 0)
            return -1;
        /* infe of version 2 (16-bit item id) or 3 (32-bit): the id, a
         * protection index of 16 bits, the item type. */
        if (type != FOURCC('i', 'n', 'f', 'e') || e - c < 12 || read_at(input, c, b, 12) != 0 || b[0] < 2)
            continue;
        if (b[0] > 2 && (e - c < 14 || read_at(input, c + 12, b + 12, 2) != 0))
            return -1;
        uint32_t item = b[0] == 2 ? ((uint32_t) b[4] << 8 | b[5]) : be32(b + 4);
        if (item == primary)
            return be32(b + (b[0] == 2 ? 8 : 10)) == FOURCC('g', 'r', 'i', 'd');
    }
    return -1;
}

/* ipco holds at most this many properties here (indices of 15 bits are
 * allowed; a phone's file has a few dozen). */
#define MAX_PROPERTIES 1024

int heif_primary_rotation(shim_heif_input *input) {
    uint64_t meta, meta_end, c, e, iprp, iprp_end, ipco, ipco_end, ipma, ipma_end;
    uint8_t b[8];
    uint32_t primary;
    if (find_meta(input, &meta, &meta_end, &primary) != 0)
        return -1;
    if (find_box(input, meta, meta_end, FOURCC('i', 'p', 'r', 'p'), &iprp, &iprp_end) != 0 ||
        find_box(input, iprp, iprp_end, FOURCC('i', 'p', 'c', 'o'), &ipco, &ipco_end) != 0 ||
        find_box(input, iprp, iprp_end, FOURCC('i', 'p', 'm', 'a'), &ipma, &ipma_end) != 0)
        return -1;
    /* A second ipma may hold more associations: not read here. */
    uint32_t type;
    if (find_box(input, ipma_end, iprp_end, FOURCC('i', 'p', 'm', 'a'), &c, &e) == 0)
        return -1;
    /* The properties, numbered from 1: their types and where their content is. */
    uint32_t types[MAX_PROPERTIES + 1];
    uint64_t contents[MAX_PROPERTIES + 1];
    int count = 0;
    for (uint64_t at = ipco; at < ipco_end; at = e) {
        if (count == MAX_PROPERTIES || box_at(input, at, ipco_end, &type, &c, &e) != 0)
            return -1;
        count++;
        types[count] = type;
        contents[count] = c;
    }
    /* The primary item's associations. */
    if (read_at(input, ipma, b, 8) != 0)
        return -1;
    int version = b[0], wide = b[3] & 1;
    uint32_t entries = be32(b + 4);
    uint64_t at = ipma + 8;
    for (uint32_t i = 0; i < entries; i++) {
        uint32_t item;
        if (at + (version < 1 ? 3 : 5) > ipma_end)
            return -1;
        if (version < 1) {
            if (read_at(input, at, b, 3) != 0)
                return -1;
            item = (uint32_t) b[0] << 8 | b[1];
            at += 3;
        } else {
            if (read_at(input, at, b, 5) != 0)
                return -1;
            item = be32(b);
            at += 5;
        }
        int associations = b[version < 1 ? 2 : 4];
        size_t each = wide ? 2 : 1;
        if ((uint64_t) associations * each > ipma_end - at)
            return -1;
        if (item != primary) {
            at += (uint64_t) associations * each;
            continue;
        }
        int angle = 0, rotations = 0;
        for (int a = 0; a < associations; a++, at += each) {
            if (read_at(input, at, b, each) != 0)
                return -1;
            int index = wide ? ((b[0] & 0x7f) << 8 | b[1]) : (b[0] & 0x7f);
            if (index == 0)
                continue;
            if (index > count)
                return -1;
            if (types[index] == FOURCC('i', 'm', 'i', 'r') || types[index] == FOURCC('c', 'l', 'a', 'p'))
                return -1;
            if (types[index] == FOURCC('i', 'r', 'o', 't')) {
                if (read_at(input, contents[index], b + 2, 1) != 0)
                    return -1;
                angle = (b[2] & 3) * 90;
                rotations++;
            }
        }
        return rotations <= 1 ? angle : -1;
    }
    return 0;
}
