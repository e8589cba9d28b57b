import CVipsShim

/// What the three JPEG entries of `DecoderList` (`JPEGDCDecoder`,
/// `JPEGProgressiveDecoder`, `LibjpegDecoder`) share: the JPEG's header,
/// read once for them (`DecoderInput.jpeg`), the paths `JPEGPathRule`
/// allows it, and the plan of one path.
enum JPEGPlanning {
    /// A JPEG the direct paths may take.
    struct Header {
        var facts: JPEGFacts
        var info: SourceImageInfo
        /// The shrink on load every size allows.
        var shrink: Int
        /// `JPEGPathRule.candidates`: best first; empty for libvips.
        var candidates: [DecodePath]
        /// Bytes through the first SOS segment (`JPEGExtent.headerEnd(of:)`);
        /// the picture's length is found by the plan that decodes it.
        var headerEnd: Int
        /// A progressive file decoded at 1/1 into the largest size's resize
        /// (`jpeg_prog.c`), and what that holds; nil when not worth it.
        var streamed: (target: PixelSize, peakBytes: Int)?
    }

    /// Bytes past the first SOS segment given to the probe, so that libjpeg
    /// never meets the end of its input while it reads the header.
    static let probeMargin = 64

    /// Nil when the source is not a JPEG whose header libjpeg reads as one
    /// of its 8-bit kinds (libvips then decides). Reads the header's bytes
    /// only (from the prefix as a rule), and checks `--max-pixels`.
    static func read(_ input: DecoderInput) throws(ItemError) -> Header? {
        guard input.format == "jpeg", let headerEnd = JPEGExtent.headerEnd(of: input.source) else { return nil }
        let source = input.source, settings = input.settings
        let probed = min(source.count, headerEnd + probeMargin)
        let prefix = source.prefix
        func probe(_ bytes: UnsafeRawBufferPointer) -> (DirectJPEG.Header, SourceImageInfo, ThumbnailPlans, (PixelSize, Int)?)? {
            guard let header = DirectJPEG.probe(bytes) else { return nil }
            let info = SourceImageInfo(format: "jpeg", storedWidth: header.width, storedHeight: header.height, orientation: header.orientation)
            let plans = ThumbnailPlans(info, settings: settings)
            var streamed: (PixelSize, Int)?
            let shrink = plans.jpegShrink
            if header.progressive,
               let target = plans.streamTarget(decoded: ThumbnailGeometry.jpegDecodedSize(width: info.width, height: info.height, shrink: shrink)) {
                let bytes = shim_jpeg_streamed_bytes(bytes.baseAddress, bytes.count, Int32(shrink), Int32(target.width), Int32(target.height))
                if bytes > 0 { streamed = (target, bytes) }
            }
            return (header, info, plans, streamed)
        }
        let found = probed <= prefix.count
            ? prefix.withUnsafeBytes { probe(UnsafeRawBufferPointer(rebasing: $0[0..<probed])) }
            : try source.withBytes(in: 0..<probed) { bytes throws(ItemError) in probe(bytes) }
        guard let (header, info, plans, streamed) = found else { return nil }
        try input.limits.checkPixels(width: header.width, height: header.height)
        let shrink = plans.jpegShrink
        let facts = header.facts
        let candidates = JPEGPathRule.candidates(
            jpeg: facts, shrink: shrink, keepMetadata: settings.keepMetadata, pixelBudget: DirectJPEG.memoryBudget
        )
        return Header(facts: facts, info: info, shrink: shrink, candidates: candidates, headerEnd: headerEnd,
                      streamed: streamed.map { (target: $0.0, peakBytes: $0.1) })
    }

    /// The plan of the first path `JPEGPathRule` allows the source among
    /// `paths` (an entry's own), or nil.
    static func plan(_ input: DecoderInput, paths: Set<DecodePath>) throws(ItemError) -> DecodePlan? {
        guard let header = try input.jpeg(), let path = header.candidates.first(where: paths.contains) else { return nil }
        let shrink = header.shrink, info = header.info
        let full = header.facts.peakBytes(path: path, shrink: shrink)
        // Worth it when the resize saves more than its input rows and
        // scratch cost (not for a target of nearly the decode's size).
        let streamed = path == .jpegProgressive ? header.streamed.flatMap { $0.peakBytes < full ? $0 : nil } : nil
        let target = streamed?.target
        let decodePeak = streamed?.peakBytes ?? full
        let length = JPEGExtent.length(of: input.source, headerEnd: header.headerEnd)
        // From a file, the JPEG's bytes are held while it decodes.
        let held = input.source.inMemory ? 0 : length
        let budget = max(DirectJPEG.memoryBudget, decodePeak)
        return DecodePlan(
            path: path, info: info, shrink: shrink, peakBytes: decodePeak + held, target: target, reads: .ranges([0..<length])
        ) { source, _, limits throws(ItemError) in
            guard length <= source.count else { return nil }
            let pixels = try source.withBytes(in: 0..<length) { bytes throws(ItemError) in
                DirectJPEG.decode(bytes, path: path, shrink: shrink, target: target, memoryBudget: budget)
            }
            guard let pixels else { return nil }
            try source.checkUnchanged()
            return DecodedImage(info: info, decoder: pixels.decoder, stage: .pixels(pixels), failOn: limits.failOn)
        }
    }
}
