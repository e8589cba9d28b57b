/* The pictures a camera file carries besides its main one, and the facts
 * that say whether the main picture changed after the camera wrote it
 * (issue 35). Untrusted bytes, straight from the file.
 *
 * A JPEG's pictures are named by its APP segments, read up to the first
 * scan (SOS):
 * - APP2 "MPF": the Multi-Picture Format index (CIPA DC-007), whose
 *   16-byte entries give each image's type, size and offset from the MPF
 *   header; entry offset 0 is the main picture itself;
 * - APP1 Exif: IFD1's thumbnail (JPEGInterchangeFormat), and the maker
 *   note's preview, in the layouts checked against real cameras' files:
 *   Nikon type 3 ("Nikon\0" 2.x: its own TIFF header; PreviewIFD 0x0011,
 *   whose 0x0201/0x0202 count from that header), Pentax ("AOC\0": 0x0003
 *   length, 0x0004 start, from the Exif header; "PENTAX \0": from the note),
 *   Olympus (0x1036 start and 0x1037 length in the note's directory, or
 *   0x0101 and 0x0102 in its CameraSettings, 0x2020; from the note for
 *   "OLYMPUS\0" and "OM SYSTEM", from the Exif header for "OLYMP\0"),
 *   Sony Ericsson ("SEMC MS\0": a TIFF header at +12 from which the note's
 *   offsets count, the directory at +20; 0x0201 start, 0x0202 length),
 *   Casio type 2 ("QVC\0": the directory at +6, 0x2000 PreviewImage),
 *   Samsung ("STMN" and 3 digits: binary, the start from the file's first
 *   byte at +8, the length at +12), and the headerless notes of Nikon's
 *   Coolpix (PreviewIFD as type 3's) and Minolta's DiMAGE (0x0088 start,
 *   0x0089 length), read by the file's Make alone; Casio's and the
 *   headerless ones count their offsets from the Exif header.
 *   Canon, Sony, Fujifilm and Panasonic cameras' JPEGs carry their
 *   previews as MPF images: exiftool finds no maker-note preview in
 *   Canon's or Fujifilm's, and Sony's 0x2001 (Alpha and NEX bodies up to
 *   the ILCE-7R) is a copy inside the MPF image behind a 32-byte header,
 *   its SOI's 0xFF written as 0x00, so not read (the DSLR-A200 to A900,
 *   which write no MPF, have only that copy; no file of theirs was at
 *   hand to check it against). A maker note is read only when the file's
 *   Make names the same maker as the note's header.
 * A TIFF RAW's pictures are every IFD and SubIFD image (strips), each
 * JPEGInterchangeFormat, Panasonic's 0x002E, and the maker note's preview.
 * Given the file's first bytes only, a RAW is listed as far as they reach,
 * and `wanted` says how far the directories it could not read lie.
 *
 * Every read goes through `readable`, in the form `at <= end && n <= end -
 * at` with 64-bit positions (offsets from the file are 32-bit, so no sum
 * wraps); a TIFF structure's directories are read only inside the segment
 * that holds it. Every offset a picture is given at is checked against the
 * file's size; directories visited, MPF entries and pictures listed are
 * capped (SHIM_EP_MAX_*), and a directory is never visited twice, so a
 * chain that loops ends.
 */
#include "CVipsEmbeddedPictures.h"
#include "jpeg_exif.h"

#include <string.h>

/* TIFF: byte order (2), magic (2), first IFD (4); an IFD: a count (2),
 * 12-byte entries, the next IFD's offset (4). */
#define TIFF_HEADER 8
#define IFD_ENTRY 12
#define TYPE_ASCII 2
#define TYPE_SHORT 3
#define TYPE_LONG 4
#define TYPE_UNDEFINED 7
#define TYPE_IFD 13
/* A picture's last bytes searched for its EOI past zero padding. */
#define EOI_PADDING 64
/* Bytes of any value a picture may carry after its EOI (ends_in_eoi). */
#define EOI_TRAILER 8
/* SubIFDs followed from one directory, strips summed for one image. */
#define MAX_SUBIFDS 16
#define MAX_STRIPS 4096

enum {
    TAG_NEW_SUBFILE = 0x00FE, TAG_WIDTH = 0x0100, TAG_HEIGHT = 0x0101, TAG_COMPRESSION = 0x0103,
    TAG_MAKE = 0x010F, TAG_MODEL = 0x0110, TAG_STRIP_OFFSETS = 0x0111, TAG_ORIENTATION = 0x0112,
    TAG_STRIP_COUNTS = 0x0117, TAG_SOFTWARE = 0x0131, TAG_DATE_TIME = 0x0132, TAG_TILE_OFFSETS = 0x0144,
    TAG_TILE_COUNTS = 0x0145, TAG_SUBIFDS = 0x014A, TAG_JPEG_OFFSET = 0x0201, TAG_JPEG_LENGTH = 0x0202,
    TAG_EXIF_IFD = 0x8769, TAG_DATE_ORIGINAL = 0x9003, TAG_MAKER_NOTE = 0x927C, TAG_PIXEL_X = 0xA002,
    TAG_PIXEL_Y = 0xA003, TAG_PANASONIC_JPG_FROM_RAW = 0x002E,
    TAG_MPF_ENTRIES = 0xB002,
    TAG_NIKON_PREVIEW_IFD = 0x0011,
    TAG_PENTAX_PREVIEW_LENGTH = 0x0003, TAG_PENTAX_PREVIEW_START = 0x0004,
    TAG_OLYMPUS_CAMERA_SETTINGS = 0x2020,
    TAG_OLYMPUS_PREVIEW_VALID = 0x0100, TAG_OLYMPUS_PREVIEW_START = 0x0101, TAG_OLYMPUS_PREVIEW_LENGTH = 0x0102,
    TAG_OLYMPUS_OLD_PREVIEW_VALID = 0x1035, TAG_OLYMPUS_OLD_PREVIEW_START = 0x1036,
    TAG_OLYMPUS_OLD_PREVIEW_LENGTH = 0x1037,
    TAG_SEMC_PREVIEW_START = 0x0201, TAG_SEMC_PREVIEW_LENGTH = 0x0202,
    TAG_MINOLTA_PREVIEW_START = 0x0088, TAG_MINOLTA_PREVIEW_LENGTH = 0x0089,
    TAG_CASIO_PREVIEW_LENGTH = 0x0003, TAG_CASIO_PREVIEW_START = 0x0004, TAG_CASIO_PREVIEW_IMAGE = 0x2000,
};

/* A headerless maker note's directory: entries a plausible one holds, and
 * the highest TIFF type an entry of it may have. */
#define MAX_NOTE_ENTRIES 512
#define MAX_TIFF_TYPE 13

