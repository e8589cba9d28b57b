/* The thumbnail's JPEG, straight from its pixels in memory.
 *
 * vips_jpegsave_buffer runs its sink: a pool of worker threads, a
 * write-behind thread and a semaphore handshake per strip. For a 256 px
 * thumbnail that machinery costs three times the encode itself (about
 * 0.9 ms of CPU against 0.25 ms, and some 120 futex calls per image).
 * A thumbnail's pixels are already in one buffer, so this file hands them
 * to libjpeg directly, with the settings jpegsave uses when it strips the
 * metadata: no JFIF header, libjpeg's default tables scaled by the
 * quality, 4:2:0 chroma below quality 90 and 4:4:4 from 90 (jpegsave's
 * "auto" subsampling), baseline, no Huffman optimisation. The bytes are
 * the same as jpegsave's (ThumbnailEncoderTests compares them).
 *
 * Only what jpegsave would write unchanged is taken here: 8-bit sRGB with
 * three bands or grey with one, held in memory. Anything else (alpha,
 * 16-bit, other colour spaces, a lazy pipeline, metadata to keep) returns
 * SHIM_JPEG_ENCODE_NOT_MINE and the caller saves with libvips.
 */
#include "CVipsShim.h"

#include <jpeglib.h>
#include <jerror.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct encode_error {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
};

static void encode_error_exit(j_common_ptr cinfo) {
    struct encode_error *err = (struct encode_error *) cinfo->err;
    (*cinfo->err->format_message)(cinfo, err->message);
    longjmp(err->jump, 1);
}

/* libjpeg's warnings (none are expected when compressing) are not errors. */
static void encode_output_message(j_common_ptr cinfo) { (void) cinfo; }

/* A destination that grows one malloc'd buffer this file owns, so that a
 * failure half-way frees exactly that buffer (libjpeg's jpeg_mem_dest
 * keeps its current buffer to itself until the end). */
struct growing_destination {
    struct jpeg_destination_mgr pub;
    unsigned char *buffer;
    size_t size;
};

static void destination_init(j_compress_ptr cinfo) {
    struct growing_destination *d = (struct growing_destination *) cinfo->dest;
    d->pub.next_output_byte = d->buffer;
    d->pub.free_in_buffer = d->size;
}

static boolean destination_grow(j_compress_ptr cinfo) {
    struct growing_destination *d = (struct growing_destination *) cinfo->dest;
    size_t used = d->size;
    unsigned char *bigger = realloc(d->buffer, d->size * 2);
    if (!bigger) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 0);
    d->buffer = bigger;
    d->size *= 2;
    d->pub.next_output_byte = bigger + used;
    d->pub.free_in_buffer = d->size - used;
    return TRUE;
}

static void destination_term(j_compress_ptr cinfo) { (void) cinfo; }

int shim_jpeg_encode_memory(VipsImage *in, int quality, unsigned char **buf, size_t *len,
                            char *message, size_t message_size) {
    *buf = NULL;
    *len = 0;
    if (in->Coding != VIPS_CODING_NONE || in->BandFmt != VIPS_FORMAT_UCHAR)
        return SHIM_JPEG_ENCODE_NOT_MINE;
    if (!((in->Bands == 3 && in->Type == VIPS_INTERPRETATION_sRGB) ||
          (in->Bands == 1 && in->Type == VIPS_INTERPRETATION_B_W)))
        return SHIM_JPEG_ENCODE_NOT_MINE;
    if (!shim_image_in_memory(in))
        return SHIM_JPEG_ENCODE_NOT_MINE;
    /* JPEG's limit; jpegsave refuses larger images too. */
    if (in->Xsize < 1 || in->Ysize < 1 || in->Xsize > JPEG_MAX_DIMENSION || in->Ysize > JPEG_MAX_DIMENSION)
        return SHIM_JPEG_ENCODE_NOT_MINE;
    if (quality < 1) quality = 1;
    if (quality > 100) quality = 100;

    struct jpeg_compress_struct cinfo;
    struct encode_error err;
    struct growing_destination dest;
    memset(&cinfo, 0, sizeof cinfo);
    memset(&dest, 0, sizeof dest);
    cinfo.err = jpeg_std_error(&err.pub);
    err.pub.error_exit = encode_error_exit;
    err.pub.output_message = encode_output_message;
    err.message[0] = '\0';
    /* A quarter of the raw pixels holds a thumbnail at any usual quality;
     * the buffer doubles when it does not. */
    dest.size = (size_t) in->Xsize * (size_t) in->Ysize * (size_t) in->Bands / 4 + 4096;
    dest.buffer = malloc(dest.size);
    if (!dest.buffer) {
        snprintf(message, message_size, "out of memory for a %zu-byte JPEG buffer", dest.size);
        return -1;
    }
    dest.pub.init_destination = destination_init;
    dest.pub.empty_output_buffer = destination_grow;
    dest.pub.term_destination = destination_term;

    if (setjmp(err.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(dest.buffer);
        snprintf(message, message_size, "libjpeg: %s", err.message);
        return -1;
    }
    jpeg_create_compress(&cinfo);
    cinfo.dest = &dest.pub;
    cinfo.image_width = (JDIMENSION) in->Xsize;
    cinfo.image_height = (JDIMENSION) in->Ysize;
    cinfo.input_components = in->Bands;
    cinfo.in_color_space = in->Bands == 3 ? JCS_RGB : JCS_GRAYSCALE;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    /* jpegsave writes no JFIF header when it strips the metadata. */
    cinfo.write_JFIF_header = FALSE;
    /* jpegsave's "auto" chroma subsampling: none from quality 90 on. */
    if (in->Bands == 3 && quality >= 90) {
        cinfo.comp_info[0].h_samp_factor = 1;
        cinfo.comp_info[0].v_samp_factor = 1;
    }
    jpeg_start_compress(&cinfo, TRUE);
    size_t stride = VIPS_IMAGE_SIZEOF_LINE(in);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW) (in->data + (size_t) cinfo.next_scanline * stride);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    size_t length = dest.size - dest.pub.free_in_buffer;
    jpeg_destroy_compress(&cinfo);
    *buf = dest.buffer;
    *len = length;
    return 0;
}
