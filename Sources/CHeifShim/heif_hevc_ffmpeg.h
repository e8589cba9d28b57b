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

/// The threads libavcodec may use for a picture decoded on the calling
/// thread from now on (1 unless set; set it back to 1 after the decode).
/// libheif 1.15 decodes an image that is one HEVC picture on the thread
/// that asked, and a grid's tiles on threads of its own, which keep 1: the
/// tiles already keep the cores busy, and a picture's slice threads help
/// only when it is large (its wavefronts, as x265 writes them by default).
void heif_ffmpeg_picture_threads(int threads);

#endif