/* An MPF entry: attribute (4: flags, format, type code), size (4), offset
 * (4), two dependent entries (2 + 2). Format 0 is JPEG. */
#define MPF_ENTRY 16
#define MPF_TYPE_MASK 0xFFFFFFu

typedef struct {
    const uint8_t *bytes;
    uint64_t length;    /* bytes given */
    uint64_t file_size; /* offsets of pictures are checked against this */
    shim_embedded_listing *out;
    uint64_t visited[SHIM_EP_MAX_DIRECTORIES];
    int directories;
} context;

/* A TIFF structure in the buffer: offsets in it count from `base`; its
 * directories and values are read only inside [lo, hi). */
typedef struct {
    uint64_t base, lo, hi;
    int big;
} tiff;

typedef struct {
    uint32_t tag, type, count;
    uint64_t value_at; /* where its value lies: in the entry, or at its offset */
} entry;

/* Whether [at, at + n) lies in the structure and in the bytes given. When
 * it lies in the structure and the file but past the bytes given, its end
 * is noted in `wanted` (the listing's only output a read changes). */
static int readable(const context *c, const tiff *t, uint64_t at, uint64_t n) {
    uint64_t end = t->hi < c->length ? t->hi : c->length;
    if (at >= t->lo && at <= end && n <= end - at)
        return 1;
    uint64_t whole = t->hi < c->file_size ? t->hi : c->file_size;
    if (at >= t->lo && at <= whole && n <= whole - at && at + n > c->out->wanted)
        c->out->wanted = at + n;
    return 0;
}

static uint32_t get16(const uint8_t *p, int big) {
    return big ? (uint32_t) (p[0] << 8 | p[1]) : (uint32_t) (p[1] << 8 | p[0]);
}

static uint32_t get32(const uint8_t *p, int big) {
    return big ? ((uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3])
               : ((uint32_t) p[3] << 24 | (uint32_t) p[2] << 16 | (uint32_t) p[1] << 8 | p[0]);
}

static int read16(const context *c, const tiff *t, uint64_t at, uint32_t *v) {
    if (!readable(c, t, at, 2))
        return 0;
    *v = get16(c->bytes + at, t->big);
    return 1;
}

static int read32(const context *c, const tiff *t, uint64_t at, uint32_t *v) {
    if (!readable(c, t, at, 4))
        return 0;
    *v = get32(c->bytes + at, t->big);
    return 1;
}

/* Marks a directory visited; 0 when it was already, or the cap is reached. */
static int visit(context *c, uint64_t at) {
    for (int i = 0; i < c->directories; i++)
        if (c->visited[i] == at)
            return 0;
    if (c->directories == SHIM_EP_MAX_DIRECTORIES) {
        c->out->capped = 1;
        return 0;
    }
    c->visited[c->directories++] = at;
    return 1;
}

static uint64_t type_size(uint32_t type) {
    switch (type) {
    case 1: case 2: case 6: case 7: return 1;
    case 3: case 8: return 2;
    case 4: case 9: case 11: case 13: return 4;
    case 5: case 10: case 12: return 8;
    default: return 0;
    }
}

/* The directory's entry count, or -1 when it cannot be read. */
static int directory_count(const context *c, const tiff *t, uint64_t at) {
    uint32_t count;
    return read16(c, t, at, &count) ? (int) count : -1;
}

static int read_entry(const context *c, const tiff *t, uint64_t directory, int i, entry *e) {
    uint64_t at = directory + 2 + (uint64_t) IFD_ENTRY * (uint64_t) i;
    if (!readable(c, t, at, IFD_ENTRY))
        return 0;
    const uint8_t *p = c->bytes + at;
    e->tag = get16(p, t->big);
    e->type = get16(p + 2, t->big);
    e->count = get32(p + 4, t->big);
    uint64_t size = type_size(e->type) * (uint64_t) e->count;
    e->value_at = size <= 4 ? at + 8 : t->base + get32(p + 8, t->big);
    return 1;
}

/* The offset of the directory after this one (0: none). */
static uint32_t next_directory(const context *c, const tiff *t, uint64_t directory) {
    int count = directory_count(c, t, directory);
    uint32_t next = 0;
    if (count < 0 || !read32(c, t, directory + 2 + (uint64_t) IFD_ENTRY * (uint64_t) count, &next))
        return 0;
    return next;
}

/* Value `index` of a SHORT, LONG or IFD entry. */
static int entry_value(const context *c, const tiff *t, const entry *e, uint32_t index, uint32_t *v) {
    if (index >= e->count)
        return 0;
    if (e->type == TYPE_SHORT)
        return read16(c, t, e->value_at + 2 * (uint64_t) index, v);
    if (e->type == TYPE_LONG || e->type == TYPE_IFD)
        return read32(c, t, e->value_at + 4 * (uint64_t) index, v);
    return 0;
}

/* An ASCII entry into `dst` (printable ASCII, trailing spaces cut). */
static void entry_string(const context *c, const tiff *t, const entry *e, char *dst, size_t cap) {
    dst[0] = 0;
    if (e->type != TYPE_ASCII && e->type != TYPE_UNDEFINED)
        return;
    uint64_t n = e->count < cap - 1 ? e->count : cap - 1;
    if (!readable(c, t, e->value_at, n))
        return;
    size_t k = 0;
    for (; k < n; k++) {
        uint8_t ch = c->bytes[e->value_at + k];
        if (ch == 0)
            break;
        dst[k] = ch >= 0x20 && ch < 0x7F ? (char) ch : '?';
    }
    while (k > 0 && dst[k - 1] == ' ')
        k--;
    dst[k] = 0;
}

/* A TIFF header at `at` (byte order, magic): fills t->big. */
static int tiff_header(const context *c, tiff *t, uint64_t at, uint32_t *first) {
    if (!readable(c, t, at, TIFF_HEADER))
        return 0;
    const uint8_t *p = c->bytes + at;
    if (p[0] == 'M' && p[1] == 'M')
        t->big = 1;
    else if (p[0] == 'I' && p[1] == 'I')
        t->big = 0;
    else
        return 0;
    *first = get32(p + 4, t->big);
    return 1;
}

// MARK: - Pictures

