/// What `RawDecoder.plan` decided for a camera RAW, carried in `DecodePlan`.
public struct RawDecodePlan: Sendable, Hashable {
    /// The JPEG preview chosen: its bytes in the file, the JPEG shrink that
    /// fits the preview's own size, and its header's facts. Nil: develop.
    struct Preview: Sendable, Hashable {
        var range: Range<Int>
        var shrink: Int
        var facts: JPEGFacts
    }

    /// The RAW's kind (`dng`, `cr2`…), for messages.
    var kind: String
    var preview: Preview?
    /// Develop at half size: the box needs no more than half the photo.
    var halfSize: Bool
    /// The RAW's orientation: the preview's pixels carry it when their own
    /// header has none, and so do developed pixels (LibRaw leaves them as stored).
    var orientation: Int
}
