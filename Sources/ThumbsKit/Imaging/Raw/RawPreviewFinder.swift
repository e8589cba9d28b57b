import CVipsShim

/// The JPEG previews a RAW holds, from the one listing of the pictures a
/// camera file carries (`embedded_pictures.c`, read through
/// `EmbeddedPictureListing`): every TIFF IFD and SubIFD image that is one
/// JPEG (a DNG's preview IFDs, a CR2's IFD0), JpgFromRaw (a NEF's SubIFD,
/// Panasonic's 0x002E), PreviewImage (IFD0's or a later IFD's
/// JPEGInterchangeFormat) and the maker notes' previews the listing reads
/// (Nikon, Pentax, Olympus); and LibRaw's own thumbnail, how the formats
/// that are not TIFFs (CR3, RAF, CRW) show theirs. The choice is
/// `JPEGPreviewDecoder.choose`'s, the rule a camera JPEG's preview follows.
enum RawPreviewFinder {
    typealias Picture = EmbeddedPictureListing.Picture

    /// What a listing reads of a file at most: a RAW's directories lie
    /// before its sensor data as a rule, after a full-size preview in some
    /// (the tests' DNGs): past this, only the directories it reached count.
    static let listingBytes = 16 << 20

    /// The kinds of listed picture that may stand for a RAW's photo.
    static func serves(_ picture: Picture) -> Bool {
        switch picture.kind {
        case .tiffImage, .jpgFromRaw, .previewImage, .makerNote: true
        default: false
        }
    }

    /// The RAW's candidates: the listing's pictures, and LibRaw's thumbnail
    /// when the listing does not hold those very bytes (unprobed: the
    /// choice reads its header).
    static func candidates(in source: ImageSource, libraw: Range<Int>?) -> [Picture] {
        var pictures = listing(source)?.pictures ?? []
        if let libraw, !pictures.contains(where: { $0.range == libraw }), libraw.lowerBound >= 0, libraw.count >= 4 {
            var raw = shim_embedded_picture()
            raw.offset = UInt64(libraw.lowerBound)
            raw.length = UInt64(libraw.count)
            raw.kind = Int32(SHIM_EP_PREVIEW_IMAGE)
            raw.flags = Int32(SHIM_EP_UNPROBED)
            pictures.append(Picture(raw))
        }
        return pictures
    }

    /// The listing of a TIFF-based RAW (nil for the others: CR3, RAF,
    /// CRW...): from the file's first bytes (its prefix, in memory already),
    /// then as many more as the listing says would reach the directories it
    /// could not read (`wanted`), doubling at least each time, up to
    /// `listingBytes`. From memory, all of it at once.
    static func listing(_ source: ImageSource) -> EmbeddedPictureListing? {
        let size = source.count
        if case .memory(let bytes) = source { return EmbeddedPictureListing.tiff(bytes, fileSize: size) }
        var listing = source.prefix.withUnsafeBytes { EmbeddedPictureListing.tiff($0, fileSize: size) }
        var given = min(source.prefix.count, size)
        while let read = listing, read.wanted > given, given < min(size, listingBytes) {
            given = min(max(read.wanted, 2 * given), size, listingBytes)
            let count = given
            guard let next = try? source.withBytes(in: 0..<count, { EmbeddedPictureListing.tiff($0, fileSize: size) }) else { break }
            listing = next
        }
        return listing
    }

    /// The cheapest candidate that covers `needed` at its decode scale
    /// (stored orientation, as the photo's), by `JPEGPreviewDecoder`'s rule:
    /// a whole 8-bit JPEG, the photo's aspect ratio within 1%, no
    /// orientation of its own but the RAW's, within `maxPixels`.
    static func choose(
        _ pictures: [Picture], in source: ImageSource, photo: (width: Int, height: Int), orientation: Int,
        needed: (width: Int, height: Int), maxPixels: Int
    ) -> (Picture, JPEGPreviewDecoder.Probed)? {
        JPEGPreviewDecoder.choose(
            pictures, in: source, photo: photo, orientation: orientation, needed: needed, maxPixels: maxPixels, serves: serves
        )
    }
}