int shim_embedded_probe(const uint8_t *bytes, size_t length, shim_embedded_picture *picture) {
    picture->width = picture->height = picture->sof = picture->components = picture->orientation = 0;
    if (!bytes || length < 2)
        return -1;
    picture->flags &= ~SHIM_EP_UNPROBED;
    int repaired = (picture->flags & SHIM_EP_SOI_REPAIRED) && length >= 4 && memcmp(bytes + 1, "\xD8\xFF\xDB", 3) == 0;
    if ((bytes[0] != 0xFF && !repaired) || bytes[1] != 0xD8) {
        picture->flags |= SHIM_EP_NOT_JPEG;
        return 0;
    }
    size_t at = 2;
    for (;;) {
        if (at + 2 > length)
            break;
        if (bytes[at] != 0xFF) {
            picture->flags |= SHIM_EP_NOT_JPEG;
            return 0;
        }
        int marker = bytes[at + 1];
        if (marker == 0xFF) { /* fill byte */
            at++;
            continue;
        }
        if (marker == 0xD8 || marker == 0xD9 || marker == 0xDA) { /* no frame before the scan */
            picture->flags |= SHIM_EP_NOT_JPEG;
            return 0;
        }
        if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) {
            at += 2;
            continue;
        }
        if (at + 4 > length)
            break;
        size_t segment = (size_t) bytes[at + 2] << 8 | bytes[at + 3];
        if (segment < 2) {
            picture->flags |= SHIM_EP_NOT_JPEG;
            return 0;
        }
        int frame = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
        if (frame) {
            /* Marker (2), length (2), precision (1), height (2), width (2), components (1). */
            if (segment < 8) {
                picture->flags |= SHIM_EP_NOT_JPEG;
                return 0;
            }
            if (at + 10 > length)
                break;
            const uint8_t *p = bytes + at + 4;
            picture->height = p[1] << 8 | p[2];
            picture->width = p[3] << 8 | p[4];
            picture->components = p[5];
            picture->sof = marker;
            if (picture->width == 0 || picture->height == 0)
                picture->flags |= SHIM_EP_NOT_JPEG;
            return 0;
        }
        if (marker == 0xE1 && picture->orientation == 0 && segment >= 8 && at + 2 + segment <= length &&
            memcmp(bytes + at + 4, "Exif\0\0", 6) == 0)
            picture->orientation = jpeg_exif_orientation(bytes + at + 4, segment - 2);
        at += 2 + segment;
    }
    picture->flags |= SHIM_EP_UNPROBED;
    picture->orientation = 0;
    return -1;
}

/* Whether the last bytes of [offset, offset + length), all given, end in
 * EOI, past any zero padding and up to EOI_TRAILER bytes of any value (the
 * DiMAGE A1's maker-note preview runs 6 bytes past its EOI); 1 when they
 * were not given. A JPEG holds FF D9 nowhere but in its EOI (its scans stuff
 * each FF with 00), so a truncated picture does not pass for a whole one. */
static int ends_in_eoi(const context *c, uint64_t offset, uint64_t length) {
    uint64_t end = offset + length;
    if (end > c->length)
        return 1;
    uint64_t at = end;
    while (at > offset + 2 && end - at < EOI_PADDING && c->bytes[at - 1] == 0)
        at--;
    for (uint64_t trailer = 0; trailer <= EOI_TRAILER && at >= offset + 2 + trailer; trailer++)
        if (c->bytes[at - trailer - 2] == 0xFF && c->bytes[at - trailer - 1] == 0xD9)
            return 1;
    return 0;
}

/* Adds a picture at [offset, offset + length) of the file: refused when
 * outside the file, too short, the same as a listed one, or past the cap;
 * a JPEG (compression not 1) is probed when its header was given. */
static void add_picture(context *c, uint64_t offset, uint64_t length, int kind, int maker, uint32_t mpf_type,
                        int compression, int width, int height, int flags) {
    shim_embedded_listing *out = c->out;
    if (length < 4 || offset > c->file_size || length > c->file_size - offset) {
        out->refused++;
        return;
    }
    for (int i = 0; i < out->count; i++)
        if (out->pictures[i].offset == offset && out->pictures[i].length == length) {
            out->refused++;
            return;
        }
    if (out->count == SHIM_EP_MAX_PICTURES) {
        out->refused++;
        out->capped = 1;
        return;
    }
    shim_embedded_picture *p = &out->pictures[out->count++];
    memset(p, 0, sizeof *p);
    p->offset = offset;
    p->length = length;
    p->kind = kind;
    p->maker = maker;
    p->mpf_type = mpf_type;
    p->compression = compression;
    p->flags = flags;
    /* Minolta's wrong first byte (SHIM_EP_SOI_REPAIRED), when given. */
    if (maker == SHIM_EP_MAKER_MINOLTA && offset + 4 <= c->length && c->bytes[offset] != 0xFF &&
        memcmp(c->bytes + offset + 1, "\xD8\xFF\xDB", 3) == 0)
        p->flags |= SHIM_EP_SOI_REPAIRED;
    if (compression == 1) { /* uncompressed: its size is its directory's */
        p->width = width;
        p->height = height;
        return;
    }
    if (flags & SHIM_EP_NOT_JPEG)
        return;
    if (offset >= c->length) {
        p->flags |= SHIM_EP_UNPROBED;
    } else {
        uint64_t given = c->length - offset < length ? c->length - offset : length;
        shim_embedded_probe(c->bytes + offset, (size_t) given, p);
    }
    if (!(p->flags & SHIM_EP_NOT_JPEG) && !ends_in_eoi(c, offset, length))
        p->flags |= SHIM_EP_NO_EOI;
}

/* Flags every pair of listed pictures that share bytes. */
static void flag_overlaps(shim_embedded_listing *out) {
    for (int i = 0; i < out->count; i++)
        for (int j = i + 1; j < out->count; j++) {
            shim_embedded_picture *a = &out->pictures[i], *b = &out->pictures[j];
            if (a->offset < b->offset + b->length && b->offset < a->offset + a->length) {
                a->flags |= SHIM_EP_OVERLAPS;
                b->flags |= SHIM_EP_OVERLAPS;
            }
        }
}

// MARK: - Maker notes

static int starts_with(const char *s, const char *prefix) {
    for (; *prefix; s++, prefix++) {
        char a = *s >= 'a' && *s <= 'z' ? (char) (*s - 32) : *s;
        char b = *prefix >= 'a' && *prefix <= 'z' ? (char) (*prefix - 32) : *prefix;
        if (a != b)
            return 0;
    }
    return 1;
}

/* A picture named by two tags of one directory: its start (from the
 * structure's base) and its length. */
typedef struct {
    uint32_t start_tag, length_tag;
    uint32_t start, length;
    int have_start, have_length;
} span_tags;

/* Takes the entry's value when it is the span's start or length tag: 1
 * when it was one of the two (read or not), 0 for any other tag. */
static int read_span_tag(const context *c, const tiff *t, const entry *e, span_tags *span) {
    if (e->tag == span->start_tag)
        span->have_start = entry_value(c, t, e, 0, &span->start);
    else if (e->tag == span->length_tag)
        span->have_length = entry_value(c, t, e, 0, &span->length);
    else
        return 0;
    return 1;
}

/* The JPEG a directory names by two tags, its start (from t->base) and
 * its length, added as a picture of `kind` when both are there: the Exif
 * IFD1 thumbnail and the Nikon, Pentax and Sony Ericsson previews are
 * written this way. */
