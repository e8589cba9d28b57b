/// What the manifest says of a video (`video` on an item, PRODUCT.md):
/// its duration, codec and frame rate, when its poster frame was taken,
/// and whether it was HDR and tone-mapped.
public struct VideoFacts: Sendable, Codable, Equatable, Hashable {
    /// Seconds: the container's duration, as players show it (ffprobe's
    /// `format.duration`), else the video stream's; 0 when neither says.
    public var durationSeconds: Double
    /// libavcodec's short name: `h264`, `hevc`, `vp9`, `av1`, `mpeg4`…
    public var codec: String
    /// Frames per second (the stream's average rate); 0 when unknown.
    public var fps: Double
    /// Time of the poster frame from the start of the stream, in seconds.
    public var frameAtSeconds: Double
    /// `hlg` or `pq` when the frame was tone-mapped from HDR to SDR.
    public var hdr: String?

    public init(durationSeconds: Double, codec: String, fps: Double, frameAtSeconds: Double, hdr: String? = nil) {
        self.durationSeconds = durationSeconds
        self.codec = codec
        self.fps = fps
        self.frameAtSeconds = frameAtSeconds
        self.hdr = hdr
    }

    /// Times to the millisecond and rates to 1/1000 (29.97 as 29.97, not
    /// 29.97002997002997): what a reader compares, and stable across runs.
    static func rounded(_ value: Double) -> Double {
        guard value.isFinite else { return 0 }
        return (value * 1000).rounded() / 1000
    }
}
