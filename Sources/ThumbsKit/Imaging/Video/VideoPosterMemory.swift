import CVideoShim

/// What decoding a video's poster frame holds at its peak (`VideoDecoder`'s
/// plan), from what its container's header says (`shim_video_header_read`):
/// the decoder's frames at the stream's size, the scaler's RGB at the
/// poster's size, and the demuxer's index.
///
/// FFmpeg's own small allocations (a codec's tables, the scaler's few filter
/// rows) are not counted: under a megabyte at 4K, below what the budget
/// counts at all (`MemoryBudget.smallReservation`).
enum VideoPosterMemory {
    /// Decoded frames held at once (`video_poster.c`): the best keyframe so
    /// far (`best`, kept while later ones are tried) and the one being
    /// decoded (`frame`; the decoder's own reference to it is the same
    /// buffer, let go at its next flush). Slice threads share one frame;
    /// frame threading, which would hold one per thread, is not used.
    /// Measured: a 4K H.264 clip whose first keyframe is its poster peaks one
    /// frame (12 MB) above a 160×90 clip's RSS, one that starts black (three
    /// keyframes tried) two frames above it.
    static let decodedFrames = 2

    /// Bits a pixel of a decoded frame when the header does not name the
    /// pixel format (most do not: the decoder finds it in the stream): 4:2:0
    /// chroma, as phones and cameras record, at 8 bits (12 bits a pixel);
    /// tagged PQ or HLG, at 10 bits kept in 16-bit words (24).
    static let sdrBitsPerPixel = 12
    static let hdrBitsPerPixel = 24

    /// The scaler's output at the poster's size (after its shrink): 8-bit
    /// RGB, handed to the renderer; an HDR frame is first converted to
    /// 16-bit RGB and tone-mapped from it into the 8-bit one.
    static let rgbBytesPerPixel = 3
    static let wideRGBBytesPerPixel = 6

    /// A stream whose header has no frame size (MPEG-TS, some AVI: decoding
    /// finds it) is planned as a camcorder's AVCHD frame; a larger one is
    /// decoded all the same, up to `--max-pixels`.
    static let assumedFrame = (width: 1920, height: 1080)

    /// The peak of the poster's decode of a video whose header is `header`
    /// (nil: unreadable, and the decode will fail on it as it opens).
    static func peakBytes(_ header: shim_video_header?, format: String, settings: OutputSettings, limits: DecodeLimits) -> Int {
        guard let header else { return 0 }
        let known = header.stored_width > 0 && header.stored_height > 0
        let stored = known ? (Int(header.stored_width), Int(header.stored_height)) : assumedFrame
        let shown = known ? (Int(header.width), Int(header.height)) : assumedFrame
        // The decode refuses a frame over --max-pixels before decoding it.
        let pixels = min(stored.0 * stored.1, limits.maxPixels)
        guard pixels == stored.0 * stored.1 else { return Int(header.container_bytes) }
        let frameBytes = header.frame_bytes > 0
            ? Int(header.frame_bytes)
            : pixels * (header.hdr != 0 ? hdrBitsPerPixel : sdrBitsPerPixel) / 8
        let shrink = VideoThumbnailer.shrink(
            format: format, width: shown.0, height: shown.1, orientation: Int(header.orientation), settings: settings
        )
        let posterPixels = ((shown.0 + shrink - 1) / shrink) * ((shown.1 + shrink - 1) / shrink)
        let rgb = posterPixels * (rgbBytesPerPixel + (header.hdr != 0 ? wideRGBBytesPerPixel : 0))
        return decodedFrames * frameBytes + rgb + Int(header.container_bytes)
    }

    /// The container's header, read through the descriptor; nil when it
    /// cannot be read.
    static func header(_ file: SourceFile) -> shim_video_header? {
        var header = shim_video_header()
        let code = file.withDescriptor { fd in shim_video_header_read(fd, Int64(file.size), &header) }
        return code == 0 ? header : nil
    }
}
