import CVipsShim

/// A camera JPEG's own smaller copy of the photo (issue 35): an MPF large
/// thumbnail, a maker-note preview or the Exif thumbnail, as
/// `embedded_pictures.c` lists them, decoded on the JPEG paths instead of the
/// photo when it covers every size. First in `DecoderList`, ahead of the DC
/// entry; it passes (nil), and the photo's own entries plan, unless:
/// - the photo's segments were all read and nothing in them says the photo
///   changed after the camera wrote it (the frame's size is
///   PixelX/YDimension, Software reads as firmware, ModifyDate is
///   DateTimeOriginal, no XMP editor or history): editors and `jpegtran`
///   keep the camera's stale preview;
/// - the photo has no ICC profile (the preview's colours would not be its)
///   and `--keep-metadata` is off (libvips copies the photo's metadata);
/// - a candidate covers every box at its decode scale (stored orientation,
///   as the photo's), has the photo's aspect ratio within 1%
///   (`aspectTolerance`: a letterboxed or cropped preview has not), no
///   orientation of its own but the photo's, and is within `--max-pixels`
///   (a Minolta preview whose first byte the camera wrote as 0x00 counts,
///   mended: `withSOI`).
/// The cheapest such candidate (fewest pixels) serves. A preview that some
/// camera's firmware crops a little (`JPEGPreviewCrops`) is stretched back
/// over the photo's frame once decoded. The item's `info` is
/// the photo's (size, orientation): the manifest keeps the photo's size, and
/// the renderer resizes the preview's pixels to the photo's geometry. The
/// plan reads the preview's bytes only, and so does the item: it is hashed
/// where it was read (`ItemProcessor`, manifest `read`), unless
/// `--whole-files`. A preview that does not decode declines: the next entry
/// plans the photo, and the item is then hashed whole.
///
/// Not caught: a lossless crop to the photo's own shape by libjpeg-turbo's
/// `jpegtran -copy all`, which rewrites PixelX/YDimension to the crop's
/// size and keeps a maker note's preview (inside APP1) as it was. A crop to
/// another shape, or a rotation, fails the aspect rule; an MPF image, after
/// the photo's EOI, is dropped by jpegtran and refused as outside the file.
struct JPEGPreviewDecoder: ImageDecoder {
    /// MPF type codes of large thumbnails (CIPA DC-007: VGA, full HD, and
    /// the 4K and 8K classes of its later editions). Other MPF images (a
    /// stereo view, a panorama's part, a phone's gain map: type 0) are not
    /// previews.
    static let largeThumbnailTypes: Set<UInt32> = [0x010001, 0x010002, 0x010003, 0x010004]
    /// A candidate's width/height may differ from the photo's by this share.
    static let aspectTolerance = 0.01
    /// What is read of a candidate that lies past the photo's header, to
    /// probe its own (more only when its segments before the scan are longer).
    static let headerBytes = 64 << 10

    typealias Picture = EmbeddedPictureListing.Picture

    func plan(_ input: DecoderInput) throws(ItemError) -> DecodePlan? {
        guard !input.settings.keepMetadata, let header = try input.jpeg() else { return nil }
        let source = input.source
        guard let listing = try Self.listing(source, headerEnd: header.headerEnd),
              listing.complete, listing.edits == 0, !listing.iccProfile else { return nil }
        let info = header.info
        let plans = ThumbnailPlans(info, settings: input.settings)
        guard let (picture, probed) = Self.choose(
            listing.pictures, in: source, photo: plans.storedSize, orientation: info.orientation,
            needed: plans.neededSize, maxPixels: input.limits.maxPixels
        ) else { return nil }
        let needed = plans.neededSize
        let shrink = ThumbnailGeometry.jpegShrink(
            sourceWidth: probed.width, sourceHeight: probed.height, neededWidth: needed.width, neededHeight: needed.height
        )
        let facts = probed.facts
        let paths = JPEGPathRule.candidates(jpeg: facts, shrink: shrink, keepMetadata: false, pixelBudget: DirectJPEG.memoryBudget)
        let decodePeak = (paths.first.map { facts.peakBytes(path: $0, shrink: shrink) } ?? facts.peakBytes(path: .libjpeg, shrink: shrink))
        let range = picture.range
        let crop = JPEGPreviewCrops.crop(
            make: listing.make, model: listing.model, photo: PixelSize(width: plans.storedSize.width, height: plans.storedSize.height),
            preview: PixelSize(width: probed.width, height: probed.height)
        )
        // From a file, the preview's bytes are held while it decodes, and a
        // mended copy of them (`withSOI`) from a file or from memory; with a
        // crop to undo, the decoded pixels twice.
        let repaired = picture.has(Int32(SHIM_EP_SOI_REPAIRED))
        let uncropped = crop == nil ? 0 : facts.decodedBytes(shrink: shrink)
        let held = (source.inMemory ? 0 : range.count) + (repaired ? range.count : 0) + uncropped
        let budget = max(DirectJPEG.memoryBudget, decodePeak)
        let orientation = info.orientation
        return DecodePlan(
            path: .jpegPreview, info: info, shrink: shrink, peakBytes: decodePeak + held, reads: .ranges([range])
        ) { source, _, limits throws(ItemError) in
            guard range.upperBound <= source.count else { return nil }
            let decoded = try source.withBytes(in: range) { slice throws(ItemError) in
                try Self.withSOI(slice, repaired: repaired) { bytes throws(ItemError) in
                    PreviewPathAttempts.decode(bytes, paths: paths, shrink: shrink, memoryBudget: budget)
                }
            }
            guard let decoded else { return nil }
            try source.checkUnchanged()
            if let crop {
                let window = JPEGPreviewCrops.window(crop, decoded: PixelSize(width: decoded.width, height: decoded.height))
                // Refused or out of memory: the preview as the camera cropped it.
                _ = decoded.resample(from: window)
            }
            return DecodedImage(
                info: info, decoder: .jpegPreview, stage: .pixels(decoded.asJPEGPreview(orientation: orientation)), failOn: limits.failOn
            )
        }
    }

