// The pictures a camera file carries besides its main one (embedded_pictures.c),
// and the facts that say whether that main picture was edited after the
// camera wrote it: the listing a preview decoder chooses from (issue 35).
// Untrusted bytes: nothing is read outside the buffer given, every offset the
// file names is checked against the file's size, and every count is capped.
#ifndef CVIPSEMBEDDEDPICTURES_H
#define CVIPSEMBEDDEDPICTURES_H

#include <stddef.h>
#include <stdint.h>

/// Pictures one listing holds; a file naming more has the rest counted in
/// `refused`.
#define SHIM_EP_MAX_PICTURES 32
/// MPF entries read from one index: an index naming 10,000 images is read
/// to here and no further.
#define SHIM_EP_MAX_MPF_ENTRIES 64
/// TIFF directories visited in one file (IFD chains, SubIFDs, maker-note
/// directories): a chain that loops or branches without end stops here.
#define SHIM_EP_MAX_DIRECTORIES 64

/// Where a picture was found.
enum {
    /// An MPF secondary image (APP2 "MPF"): `mpf_type` says which.
    SHIM_EP_MPF = 1,
    /// The Exif IFD1 thumbnail (JPEGInterchangeFormat of IFD1).
    SHIM_EP_EXIF_THUMBNAIL = 2,
    /// A maker note's preview: `maker` says whose layout was read.
    SHIM_EP_MAKER_NOTE = 3,
    /// A TIFF RAW's IFD or SubIFD image (strips; `compression` says how).
    SHIM_EP_TIFF_IMAGE = 4,
    /// A TIFF RAW's full-size JPEG: JPEGInterchangeFormat of a SubIFD, or
    /// Panasonic's tag 0x002E.
    SHIM_EP_JPG_FROM_RAW = 5,
    /// A TIFF RAW's preview: JPEGInterchangeFormat of IFD0 or a later IFD.
    SHIM_EP_PREVIEW_IMAGE = 6,
};

/// Whose maker-note layout was read (the note's own header and the file's
/// Make must agree).
enum {
    SHIM_EP_MAKER_NONE = 0,
    SHIM_EP_MAKER_NIKON = 1,
    SHIM_EP_MAKER_PENTAX = 2,
    SHIM_EP_MAKER_OLYMPUS = 3,
    /// Sony Ericsson's phones ("SEMC MS"). Sony's own cameras, Canon's and
    /// Fujifilm's carry their previews as MPF images, not in the note.
    SHIM_EP_MAKER_SONY_ERICSSON = 4,
    /// Minolta's DiMAGE (a headerless note: 0x0088 start, 0x0089 length).
    SHIM_EP_MAKER_MINOLTA = 5,
    /// Casio's type 2 note ("QVC\0": 0x2000 PreviewImage).
    SHIM_EP_MAKER_CASIO = 6,
    /// Samsung's "STMN" note (start and length at +8 and +12, from the
    /// file's start).
    SHIM_EP_MAKER_SAMSUNG = 7,
};

/// A picture's flags.
enum {
    /// Its bytes do not start a JPEG (no SOI, or no frame before its scan):
    /// not decodable as one. Never set on uncompressed TIFF images.
    SHIM_EP_NOT_JPEG = 1 << 0,
    /// Its header lies past the bytes given: read its first bytes and call
    /// shim_embedded_probe before using it.
    SHIM_EP_UNPROBED = 1 << 1,
    /// It overlaps another listed picture without being the same bytes.
    SHIM_EP_OVERLAPS = 1 << 2,
    /// Its last bytes were given and hold no EOI: truncated or padded.
    SHIM_EP_NO_EOI = 1 << 3,
    /// A TIFF image whose strips are not one contiguous run of bytes.
    SHIM_EP_SCATTERED = 1 << 4,
    /// Its first byte is not a JPEG's 0xFF, its next three are an SOI's
    /// 0xD8 and a DQT marker: the SOI some Minolta cameras write in their
    /// preview (exiftool puts 0xFF back). Its size was probed as if the
    /// 0xFF were there; a decoder must put it back before decoding.
    SHIM_EP_SOI_REPAIRED = 1 << 5,
};

/// What says the main picture changed after the camera wrote it.
enum {
    /// The frame's size (SOF) is not PixelXDimension x PixelYDimension:
    /// a lossless crop or rotation (jpegtran keeps the Exif as it was).
    SHIM_EP_EDIT_FRAME_SIZE = 1 << 0,
    /// No PixelXDimension/PixelYDimension to check the frame against.
    SHIM_EP_EDIT_SIZE_UNRECORDED = 1 << 1,
    /// Software names an editor, not a camera's firmware.
    SHIM_EP_EDIT_SOFTWARE = 1 << 2,
    /// ModifyDate (IFD0 DateTime) is not DateTimeOriginal.
    SHIM_EP_EDIT_MODIFY_DATE = 1 << 3,
    /// XMP's CreatorTool names an editor.
    SHIM_EP_EDIT_XMP_CREATOR_TOOL = 1 << 4,
    /// XMP holds an xmpMM:History.
    SHIM_EP_EDIT_XMP_HISTORY = 1 << 5,
};

