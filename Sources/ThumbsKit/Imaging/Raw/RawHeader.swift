/// What both RAW entries of `DecoderList` plan from: the RAW's kind, what
/// LibRaw says of it once opened (no pixel decoded), and the picture the
/// item records.
///
/// The item's `info` is always the RAW's (kind, the photo's size after the
/// camera's crop, its orientation), never a preview's: the renderer resizes
/// the decoded pixels to the geometry of the RAW's sizes, so a preview with
/// the photo's aspect ratio just works, and one with another (letterboxed)
/// is never chosen (`RawPreviewFinder.choose`).
struct RawHeader {
    /// `dng`, `cr2`…: the sniff's word, and the kind in messages.
    var kind: String
    var facts: LibRawFacts
    var info: SourceImageInfo

    /// Whether a source the sniff named `format` may be a RAW: a RAW's kind,
    /// a TIFF (`SourceHeader` looks past the prefix, but a RAW may still
    /// sniff as one), or nothing the sniff knows.
    static func mayBeRaw(format: String?) -> Bool {
        guard let format else { return true }
        return format == "tiff" || RawSniffer.extensions.contains(format)
    }

    /// Nil when `source` is not a RAW. Opens it with LibRaw (which reads
    /// only what it parses) and checks `--max-pixels` on the photo's size.
    static func read(_ source: ImageSource, limits: DecodeLimits) throws(ItemError) -> RawHeader? {
        guard let kind = RawSniffer.format(read: { offset, count in source.bytes(at: offset, count: count) }) else { return nil }
        let facts = try LibRawFacts.read(source, kind: kind)
        guard facts.width > 0, facts.height > 0 else {
            throw ItemError.decode("LibRaw cannot open this \(kind.uppercased()) file: it reports no image size")
        }
        try limits.checkPixels(width: facts.width, height: facts.height)
        let info = SourceImageInfo(format: kind, storedWidth: facts.width, storedHeight: facts.height, orientation: facts.orientation)
        return RawHeader(kind: kind, facts: facts, info: info)
    }
}