static void add_directory_jpeg(context *c, const tiff *t, uint64_t directory, uint32_t start_tag,
                               uint32_t length_tag, int kind, int maker) {
    span_tags span = { .start_tag = start_tag, .length_tag = length_tag };
    int count = directory_count(c, t, directory);
    for (int i = 0; i < count; i++) {
        entry e;
        if (!read_entry(c, t, directory, i, &e))
            break;
        read_span_tag(c, t, &e, &span);
    }
    if (span.have_start && span.have_length)
        add_picture(c, t->base + span.start, span.length, kind, maker, 0, 0, 0, 0, 0);
}

/* A Nikon note's directory: PreviewIFD (0x0011) holds 0x0201 start and
 * 0x0202 length, from t->base. */
static void nikon_directory(context *c, const tiff *t, uint64_t directory) {
    int count = directory_count(c, t, directory);
    for (int i = 0; i < count; i++) {
        entry e;
        uint32_t preview;
        if (!read_entry(c, t, directory, i, &e))
            break;
        if (e.tag != TAG_NIKON_PREVIEW_IFD || !entry_value(c, t, &e, 0, &preview) || !visit(c, t->base + preview))
            continue;
        add_directory_jpeg(c, t, t->base + preview, TAG_JPEG_OFFSET, TAG_JPEG_LENGTH, SHIM_EP_MAKER_NOTE,
                           SHIM_EP_MAKER_NIKON);
    }
}

/* Nikon type 3: "Nikon\0", version 2.x, 2 bytes, then a TIFF header from
 * which the note's offsets count. */
static void nikon_note(context *c, const tiff *exif, uint64_t note, uint64_t size) {
    if (size < 10 + TIFF_HEADER || c->bytes[note + 6] != 0x02)
        return;
    tiff t = { .base = note + 10, .lo = note + 10, .hi = exif->hi };
    uint32_t first;
    if (!tiff_header(c, &t, t.base, &first) || !visit(c, t.base + first))
        return;
    nikon_directory(c, &t, t.base + first);
}

/* Whether a headerless note's directory at `directory` reads as one in
 * t->big's byte order: 1 to MAX_NOTE_ENTRIES entries, the first of a TIFF
 * type. */
static int plausible_directory(const context *c, const tiff *t, uint64_t directory) {
    int count = directory_count(c, t, directory);
    entry e;
    return count >= 1 && count <= MAX_NOTE_ENTRIES && read_entry(c, t, directory, 0, &e) && e.type >= 1 &&
           e.type <= MAX_TIFF_TYPE;
}

/* A headerless note (a directory at its first byte, offsets from the Exif
 * header, as exiftool reads Nikon's MakerNoteNikon3, Minolta's and Casio's
 * type 2 past its 6 bytes): `t` gets the Exif structure in the byte order
 * the directory reads in, the Exif's first (exiftool: "ByteOrder
 * Unknown"; Nikon's D1 writes big-endian notes). 0 when it reads in
 * neither, or was visited. */
static int headerless_directory(context *c, const tiff *exif, uint64_t directory, tiff *t) {
    *t = *exif;
    if (!plausible_directory(c, t, directory)) {
        t->big = !t->big;
        if (!plausible_directory(c, t, directory))
            return 0;
    }
    return visit(c, directory);
}

/* Nikon's headerless note (E995 and other Coolpix models of its time):
 * the same directory as type 3's, its offsets from the Exif header. */
static void nikon_headerless_note(context *c, const tiff *exif, uint64_t note) {
    tiff t;
    if (headerless_directory(c, exif, note, &t))
        nikon_directory(c, &t, note);
}

/* Minolta's DiMAGE note (headerless; exiftool's MakerNoteMinolta; its
 * other layouts, "MINOL", "CAMER", "MLY0", "KC", "+M+M", 0xD7..., start
 * with bytes that read as thousands of entries, not a directory):
 * 0x0088 PreviewImageStart and 0x0089 PreviewImageLength, from the Exif
 * header. The A1's and 7Hi's preview follows the photo's EOI, its first
 * byte 0x00 (SHIM_EP_SOI_REPAIRED). The DiMAGE 7's and S404's inline
 * 0x0081 PreviewImage starts 0x01 0xD8 and is not read. */
static void minolta_note(context *c, const tiff *exif, uint64_t note) {
    tiff t;
    if (headerless_directory(c, exif, note, &t))
        add_directory_jpeg(c, &t, note, TAG_MINOLTA_PREVIEW_START, TAG_MINOLTA_PREVIEW_LENGTH, SHIM_EP_MAKER_NOTE,
                           SHIM_EP_MAKER_MINOLTA);
}

/* Casio type 2: "QVC\0", 2 bytes, the directory at +6, offsets from the
 * Exif header. 0x2000 PreviewImage (UNDEFINED: its bytes are the picture),
 * which 0x0004 start and 0x0003 length name again: read when 0x2000 is
 * missing. Type 1 notes (headerless, QV-3000EX) carry no preview. */
static void casio_note(context *c, const tiff *exif, uint64_t note, uint64_t size) {
    tiff t;
    if (size < 6 + 2 || !headerless_directory(c, exif, note + 6, &t))
        return;
    uint64_t directory = note + 6;
    span_tags span = { .start_tag = TAG_CASIO_PREVIEW_START, .length_tag = TAG_CASIO_PREVIEW_LENGTH };
    int count = directory_count(c, &t, directory);
    for (int i = 0; i < count; i++) {
        entry e;
        if (!read_entry(c, &t, directory, i, &e))
            break;
        if (e.tag == TAG_CASIO_PREVIEW_IMAGE && e.type == TYPE_UNDEFINED && e.count > 4) {
            add_picture(c, e.value_at, e.count, SHIM_EP_MAKER_NOTE, SHIM_EP_MAKER_CASIO, 0, 0, 0, 0, 0);
            return;
        }
        read_span_tag(c, &t, &e, &span);
    }
    if (span.have_start && span.have_length)
        add_picture(c, t.base + span.start, span.length, SHIM_EP_MAKER_NOTE, SHIM_EP_MAKER_CASIO, 0, 0, 0, 0, 0);
}

/* Samsung "STMN" and three digits (the S730's "STMN0100"): binary, 32-bit
 * words in the Exif's byte order; the third is the preview's start from
 * the file's first byte (exiftool: an absolute offset), the fourth its
 * length. A start of 0: no preview. */
static void samsung_note(context *c, const tiff *exif, uint64_t note, uint64_t size) {
    uint32_t start, length;
    if (size < 16 || !read32(c, exif, note + 8, &start) || !read32(c, exif, note + 12, &length) || start == 0)
        return;
    add_picture(c, start, length, SHIM_EP_MAKER_NOTE, SHIM_EP_MAKER_SAMSUNG, 0, 0, 0, 0, 0);
}

