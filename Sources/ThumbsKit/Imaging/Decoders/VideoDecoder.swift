/// A video's poster frame (`VideoThumbnailer`): FFmpeg's libraries read the
/// file through thumbs' descriptor, never whole.
///
/// The smallest entry of `DecoderList`, and the pattern for a new format:
/// pass on what is not yours (here by the sniff's format), and answer with
/// the path, what the header says, the memory, the bytes read and the decode.
struct VideoDecoder: ImageDecoder {
    func plan(_ input: DecoderInput) throws(ItemError) -> DecodePlan? {
        guard let format = input.format, VideoSniffer.formats.contains(format) else { return nil }
        // The container's header (its frame size, pixel format, index): what
        // the decode will hold. Nothing is decoded yet.
        var peakBytes = 0
        if case .file(let file) = input.source {
            peakBytes = VideoPosterMemory.peakBytes(
                VideoPosterMemory.header(file), format: format, settings: input.settings, limits: input.limits
            )
        }
        return DecodePlan(path: .video, info: nil, peakBytes: peakBytes, reads: .streamed) { source, settings, limits throws(ItemError) in
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
