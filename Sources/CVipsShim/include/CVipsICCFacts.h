// What lcms2 reads of an embedded ICC profile (icc_facts.c), for
// ColourProfile: Swift judges from these facts whether the profile is sRGB,
// and never parses the untrusted bytes itself.
#ifndef CVIPSICCFACTS_H
#define CVIPSICCFACTS_H

#include <stddef.h>

/// A tag lcms2 was asked for: absent, read, or present but unreadable.
enum { SHIM_ICC_ABSENT = 0, SHIM_ICC_READ = 1, SHIM_ICC_MALFORMED = -1 };

typedef struct {
    /// 1 RGB, 2 grey, 0 any other colour space.
    int space;
    /// 1 when the connection space is XYZ (0: Lab).
    int pcs_xyz;
    /// 1 when any of A2B0-2 or D2B0-2 is present: lcms2 would use lookup
    /// tables, not matrix and curves.
    int lookup_tables;
    /// rXYZ, gXYZ and bXYZ (SHIM_ICC_READ only when all three are read).
    int colorants;
    double red[3], green[3], blue[3];
    /// wtpt.
    int white;
    double white_xyz[3];
    /// rTRC, gTRC, bTRC for RGB (all three), kTRC for grey, each evaluated
    /// at the 256 levels i / 255 (lcms2's evaluation, in 0...1).
    int curves;
    float curve[3][256];
} shim_icc_facts;

/// Reads `icc` with lcms2 (a private context whose errors go nowhere: not
/// into the libvips error buffer). Returns 0, or -1 when lcms2 cannot open
/// the profile or its header declares more bytes than `length` (lcms2
/// would silently drop the tags past the end).
int shim_icc_read_facts(const void *icc, size_t length, shim_icc_facts *facts);

#endif