static int is_digit(uint8_t ch) { return ch >= '0' && ch <= '9'; }

/* Pentax: "AOC\0" and a byte order, the directory at +6, offsets from the
 * Exif header; or "PENTAX \0" and a byte order, the directory at +10,
 * offsets from the note. 0x0003 length, 0x0004 start. */
static void pentax_note(context *c, const tiff *exif, uint64_t note, uint64_t size, int aoc) {
    uint64_t order_at = aoc ? note + 4 : note + 8, directory = aoc ? note + 6 : note + 10;
    if (size < (directory - note) + 2)
        return;
    tiff t = { .base = aoc ? exif->base : note, .lo = exif->lo < note ? exif->lo : note, .hi = exif->hi,
               .big = exif->big };
    const uint8_t *order = c->bytes + order_at;
    if (order[0] == 'M' && order[1] == 'M')
        t.big = 1;
    else if (order[0] == 'I' && order[1] == 'I')
        t.big = 0;
    if (!visit(c, directory))
        return;
    add_directory_jpeg(c, &t, directory, TAG_PENTAX_PREVIEW_START, TAG_PENTAX_PREVIEW_LENGTH, SHIM_EP_MAKER_NOTE,
                       SHIM_EP_MAKER_PENTAX);
}

/* An Olympus directory's preview, named by three tags: valid (absent: 1),
 * start, length. When `settings` is given, also the CameraSettings
 * directory it names. */
static void olympus_directory(context *c, const tiff *t, uint64_t directory, uint32_t valid_tag, uint32_t start_tag,
                              uint32_t length_tag, int settings) {
    if (!visit(c, directory))
        return;
    uint32_t valid = 1;
    span_tags span = { .start_tag = start_tag, .length_tag = length_tag };
    int count = directory_count(c, t, directory);
    for (int i = 0; i < count; i++) {
        entry e;
        if (!read_entry(c, t, directory, i, &e))
            break;
        if (e.tag == valid_tag)
            entry_value(c, t, &e, 0, &valid);
        else if (read_span_tag(c, t, &e, &span))
            continue;
        else if (settings && e.tag == TAG_OLYMPUS_CAMERA_SETTINGS) {
            uint32_t sub;
            if ((e.type == TYPE_IFD || e.type == TYPE_LONG) && entry_value(c, t, &e, 0, &sub))
                olympus_directory(c, t, t->base + sub, TAG_OLYMPUS_PREVIEW_VALID, TAG_OLYMPUS_PREVIEW_START,
                                  TAG_OLYMPUS_PREVIEW_LENGTH, 0);
            else if (e.type == TYPE_UNDEFINED) /* the directory is the value itself */
                olympus_directory(c, t, e.value_at, TAG_OLYMPUS_PREVIEW_VALID, TAG_OLYMPUS_PREVIEW_START,
                                  TAG_OLYMPUS_PREVIEW_LENGTH, 0);
        }
    }
    if (valid && span.have_start && span.have_length && span.length > 0)
        add_picture(c, t->base + span.start, span.length, SHIM_EP_MAKER_NOTE, SHIM_EP_MAKER_OLYMPUS, 0, 0, 0, 0, 0);
}

/* Olympus: "OLYMPUS\0" and a byte order (directory at +12), or "OM
 * SYSTEM\0\0\0" and one (+16), offsets from the note; "OLYMP\0" (+8),
 * offsets from the Exif header. */
static void olympus_note(context *c, const tiff *exif, uint64_t note, uint64_t size, uint64_t order_at,
                         uint64_t directory, int own_base) {
    if (size < (directory - note) + 2)
        return;
    tiff t = { .base = own_base ? note : exif->base, .lo = exif->lo < note ? exif->lo : note, .hi = exif->hi,
               .big = exif->big };
    if (order_at) {
        const uint8_t *order = c->bytes + order_at;
        if (order[0] == 'M' && order[1] == 'M')
            t.big = 1;
        else if (order[0] == 'I' && order[1] == 'I')
            t.big = 0;
        else
            return;
    }
    /* Older cameras name it in the note's own directory (0x1035-0x1037),
     * later ones in CameraSettings (0x2020: 0x0100-0x0102). */
    olympus_directory(c, &t, directory, TAG_OLYMPUS_OLD_PREVIEW_VALID, TAG_OLYMPUS_OLD_PREVIEW_START,
                      TAG_OLYMPUS_OLD_PREVIEW_LENGTH, 1);
}

/* Sony Ericsson: "SEMC MS\0", four zero bytes, then a TIFF header (its
 * byte order; offsets count from it) and, 8 bytes past it, the directory,
 * where exiftool reads it whatever the header's first-IFD offset says.
 * 0x0201 start, 0x0202 length: a 320 x 240 JPEG on the phones seen (a
 * C905c); a U10i's is an ETC1 texture ("PKM 10"), listed as no JPEG. */
static void semc_note(context *c, const tiff *exif, uint64_t note, uint64_t size) {
    if (size < 20 + 2)
        return;
    tiff t = { .base = note + 12, .lo = note + 12, .hi = exif->hi };
    uint32_t first;
    if (!tiff_header(c, &t, t.base, &first) || !visit(c, t.base + TIFF_HEADER))
        return;
    add_directory_jpeg(c, &t, t.base + TIFF_HEADER, TAG_SEMC_PREVIEW_START, TAG_SEMC_PREVIEW_LENGTH,
                       SHIM_EP_MAKER_NOTE, SHIM_EP_MAKER_SONY_ERICSSON);
}

/* The maker note at [note, note + size) of an Exif structure, read in the
 * layout its header names when the file's Make names the same maker. */