    /// The listing of the photo's segments (through its first scan header).
    static func listing(_ source: ImageSource, headerEnd: Int) throws(ItemError) -> EmbeddedPictureListing? {
        let end = min(headerEnd, source.count)
        let prefix = source.prefix
        if end <= prefix.count {
            return prefix.withUnsafeBytes { EmbeddedPictureListing.jpeg(UnsafeRawBufferPointer(rebasing: $0[0..<end]), fileSize: source.count) }
        }
        return try source.withBytes(in: 0..<end) { bytes throws(ItemError) in EmbeddedPictureListing.jpeg(bytes, fileSize: source.count) }
    }

    /// A candidate as the JPEG paths see it: its own header's facts.
    struct Probed {
        var width: Int
        var height: Int
        var facts: JPEGFacts
    }

    /// The cheapest picture that serves: the fewest pixels among those that
    /// pass `fits`, each probed by `DirectJPEG.probe` (libjpeg's reading of
    /// its header) before it counts. `serves` says which kinds of picture
    /// may stand for the photo (a RAW's: `RawPreviewFinder.serves`).
    static func choose(
        _ pictures: [Picture], in source: ImageSource, photo: (width: Int, height: Int), orientation: Int,
        needed: (width: Int, height: Int), maxPixels: Int, serves: (Picture) -> Bool = servesJPEG
    ) -> (Picture, Probed)? {
        let fitting = pictures
            .filter {
                serves($0)
                    && (fits($0, photo: photo, orientation: orientation, needed: needed, maxPixels: maxPixels) || $0.has(Int32(SHIM_EP_UNPROBED)))
            }
            .sorted { $0.width * $0.height < $1.width * $1.height }
        for picture in fitting {
            guard var candidate = probe(picture, in: source),
                  fits(candidate.picture, photo: photo, orientation: orientation, needed: needed, maxPixels: maxPixels),
                  candidate.probed.width == candidate.picture.width, candidate.probed.height == candidate.picture.height
            else { continue }
            candidate.picture.flags &= ~Int32(SHIM_EP_UNPROBED)
            return (candidate.picture, candidate.probed)
        }
        return nil
    }

    /// Whether a JPEG's listed picture is a preview's kind: an MPF large
    /// thumbnail, a maker-note preview, the Exif thumbnail.
    static func servesJPEG(_ p: Picture) -> Bool {
        switch p.kind {
        case .mpf: largeThumbnailTypes.contains(p.mpfType)
        case .makerNote, .exifThumbnail: true
        default: false
        }
    }

    /// Whether a listed picture (of a kind that `serves`) may stand for the
    /// photo: a whole baseline or progressive 8-bit JPEG (no flag against
    /// it), of the photo's shape, orientation and at least the needed size.
    static func fits(
        _ p: Picture, photo: (width: Int, height: Int), orientation: Int, needed: (width: Int, height: Int), maxPixels: Int
    ) -> Bool {
        guard p.flags & ~Int32(SHIM_EP_SOI_REPAIRED) == 0, [0xC0, 0xC1, 0xC2].contains(p.frameMarker), p.components == 1 || p.components == 3 else { return false }
        guard p.orientation <= 1 || p.orientation == orientation else { return false }
        let (w, h) = (p.width, p.height)
        guard w > 0, h > 0, photo.width > 0, photo.height > 0, w.multipliedReportingOverflow(by: h).partialValue <= maxPixels else {
            return false
        }
        // w/h against photo.width/photo.height, within aspectTolerance.
        let off = abs(Double(w * photo.height) - Double(h * photo.width))
        guard off <= aspectTolerance * Double(h * photo.width) else { return false }
        return w >= needed.width && h >= needed.height
    }

