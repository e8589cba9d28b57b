// FFmpeg's HEVC decoder as a libheif decoder plugin (heif_hevc_ffmpeg.c).
//
// libavcodec decodes HEVC with SIMD and is several times faster than
// libde265, libheif 1.15's own HEVC decoder, on a phone's 512² tiles. The
// plugin is registered on one context at a time (heif_use_ffmpeg_hevc), so
// only the decodes that ask for it use it: never libvips's heifload.
#ifndef HEIF_HEVC_FFMPEG_H
#define HEIF_HEVC_FFMPEG_H

#include <libheif/heif.h>
#include <stddef.h>
#include <stdint.h>

/// The plugin's priority for HEVC: above libde265's 100, so that libheif
/// picks it on a context it is registered on.
#define SHIM_HEIF_FFMPEG_PRIORITY 200

/// Has libheif decode the HEVC images of `ctx` with FFmpeg (`failing`: with
/// a plugin that fails every decode, for tests). 0, or -1 when FFmpeg could
/// not be loaded or libheif refused the plugin (the context then keeps
/// libde265).
int heif_use_ffmpeg_hevc(struct heif_context *ctx, int failing);

#endif