static void maker_note(context *c, const tiff *exif, uint64_t note, uint64_t size) {
    if (!readable(c, exif, note, size < 16 ? size : 16) || size < 8)
        return;
    const uint8_t *p = c->bytes + note;
    const char *make = c->out->make;
    if (memcmp(p, "Nikon\0", 6) == 0) {
        if (starts_with(make, "NIKON"))
            nikon_note(c, exif, note, size);
    } else if (memcmp(p, "AOC\0", 4) == 0 || (size >= 10 && memcmp(p, "PENTAX \0", 8) == 0)) {
        if (starts_with(make, "PENTAX") || starts_with(make, "RICOH") || starts_with(make, "ASAHI"))
            pentax_note(c, exif, note, size, p[0] == 'A');
    } else if (memcmp(p, "OLYMPUS\0", 8) == 0 || (size >= 16 && memcmp(p, "OM SYSTEM\0\0\0", 12) == 0) ||
               memcmp(p, "OLYMP\0", 6) == 0) {
        if (!starts_with(make, "OLYMPUS") && !starts_with(make, "OM DIGITAL"))
            return;
        if (p[1] == 'M') /* OM SYSTEM */
            olympus_note(c, exif, note, size, note + 12, note + 16, 1);
        else if (p[5] == 'U') /* OLYMPUS */
            olympus_note(c, exif, note, size, note + 8, note + 12, 1);
        else
            olympus_note(c, exif, note, size, 0, note + 8, 0);
    } else if (memcmp(p, "SEMC MS\0", 8) == 0) {
        if (starts_with(make, "Sony Ericsson"))
            semc_note(c, exif, note, size);
    } else if (memcmp(p, "QVC\0", 4) == 0) {
        if (starts_with(make, "CASIO"))
            casio_note(c, exif, note, size);
    } else if (memcmp(p, "STMN", 4) == 0 && is_digit(p[4]) && is_digit(p[5]) && is_digit(p[6])) {
        if (starts_with(make, "SAMSUNG"))
            samsung_note(c, exif, note, size);
    } else if (starts_with(make, "NIKON")) { /* no header of any maker's: a directory */
        nikon_headerless_note(c, exif, note);
    } else if (starts_with(make, "Minolta") || starts_with(make, "Konica Minolta")) {
        minolta_note(c, exif, note);
    }
}

// MARK: - Exif

/* The Exif IFD: DateTimeOriginal, the recorded pixel size, the maker note
 * (read once the file's Make is known). */
static void exif_directory(context *c, const tiff *t, uint64_t directory, uint64_t *note, uint64_t *note_size) {
    if (!visit(c, directory))
        return;
    shim_embedded_listing *out = c->out;
    int count = directory_count(c, t, directory);
    for (int i = 0; i < count; i++) {
        entry e;
        uint32_t v;
        if (!read_entry(c, t, directory, i, &e))
            break;
        switch (e.tag) {
        case TAG_DATE_ORIGINAL: entry_string(c, t, &e, out->date_original, sizeof out->date_original); break;
        case TAG_PIXEL_X: if (entry_value(c, t, &e, 0, &v) && v <= 0xFFFFFF) out->pixel_x = (int) v; break;
        case TAG_PIXEL_Y: if (entry_value(c, t, &e, 0, &v) && v <= 0xFFFFFF) out->pixel_y = (int) v; break;
        case TAG_MAKER_NOTE:
            *note = e.value_at;
            *note_size = e.count;
            break;
        default: break;
        }
    }
}

/* IFD0's facts; the Exif IFD's offset. */
static void first_directory(context *c, const tiff *t, uint64_t directory, uint32_t *exif) {
    shim_embedded_listing *out = c->out;
    int count = directory_count(c, t, directory);
    for (int i = 0; i < count; i++) {
        entry e;
        if (!read_entry(c, t, directory, i, &e))
            break;
        switch (e.tag) {
        case TAG_MAKE: entry_string(c, t, &e, out->make, sizeof out->make); break;
        case TAG_MODEL: entry_string(c, t, &e, out->model, sizeof out->model); break;
        case TAG_SOFTWARE: entry_string(c, t, &e, out->software, sizeof out->software); break;
        case TAG_DATE_TIME: entry_string(c, t, &e, out->modify_date, sizeof out->modify_date); break;
        case TAG_EXIF_IFD: entry_value(c, t, &e, 0, exif); break;
        default: break;
        }
    }
}

/* The Exif structure of an APP1 payload of `size` bytes at `payload`
 * ("Exif\0\0", then TIFF). */
static void exif_segment(context *c, uint64_t payload, uint64_t size) {
    c->out->orientation = jpeg_exif_orientation(c->bytes + payload, (size_t) size);
    tiff t = { .base = payload + 6, .lo = payload + 6, .hi = payload + size };
    uint32_t first;
    if (!tiff_header(c, &t, t.base, &first) || !visit(c, t.base + first))
        return;
    uint64_t ifd0 = t.base + first;
    uint32_t exif = 0;
    first_directory(c, &t, ifd0, &exif);
    uint64_t note = 0, note_size = 0;
    if (exif)
        exif_directory(c, &t, t.base + exif, &note, &note_size);
    /* IFD1: the thumbnail. */
    uint32_t ifd1 = next_directory(c, &t, ifd0);
    if (ifd1 && visit(c, t.base + ifd1))
        add_directory_jpeg(c, &t, t.base + ifd1, TAG_JPEG_OFFSET, TAG_JPEG_LENGTH, SHIM_EP_EXIF_THUMBNAIL, 0);
    if (note)
        maker_note(c, &t, note, note_size);
}

// MARK: - MPF

/* The MPF index of an APP2 payload past "MPF\0": its entries' offsets
 * count from the TIFF header that starts it. */
static void mpf_segment(context *c, uint64_t header, uint64_t size) {
    tiff t = { .base = header, .lo = header, .hi = header + size };
    uint32_t first;
    if (!tiff_header(c, &t, header, &first) || !visit(c, header + first))
        return;
    uint64_t directory = header + first;
    int count = directory_count(c, &t, directory);
    for (int i = 0; i < count; i++) {
        entry e;
        if (!read_entry(c, &t, directory, i, &e))
            break;
        if (e.tag != TAG_MPF_ENTRIES || e.type != TYPE_UNDEFINED)
            continue;
        uint64_t entries = e.count / MPF_ENTRY;
        if (entries > SHIM_EP_MAX_MPF_ENTRIES) {
            uint64_t over = entries - SHIM_EP_MAX_MPF_ENTRIES;
            c->out->refused += over > 1000000 ? 1000000 : (int) over;
            c->out->capped = 1;
            entries = SHIM_EP_MAX_MPF_ENTRIES;
        }
        for (uint64_t k = 0; k < entries; k++) {
            uint64_t at = e.value_at + MPF_ENTRY * k;
            uint32_t attribute, length, offset;
            if (!read32(c, &t, at, &attribute) || !read32(c, &t, at + 4, &length) || !read32(c, &t, at + 8, &offset))
                break;
            if (offset == 0) /* the main picture */
                continue;
            int format = (int) (attribute >> 24 & 7);
            add_picture(c, header + offset, length, SHIM_EP_MPF, 0, attribute & MPF_TYPE_MASK, 0, 0, 0,
                        format == 0 ? 0 : SHIM_EP_NOT_JPEG);
        }
        break;
    }
}

// MARK: - Edits

static int contains(const char *haystack, const char *needle) {
    size_t n = strlen(needle);
    for (const char *h = haystack; *h; h++)
        if (starts_with(h, needle) && strlen(h) >= n)
            return 1;
    return 0;
}

