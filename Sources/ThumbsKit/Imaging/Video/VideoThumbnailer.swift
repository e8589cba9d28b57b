import CVideoShim
import CVips
import CVipsShim

/// A video's poster frame as a `DecodedImage` waiting for
/// `Thumbnailer.finish` (decode path `video`), and its `VideoFacts`.
///
/// FFmpeg's libraries read the file through the descriptor thumbs opened
/// (`SourceFile`): the file is never opened again by name and never read
/// whole, so a 4 GB video costs the memory of one decoded frame. Blocking
/// and CPU-bound: call it on the decoding pool.
enum VideoThumbnailer {
    /// Bounds on one file's work (`shim_video_limits`), so that a hostile
    /// file cannot loop: packets and their bytes read after the header,
    /// and keyframes tried while they are black or flat. Each is far past
    /// what a camera's or phone's video needs, so only a broken or hostile
    /// file meets one: the best frame decoded so far is its poster, or with
    /// none it fails, the counts in its message.
    ///
    /// Packets read: a phone's 30 fps video with its sound comes in about
    /// 80 packets a second, so 4096 are some 50 seconds of it: the
    /// keyframes after the poster's target (a tenth of the way in, at most 1 s), and the
    /// 10 seconds `video_poster.c` waits for one before it takes the
    /// keyframe before the target.
    static let maxPackets: Int32 = 4096
    /// Bytes of those packets: a 4K phone video (50 to 100 Mbit/s) reaches
    /// 512 MB after 40 to 80 seconds, later than it reaches `maxPackets`;
    /// a file of a few huge packets stops here (`video_poster.c` also
    /// stops its reads 64 MB past this).
    static let maxPacketBytes: Int64 = 512 << 20
    /// Keyframes decoded while each is black or flat (a fade in): a
    /// phone's keyframes come a second or so apart, so 4 look a few seconds
    /// past a dark opening, at the cost of one frame's decode each.
    static let maxCandidates: Int32 = 4

    /// The poster frame, waiting for `Thumbnailer.finish`, and the facts.
    struct Poster: Sendable {
        var image: DecodedImage
        var facts: VideoFacts
    }

    /// `settings` (nil: full size) lets the frame be scaled down as it is
    /// converted to RGB, by the factor a JPEG would be shrunk on load
    /// (`ThumbnailPlans.jpegShrink`): no more pixels than the sizes need.
    static func decode(_ file: SourceFile, settings: OutputSettings?, limits: DecodeLimits) throws(ItemError) -> Poster {
        let format = VideoSniffer.format(of: file.prefix) ?? "video"
        let chooser = ShrinkChooser(settings: settings, format: format)
        var bounds = shim_video_limits(
            max_pixels: Int64(limits.maxPixels), max_packets: maxPackets, max_packet_bytes: maxPacketBytes,
            max_candidates: maxCandidates, threads: Int32(VipsRuntime.threadsPerImage),
            shrink_for: { context, width, height, orientation in
                guard let context else { return 1 }
                return Int32(Unmanaged<ShrinkChooser>.fromOpaque(context).takeUnretainedValue()
                    .shrink(width: Int(width), height: Int(height), orientation: Int(orientation)))
            },
            context: Unmanaged.passUnretained(chooser).toOpaque()
        )
        var frame = shim_video_frame()
        var message = [CChar](repeating: 0, count: 512)
        let result = withExtendedLifetime(chooser) {
            file.withDescriptor { fd in
                shim_video_poster(fd, Int64(file.size), &bounds, &frame, &message, message.count)
            }
        }
        let text = String(decoding: message.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch Int(result) {
        case SHIM_VIDEO_OK:
            break
        case SHIM_VIDEO_TOO_LARGE:
            // The decoder's own check, so that every path refuses in the same words.
            try limits.checkPixels(width: Int(frame.width), height: Int(frame.height))
            throw ItemError.tooLarge("the video's frame is larger than --max-pixels allows")
        case SHIM_VIDEO_UNSUPPORTED:
            throw ItemError.unsupported("cannot make a poster frame of this \(format.uppercased()) file: \(text)")
        default:
            throw ItemError.decode("cannot decode this \(format.uppercased()) video: \(text)")
        }
        try file.checkUnchanged()
        let facts = VideoFacts(
            durationSeconds: VideoFacts.rounded(frame.duration), codec: string(frame.codec),
            fps: VideoFacts.rounded(frame.fps), frameAtSeconds: VideoFacts.rounded(frame.frame_time),
            hdr: frame.hdr == 1 ? "pq" : frame.hdr == 2 ? "hlg" : nil
        )
        var pixels = shim_jpeg_pixels()
        pixels.pixels = frame.pixels
        pixels.width = Int(frame.pixels_width)
        pixels.height = Int(frame.pixels_height)
        pixels.bands = 3
        pixels.xres = 1
        pixels.yres = 1
        pixels.orientation = frame.orientation
        let decoded = DecodedPixels(pixels, decoder: .video)
        let info = SourceImageInfo(
            format: format, storedWidth: Int(frame.width), storedHeight: Int(frame.height), orientation: Int(frame.orientation)
        )
        return Poster(image: DecodedImage(info: info, decoder: .video, stage: .pixels(decoded), failOn: limits.failOn), facts: facts)
    }

    /// Answers `shrink_for` from C: the thumbnails' plans for a frame of
    /// that size. A class so that C can hold it by an opaque pointer.
    private final class ShrinkChooser {
        let settings: OutputSettings?
        let format: String
        init(settings: OutputSettings?, format: String) {
            self.settings = settings
            self.format = format
        }
        func shrink(width: Int, height: Int, orientation: Int) -> Int {
            VideoThumbnailer.shrink(format: format, width: width, height: height, orientation: orientation, settings: settings)
        }
    }

    /// The factor a frame of that displayed size is scaled down by as it is
    /// converted to RGB: the JPEG shrink on load of the thumbnails' plans
    /// (`ThumbnailPlans.jpegShrink`); 1 without settings (full size).
    static func shrink(format: String, width: Int, height: Int, orientation: Int, settings: OutputSettings?) -> Int {
        guard let settings else { return 1 }
        let info = SourceImageInfo(format: format, storedWidth: width, storedHeight: height, orientation: orientation)
        return ThumbnailPlans(info, settings: settings).jpegShrink
    }

    private static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }
}
