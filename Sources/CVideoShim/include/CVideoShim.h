#ifndef CVIDEOSHIM_H
#define CVIDEOSHIM_H

#include <stddef.h>
#include <stdint.h>

/// What a video's poster frame is made of. Plain memory: it may move
/// between threads.
typedef struct {
    /// 8-bit RGB, rows packed (width * 3 bytes), malloc'd; the caller frees
    /// it (or hands it to shim_jpeg_pixels, which frees it).
    unsigned char *pixels;
    /// The frame as displayed, before the rotation of `orientation`: as
    /// stored, with any non-square sample aspect applied.
    int width, height;
    /// Size of `pixels`: width × height, or less when shrink_for said so.
    int pixels_width, pixels_height;
    /// EXIF orientation (1, 3, 6 or 8) from the display matrix.
    int orientation;
    /// Seconds: the container's duration (what players show), else the
    /// video stream's; 0 when neither says.
    double duration;
    double fps;
    /// Time of the chosen frame from the start of the stream.
    double frame_time;
    /// 0 SDR, 1 PQ (SMPTE 2084), 2 HLG (ARIB STD-B67): tone-mapped to SDR.
    int hdr;
    /// libavcodec's short name: h264, hevc, vp9…
    char codec[32];
    /// libavformat's short name of the demuxer: "mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm"…
    char container[64];
    /// Keyframes decoded to choose the frame (black or flat ones move on).
    int frames_decoded;
    int packets_read;
} shim_video_frame;

/// Failure kinds of shim_video_poster (its return value).
enum {
    SHIM_VIDEO_OK = 0,
    /// The file is damaged, truncated, or has no decodable frame.
    SHIM_VIDEO_DECODE = 1,
    /// The frame is larger than max_pixels (refused before decoding).
    SHIM_VIDEO_TOO_LARGE = 2,
    /// Not something thumbs makes a poster of: no video stream, too many
    /// streams, a codec libavcodec does not have.
    SHIM_VIDEO_UNSUPPORTED = 3,
};

/// Limits on one file's work, so that a hostile file cannot loop.
typedef struct {
    /// Pixels of the coded frame (codecpar width × height); 0: no limit.
    int64_t max_pixels;
    /// Packets and bytes of packets read in all, before the header's probe.
    int max_packets;
    int64_t max_packet_bytes;
    /// Keyframes decoded at most while the frame is black or flat.
    int max_candidates;
    /// Decoder threads (the run's per-image budget).
    int threads;
    /// Optional: called once the frame's displayed size is known (before
    /// rotation, with the orientation): the factor (1, 2, 4, 8) its pixels
    /// may be scaled down by while they are converted to RGB, as a JPEG is
    /// shrunk on load, so that no more pixels are made than the thumbnails
    /// need. NULL: full size.
    int (*shrink_for)(void *context, int width, int height, int orientation);
    void *context;
} shim_video_limits;

/// What a video's container header says, before any packet is decoded:
/// what `VideoDecoder` plans the poster frame's memory from.
typedef struct {
    /// The first video stream's frame as stored (0 when the header does not
    /// say: MPEG-TS, some AVI, whose size only decoding finds), and as
    /// displayed before rotation (non-square samples applied).
    int stored_width, stored_height;
    int width, height;
    /// EXIF orientation (1, 3, 6 or 8) from the display matrix.
    int orientation;
    /// One decoded frame in the stream's pixel format; 0 when the header
    /// does not name the format (most do not: the decoder finds it).
    int64_t frame_bytes;
    /// 0 SDR, 1 PQ, 2 HLG, from the stream's transfer characteristic.
    int hdr;
    /// What the open container holds: its read buffer and the demuxer's
    /// index of every stream (an entry per sample).
    int64_t container_bytes;
} shim_video_header;

/// Reads the container's header through `fd` (by pread, as
/// shim_video_poster does): 0, or -1 when it cannot be read (then `out`
/// says nothing, and the poster's decode gives the reason).
int shim_video_header_read(int fd, int64_t size, shim_video_header *out);

/// Decodes the poster frame of the video read through `fd` (by pread, from
/// offset 0 to `size`; never reopened, never read whole): the first keyframe
/// at or after min(1 s, 10% of the video stream's duration), or the next ones while it is
/// black or flat. Fills `out` and returns SHIM_VIDEO_OK, or a failure kind
/// with its reason in `message` (FFmpeg's own words where it has some).
int shim_video_poster(int fd, int64_t size, const shim_video_limits *limits, shim_video_frame *out,
                      char *message, size_t message_size);

#endif