static int is_letter(char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'); }

/* Whether a Software or CreatorTool value reads as a camera's firmware: it
 * names no editor, and it names the camera's model, or a version ("Ver.1.00",
 * "Version 1.3", "Firmware"), or is no word of four letters or more
 * ("1.01", "E5000v1.6", "HDR+ 1.0.57"). An unknown program's name is taken
 * as an editor's. */
/* A phone's firmware build code: one word of capitals and digits with both
 * (Samsung's G935LKLU1APL1, N900AUCUCNC2, I9100XWLPT, SC02COMMP7), whose
 * runs of letters would otherwise read as a program's name. */
static int reads_as_build_code(const char *value) {
    int letters = 0, digits = 0;
    for (const char *p = value; *p; p++) {
        if (*p >= 'A' && *p <= 'Z')
            letters++;
        else if (*p >= '0' && *p <= '9')
            digits++;
        else
            return 0;
    }
    return letters > 0 && digits > 0 && letters + digits >= 6;
}

static int reads_as_firmware(const char *value, const char *model) {
    static const char *const editors[] = {
        "adobe", "photoshop", "lightroom", "gimp", "windows", "microsoft", "picasa", "paint", "capture",
        "darktable", "rawtherapee", "digikam", "affinity", "pixelmator", "snapseed", "luminar", "dxo",
        "acdsee", "irfanview", "xnview", "faststone", "magick", "aperture", "iphoto", "photos", "editor",
        "transfer", "gallery", "uploader", "camedia", "photopro", "viewnx", "silkypix", "corel",
        "photoscape", "shotwell", "gthumb", "lightzone", "jpegtran", "exiftool", "digital photo professional",
    };
    for (size_t i = 0; i < sizeof editors / sizeof editors[0]; i++)
        if (contains(value, editors[i]))
            return 0;
    if (model[0] && contains(value, model))
        return 1;
    if (contains(value, "firmware") || contains(value, "version"))
        return 1;
    for (const char *p = value; *p; p++) {
        if ((p == value || !is_letter(p[-1])) && starts_with(p, "ver") &&
            (p[3] == '.' || p[3] == ' ' || (p[3] >= '0' && p[3] <= '9')))
            return 1;
    }
    if (reads_as_build_code(value))
        return 1;
    int run = 0;
    for (const char *p = value; *p; p++) {
        run = is_letter(*p) ? run + 1 : 0;
        if (run >= 4)
            return 0;
    }
    return 1;
}

/* First `needle` in [at, end) of the buffer, or end. */
static uint64_t find(const context *c, uint64_t at, uint64_t end, const char *needle) {
    size_t n = strlen(needle);
    for (; at + n <= end; at++)
        if (memcmp(c->bytes + at, needle, n) == 0)
            return at;
    return end;
}

/* An XMP packet (APP1 past its namespace): xmpMM:History, CreatorTool. */
static void xmp_segment(context *c, uint64_t at, uint64_t end) {
    shim_embedded_listing *out = c->out;
    if (find(c, at, end, "xmpMM:History") < end)
        out->edits |= SHIM_EP_EDIT_XMP_HISTORY;
    uint64_t tool = find(c, at, end, "CreatorTool");
    if (tool == end || out->creator_tool[0])
        return;
    /* CreatorTool="value" or <xmp:CreatorTool>value< */
    uint64_t v = tool + strlen("CreatorTool");
    while (v < end && (c->bytes[v] == '=' || c->bytes[v] == '"' || c->bytes[v] == '\'' || c->bytes[v] == '>' ||
                       c->bytes[v] == ' '))
        v++;
    size_t k = 0;
    for (; v < end && k + 1 < sizeof out->creator_tool; v++, k++) {
        uint8_t ch = c->bytes[v];
        if (ch == '"' || ch == '\'' || ch == '<')
            break;
        out->creator_tool[k] = ch >= 0x20 && ch < 0x7F ? (char) ch : '?';
    }
    out->creator_tool[k] = 0;
    if (k == 0)
        strcpy(out->creator_tool, "?"); /* present, unreadable: an editor's */
}

static void judge_edits(shim_embedded_listing *out) {
    if (out->pixel_x && out->pixel_y) {
        if (out->width && (out->width != out->pixel_x || out->height != out->pixel_y))
            out->edits |= SHIM_EP_EDIT_FRAME_SIZE;
    } else {
        out->edits |= SHIM_EP_EDIT_SIZE_UNRECORDED;
    }
    if (out->software[0] && !reads_as_firmware(out->software, out->model))
        out->edits |= SHIM_EP_EDIT_SOFTWARE;
    if (out->modify_date[0] && out->date_original[0] && strcmp(out->modify_date, out->date_original) != 0)
        out->edits |= SHIM_EP_EDIT_MODIFY_DATE;
    if (out->creator_tool[0] && !reads_as_firmware(out->creator_tool, out->model))
        out->edits |= SHIM_EP_EDIT_XMP_CREATOR_TOOL;
}

// MARK: - JPEG

static const char XMP_NAMESPACE[] = "http://ns.adobe.com/xap/1.0/"; /* and its NUL */
static const char ICC_PROFILE[] = "ICC_PROFILE";                     /* and its NUL */

int shim_embedded_pictures_jpeg(const uint8_t *bytes, size_t length, uint64_t file_size,
                                shim_embedded_listing *out) {
    memset(out, 0, sizeof *out);
    out->orientation = 1;
    if (!bytes || length < 4 || bytes[0] != 0xFF || bytes[1] != 0xD8)
        return -1;
    context c = { .bytes = bytes, .length = length < file_size ? length : file_size, .file_size = file_size, .out = out };
    int exif_seen = 0, mpf_seen = 0;
    uint64_t at = 2;
    for (;;) {
        if (at + 2 > c.length || bytes[at] != 0xFF)
            break;
        int marker = bytes[at + 1];
        if (marker == 0xFF) {
            at++;
            continue;
        }
        if (marker == 0xDA) {
            out->complete = 1;
            break;
        }
        if (marker == 0xD8 || marker == 0xD9)
            break;
        if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) {
            at += 2;
            continue;
        }
        if (at + 4 > c.length)
            break;
        uint64_t segment = (uint64_t) bytes[at + 2] << 8 | bytes[at + 3];
        if (segment < 2)
            break;
        uint64_t payload = at + 4, size = segment - 2;
        int frame = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
        if (frame && out->width == 0 && size >= 6 && payload + 5 <= c.length) {
            out->height = bytes[payload + 1] << 8 | bytes[payload + 2];
            out->width = bytes[payload + 3] << 8 | bytes[payload + 4];
        }
        if (payload + size > c.length) /* the rest was not given */
            break;
        if (marker == 0xE1 && !exif_seen && size >= 6 + TIFF_HEADER && memcmp(bytes + payload, "Exif\0\0", 6) == 0) {
            exif_seen = 1;
            exif_segment(&c, payload, size);
        } else if (marker == 0xE1 && size >= sizeof XMP_NAMESPACE &&
                   memcmp(bytes + payload, XMP_NAMESPACE, sizeof XMP_NAMESPACE) == 0) {
            xmp_segment(&c, payload + sizeof XMP_NAMESPACE, payload + size);
        } else if (marker == 0xE2 && size >= sizeof ICC_PROFILE && memcmp(bytes + payload, ICC_PROFILE, sizeof ICC_PROFILE) == 0) {
            out->icc_profile = 1;
        } else if (marker == 0xE2 && !mpf_seen && size >= 4 + TIFF_HEADER && memcmp(bytes + payload, "MPF\0", 4) == 0) {
            mpf_seen = 1;
            mpf_segment(&c, payload + 4, size - 4);
        }
        at = payload + size;
    }
    flag_overlaps(out);
    judge_edits(out);
    return 0;
}