    /// The picture's header read from its first bytes (`headerBytes`, or all
    /// of it when its segments before the scan are longer): libjpeg's facts,
    /// and the parser's probe for a picture past the photo's header.
    ///
    /// All of it is read only when the first bytes end before the frame
    /// header or the first scan: a header read whole that libjpeg refuses
    /// (a RAW's lossless sensor data, tens of MB, is a listed picture too)
    /// is refused without reading the rest.
    private static func probe(_ picture: Picture, in source: ImageSource) -> (picture: Picture, probed: Probed)? {
        let range = picture.range
        guard range.lowerBound >= 0, range.upperBound <= source.count else { return nil }
        let head = source.inMemory ? range.count : min(range.count, headerBytes)
        /// The probed picture, or nil and whether more bytes could change that.
        func read(_ count: Int) -> (found: (Picture, Probed)?, cutShort: Bool) {
            let read = try? source.withBytes(in: range.lowerBound..<range.lowerBound + count) { bytes -> ((Picture, Probed)?, Bool) in
                var raw = shim_embedded_picture()
                raw.offset = UInt64(range.lowerBound)
                raw.length = UInt64(range.count)
                raw.kind = picture.kind?.rawValue ?? 0
                raw.mpf_type = picture.mpfType
                // A Minolta preview past the photo's header was listed before
                // its first byte could be seen: probed mended when that byte
                // is not 0xFF (shim_embedded_probe checks the rest of the SOI).
                let minolta = picture.maker == Int32(SHIM_EP_MAKER_MINOLTA) && bytes.first != 0xFF
                raw.flags = picture.has(Int32(SHIM_EP_SOI_REPAIRED)) || minolta ? Int32(SHIM_EP_SOI_REPAIRED) : 0
                guard let base = bytes.baseAddress else { return (nil, false) }
                guard shim_embedded_probe(base.assumingMemoryBound(to: UInt8.self), bytes.count, &raw) == 0 else { return (nil, true) }
                let header = withSOI(bytes, repaired: raw.flags & Int32(SHIM_EP_SOI_REPAIRED) != 0) { DirectJPEG.probe($0) }
                guard let header else { return (nil, !reachesScan(bytes)) }
                var probed = Picture(raw)
                probed.flags = raw.flags | (picture.flags & ~Int32(SHIM_EP_UNPROBED))
                probed.maker = picture.maker
                return ((probed, Probed(width: header.width, height: header.height, facts: header.facts)), false)
            }
            return read.map { (found: $0.0, cutShort: $0.1) } ?? (nil, false)
        }
        let first = read(head)
        if let found = first.found { return found }
        return first.cutShort && head < range.count ? read(range.count).found : nil
    }

    /// Calls `body` with `bytes` as libjpeg must see them: when `repaired`
    /// (SHIM_EP_SOI_REPAIRED: Minolta's DiMAGE A1 and 7Hi write 0x00 where
    /// their preview's SOI begins with 0xFF, as exiftool notes and mends), a
    /// copy whose first byte is 0xFF; else `bytes` themselves.
    static func withSOI<R, E: Error>(
        _ bytes: UnsafeRawBufferPointer, repaired: Bool, _ body: (UnsafeRawBufferPointer) throws(E) -> R
    ) throws(E) -> R {
        guard repaired, !bytes.isEmpty else { return try body(bytes) }
        var copy = [UInt8](bytes)
        copy[0] = 0xFF
        let result: Result<R, E> = copy.withUnsafeBytes { mended in
            do throws(E) { return .success(try body(mended)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Whether `bytes`, a JPEG's first bytes, reach its first scan (SOS), or
    /// stop being segments before it: either way, more bytes cannot change
    /// what libjpeg says of its header.
    static func reachesScan(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var at = 2
        while at + 4 <= bytes.count {
            guard bytes[at] == 0xFF else { return true }
            let marker = bytes[at + 1]
            if marker == 0xFF { at += 1; continue }  // fill byte
            if marker == 0xDA || marker == 0xD9 { return true }
            if marker == 0x01 || (0xD0...0xD8).contains(marker) { at += 2; continue }  // no length
            at += 2 + (Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]))
        }
        return false
    }
}
