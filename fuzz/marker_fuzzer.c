/* Off CI. libFuzzer harness for the parsers of marker payloads, each run on
 * a copy of exactly the payload's bytes in an allocation of its own, so that
 * AddressSanitizer sees where it ends. (In the whole-file harnesses the
 * payloads libjpeg saves, APP1 Exif and APP2 ICC, sit inside libjpeg's
 * memory pool, where a read past one lands in the pool and goes unseen:
 * that is how the Exif over-read of 2026-11 went unnoticed.)
 *
 * The input is read as a JPEG marker stream (SOI optional): for each
 * segment, its payload goes to the Exif orientation parser (jpeg_exif.c)
 * and, for APP2 "ICC_PROFILE", the profile to the cached lcms2 transform
 * (icc_fast.c); the whole segment, then EOI, goes to the scan layer's
 * marker parser (jpeg_scan.c: DHT, DQT, DRI, SOS), each table it defines to
 * the Huffman table builder, and every scan it names to the progression
 * checks. Build and run: see build.sh (`marker-run`). */
#include "CVipsShim.h"
#include "jpeg_exif.h"
#include "jpeg_scan.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

/* A frame for SOS to name components in: ids 1, 2, 3 (YCbCr, 2x2 luma) or
 * 1 (grey), chosen by the segment's first byte. */
static void fake_frame(struct jpeg_decompress_struct *cinfo, jpeg_component_info *info, js_frame *f,
                       uint8_t choice) {
    memset(cinfo, 0, sizeof *cinfo);
    memset(info, 0, sizeof *info * JS_MAX_COMPONENTS);
    memset(f, 0, sizeof *f);
    int nc = choice & 1 ? 1 : 3;
    cinfo->comp_info = info;
    cinfo->num_components = nc;
    f->nc = nc;
    f->progressive = 1;
    f->hmax = f->vmax = nc == 1 ? 1 : 2;
    for (int c = 0; c < nc; c++) {
        info[c].component_id = c + 1;
        f->comp[c].h = f->comp[c].v = c == 0 ? f->hmax : 1;
        memset(f->comp[c].bits, -1, sizeof f->comp[c].bits);
    }
}

/* The whole segment (marker, length, payload), then EOI, through
 * js_read_markers, from an allocation of exactly that size. */
static void scan_layer(const uint8_t *segment, size_t size) {
    size_t total = size + 2;
    uint8_t *copy = malloc(total);
    if (!copy)
        return;
    memcpy(copy, segment, size);
    copy[size] = 0xFF;
    copy[size + 1] = 0xD9;
    struct jpeg_decompress_struct cinfo;
    jpeg_component_info info[JS_MAX_COMPONENTS];
    js_frame f;
    fake_frame(&cinfo, info, &f, size > 4 ? segment[4] : 0);
    js_stream s;
    memset(&s, 0, sizeof s);
    s.end = copy + total;
    js_scan scan;
    int more = js_read_markers(&s, &cinfo, f.nc, copy, &scan);
    if (more == 1) {
        if (scan.data < copy || scan.data > copy + total)
            __builtin_trap();
        if (js_mcu_fits(&f, &scan))
            js_progression(&f, &scan);
    }
    for (int t = 0; t < JS_TABLES; t++) {
        js_huff h;
        if (s.dc[t].defined)
            js_build_huff(&s.dc[t], &h, 1);
        if (s.ac[t].defined)
            js_build_huff(&s.ac[t], &h, 0);
    }
    free(copy);
}

/* An APP2 ICC_PROFILE chunk's profile, applied to a few pixels. */
static void icc(const uint8_t *payload, size_t size) {
    static const char tag[] = "ICC_PROFILE";
    if (size < sizeof tag + 2 || memcmp(payload, tag, sizeof tag) != 0)
        return;
    size_t length = size - (sizeof tag + 2);
    uint8_t *profile = malloc(length ? length : 1);
    if (!profile)
        return;
    memcpy(profile, payload + sizeof tag + 2, length);
    unsigned char pixels[4 * 3] = { 0, 64, 128, 255, 1, 2, 3, 4, 200, 100, 50, 25 };
    shim_icc_to_srgb8(pixels, 4, 1, 3, profile, length);
    unsigned char grey[4] = { 0, 85, 170, 255 };
    shim_icc_to_srgb8(grey, 4, 1, 1, profile, length);
    free(profile);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    size_t at = 0;
    if (size >= 2 && data[0] == 0xFF && data[1] == 0xD8)
        at = 2;
    while (at + 4 <= size) {
        if (data[at] != 0xFF)
            break;
        int marker = data[at + 1];
        size_t length = (size_t) data[at + 2] << 8 | data[at + 3];
        if (length < 2 || at + 2 + length > size)
            break;
        size_t payload_size = length - 2;
        uint8_t *payload = malloc(payload_size ? payload_size : 1);
        if (!payload)
            break;
        memcpy(payload, data + at + 4, payload_size);
        int orientation = jpeg_exif_orientation(payload, payload_size);
        if (orientation < 1 || orientation > 8)
            __builtin_trap();
        if (marker == 0xE2)
            icc(payload, payload_size);
        free(payload);
        scan_layer(data + at, 2 + length);
        if (marker == 0xDA)
            break; /* entropy-coded data follows */
        at += 2 + length;
    }
    return 0;
}