// MARK: - TIFF RAWs

/* One directory of a RAW: its image (strips or tiles), its
 * JPEGInterchangeFormat, Panasonic's JpgFromRaw, its SubIFDs; in IFD0 the
 * Make and the Exif IFD (whose maker note may hold a preview). */
static void raw_directory(context *c, const tiff *t, uint64_t directory, int depth) {
    uint32_t width = 0, height = 0, compression = 0, jpeg_start = 0, jpeg_length = 0, exif = 0;
    int have_jpeg_start = 0, have_jpeg_length = 0;
    entry offsets = { 0 }, counts = { 0 }, subifds = { 0 };
    int count = directory_count(c, t, directory);
    for (int i = 0; i < count; i++) {
        entry e;
        if (!read_entry(c, t, directory, i, &e))
            break;
        switch (e.tag) {
        case TAG_WIDTH: entry_value(c, t, &e, 0, &width); break;
        case TAG_HEIGHT: entry_value(c, t, &e, 0, &height); break;
        case TAG_COMPRESSION: entry_value(c, t, &e, 0, &compression); break;
        case TAG_STRIP_OFFSETS: case TAG_TILE_OFFSETS: offsets = e; break;
        case TAG_STRIP_COUNTS: case TAG_TILE_COUNTS: counts = e; break;
        case TAG_JPEG_OFFSET: have_jpeg_start = entry_value(c, t, &e, 0, &jpeg_start); break;
        case TAG_JPEG_LENGTH: have_jpeg_length = entry_value(c, t, &e, 0, &jpeg_length); break;
        case TAG_SUBIFDS: subifds = e; break;
        case TAG_EXIF_IFD: if (depth == 0) entry_value(c, t, &e, 0, &exif); break;
        case TAG_MAKE: if (depth == 0 && !c->out->make[0]) entry_string(c, t, &e, c->out->make, sizeof c->out->make); break;
        case TAG_MODEL: if (depth == 0 && !c->out->model[0]) entry_string(c, t, &e, c->out->model, sizeof c->out->model); break;
        case TAG_PANASONIC_JPG_FROM_RAW:
            if (e.type == TYPE_UNDEFINED && e.count > 4)
                add_picture(c, e.value_at, e.count, SHIM_EP_JPG_FROM_RAW, 0, 0, 0, 0, 0, 0);
            break;
        default: break;
        }
    }
    if (offsets.count > 0 && counts.count == offsets.count) {
        uint32_t first = 0, size = 0;
        if (entry_value(c, t, &offsets, 0, &first) && entry_value(c, t, &counts, 0, &size)) {
            uint64_t end = (uint64_t) first + size;
            int flags = 0;
            uint32_t strips = offsets.count < MAX_STRIPS ? offsets.count : MAX_STRIPS;
            if (offsets.count > MAX_STRIPS)
                flags |= SHIM_EP_SCATTERED;
            for (uint32_t k = 1; k < strips; k++) {
                uint32_t o, n;
                if (!entry_value(c, t, &offsets, k, &o) || !entry_value(c, t, &counts, k, &n)) {
                    flags |= SHIM_EP_SCATTERED;
                    break;
                }
                if (o != end)
                    flags |= SHIM_EP_SCATTERED;
                end = (uint64_t) o + n > end ? (uint64_t) o + n : end;
            }
            int jpeg = compression == 6 || compression == 7;
            if (!jpeg && compression != 1)
                flags |= SHIM_EP_NOT_JPEG; /* sensor data in a maker's own coding */
            if (jpeg && strips > 1)
                flags |= SHIM_EP_NOT_JPEG; /* one JPEG per strip or tile: not one picture */
            add_picture(c, t->base + first, end - first, SHIM_EP_TIFF_IMAGE, 0, 0, (int) (compression ? compression : 1),
                        (int) (width <= 0xFFFFFF ? width : 0), (int) (height <= 0xFFFFFF ? height : 0), flags);
        }
    }
    if (have_jpeg_start && have_jpeg_length)
        add_picture(c, t->base + jpeg_start, jpeg_length, depth > 0 ? SHIM_EP_JPG_FROM_RAW : SHIM_EP_PREVIEW_IMAGE,
                    0, 0, 0, 0, 0, 0);
    uint32_t subs = subifds.count < MAX_SUBIFDS ? subifds.count : MAX_SUBIFDS;
    for (uint32_t k = 0; k < subs; k++) {
        uint32_t sub;
        if (entry_value(c, t, &subifds, k, &sub) && visit(c, t->base + sub))
            raw_directory(c, t, t->base + sub, depth + 1);
    }
    if (exif) {
        uint64_t note = 0, note_size = 0;
        exif_directory(c, t, t->base + exif, &note, &note_size);
        if (note)
            maker_note(c, t, note, note_size);
    }
}

int shim_embedded_pictures_tiff(const uint8_t *bytes, size_t length, uint64_t file_size,
                                shim_embedded_listing *out) {
    memset(out, 0, sizeof *out);
    out->orientation = 1;
    if (!bytes || length < TIFF_HEADER)
        return -1;
    context c = { .bytes = bytes, .length = length < file_size ? length : file_size, .file_size = file_size, .out = out };
    /* The structure is the whole file; `readable` reads only the bytes given. */
    tiff t = { .base = 0, .lo = 0, .hi = file_size };
    uint32_t first;
    if (!tiff_header(&c, &t, 0, &first))
        return -1;
    /* 42; Panasonic's RW2 0x55; Olympus's ORF "RO", "RS". */
    uint32_t magic = get16(bytes + 2, t.big);
    if (magic != 42 && magic != 0x55 && magic != 0x4F52 && magic != 0x5352)
        return -1;
    uint64_t directory = first;
    while (directory && visit(&c, directory)) {
        raw_directory(&c, &t, directory, 0);
        directory = next_directory(&c, &t, directory);
    }
    flag_overlaps(out);
    return 0;
}