typedef struct {
    /// Where its bytes lie in the file, checked: offset + length <= the
    /// file's size, length >= 4.
    uint64_t offset, length;
    /// Its size: a JPEG's from its own frame header (SOF), an uncompressed
    /// TIFF image's from its directory; 0 x 0 until probed.
    int width, height;
    /// SHIM_EP_MPF...; SHIM_EP_MAKER_* for a maker note's.
    int kind, maker;
    /// SHIM_EP_NOT_JPEG...
    int flags;
    /// A JPEG's frame marker (0xC0 baseline, 0xC1, 0xC2 progressive, 0xC3
    /// lossless...), 0 when not read.
    int sof;
    /// A JPEG's components (1 grey, 3 colour, 4 CMYK), 0 when not read.
    int components;
    /// Its own Exif orientation (1...8), 0 when it carries none.
    int orientation;
    /// An MPF entry's type code (0x010001 large thumbnail VGA, 0x010002
    /// large thumbnail full HD, 0x020002 disparity...), 0 for others.
    uint32_t mpf_type;
    /// A TIFF image's Compression tag (1 none, 6 old JPEG, 7 JPEG...), 0
    /// for others.
    int compression;
} shim_embedded_picture;

typedef struct {
    int count;
    shim_embedded_picture pictures[SHIM_EP_MAX_PICTURES];
    /// Candidates left out: outside the file, shorter than 4 bytes, past a
    /// cap (SHIM_EP_MAX_*), or duplicates of a listed one.
    int refused;
    /// 1 when a cap stopped the reading (a looping or oversized structure).
    int capped;
    /// The main picture: a JPEG's frame size (0 until its SOF is reached),
    /// its Exif orientation (1 when none).
    int width, height, orientation;
    /// 1 when the JPEG's bytes given reached its first scan (SOS): the
    /// listing saw every segment.
    int complete;
    /// 1 when an APP2 ICC_PROFILE segment precedes the JPEG's scan: the
    /// main picture's colours are its profile's, which a preview may lack.
    int icc_profile;
    /// Exif PixelXDimension and PixelYDimension, 0 when absent.
    int pixel_x, pixel_y;
    /// IFD0's Make, Model, Software, DateTime (ModifyDate); the Exif IFD's
    /// DateTimeOriginal; XMP's CreatorTool. Printable ASCII, trailing
    /// spaces cut, "" when absent.
    char make[40], model[40], software[64], modify_date[24], date_original[24], creator_tool[64];
    /// SHIM_EP_EDIT_* bits: all 0 when nothing says the picture changed.
    int edits;
    /// Where the bytes given ended before a directory or value that the
    /// structure names inside the file: the end of the furthest such read
    /// (at most the file's size); 0 when every one was given. A caller
    /// that lists again from the file's first `wanted` bytes (or more)
    /// reads further (a RAW whose directories follow its previews).
    uint64_t wanted;
} shim_embedded_listing;

/// Lists the pictures of a JPEG from its first `length` bytes (at least up
/// to its first scan to see every segment; more to probe the pictures that
/// follow). `file_size` is the whole file's size, against which every
/// offset is checked. 0, or -1 when the bytes are not a JPEG.
int shim_embedded_pictures_jpeg(const uint8_t *bytes, size_t length, uint64_t file_size,
                                shim_embedded_listing *out);

/// Lists the pictures of a TIFF-based RAW (DNG, NEF, ARW, CR2, ORF, RW2,
/// PEF...) from its first `length` bytes (the whole file, or its first
/// bytes: directories past `length` are not read, and `wanted` says how
/// many bytes would reach them). 0, or -1 when the bytes are not a TIFF.
int shim_embedded_pictures_tiff(const uint8_t *bytes, size_t length, uint64_t file_size,
                                shim_embedded_listing *out);

/// Reads a JPEG picture's header from its first `length` bytes (from its
/// offset): sets width, height, sof, components, orientation, clears
/// SHIM_EP_UNPROBED, and sets SHIM_EP_NOT_JPEG when the bytes are not one
/// (with SHIM_EP_SOI_REPAIRED set in `picture->flags`, a first byte other
/// than 0xFF before 0xD8 0xFF 0xDB is read as 0xFF).
/// Returns 0, or -1 when the bytes end before its frame header (still
/// unprobed: read more).
int shim_embedded_probe(const uint8_t *bytes, size_t length, shim_embedded_picture *picture);

#endif
