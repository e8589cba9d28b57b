/// A video's poster frame (`VideoThumbnailer`): FFmpeg's libraries read the
/// file through thumbs' descriptor, never whole.
///
/// The smallest entry of `DecoderList`, and the pattern for a new format:
/// pass on what is not yours (here by the sniff's format), and answer with
/// the path, what the header says, the memory, the bytes read and the decode.
struct VideoDecoder: ImageDecoder {
    /// What a poster frame's decode holds, reserved before the frame's size
    /// is known (FFmpeg opens the file in the decode): a 1080p stream's
    /// decoded frames (its references, about 6 of 3 MB in YUV 4:2:0) and the
    /// RGB copy (6 MB). Two fit the budget of `--jobs 2` (`MemoryBudget`), so
    /// videos still decode side by side; a larger frame is decoded all the
    /// same, up to `--max-pixels`.
    static let plannedPeakBytes = 24 << 20

    func plan(_ input: DecoderInput) throws(ItemError) -> DecodePlan? {
        guard let format = input.format, VideoSniffer.formats.contains(format) else { return nil }
        return DecodePlan(path: .video, info: nil, peakBytes: Self.plannedPeakBytes, reads: .streamed) { source, settings, limits throws(ItemError) in
            guard case .file(let file) = source else {
                throw ItemError.unsupported("a \(format.uppercased()) video is decoded from its file only")
            }
            let poster = try VideoThumbnailer.decode(file, settings: settings, limits: limits)
            var image = poster.image
            image.video = poster.facts
            return image
        }
    }
}
