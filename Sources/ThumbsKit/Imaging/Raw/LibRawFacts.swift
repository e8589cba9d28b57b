import CRawShim

/// What LibRaw says of a RAW once opened, before any pixel is decoded
/// (`shim_raw_facts_read`): the photo's size after the camera's crop, its
/// orientation, and where LibRaw's one thumbnail lies in the file.
struct LibRawFacts: Sendable, Hashable {
    /// The photo as stored (before orientation), after the camera's crop.
    var width: Int
    var height: Int
    /// The sensor data's size: what unpacking it holds, 2 bytes a pixel.
    var rawWidth: Int
    var rawHeight: Int
    /// EXIF orientation (LibRaw's flip).
    var orientation: Int
    var make: String
    var model: String
    /// LibRaw's thumbnail when it is a JPEG lying whole in the file.
    var jpegThumbnail: Range<Int>?

    /// Opens the RAW in `source` (LibRaw reads only what it parses);
    /// `kind` names it in a failure's message.
    static func read(_ source: ImageSource, kind: String) throws(ItemError) -> LibRawFacts {
        var facts = shim_raw_facts()
        var message = [CChar](repeating: 0, count: 256)
        let code = try source.withLibRawInput { input in shim_raw_facts_read(input, &facts, &message, message.count) }
        guard code == 0 else { throw LibRawError.item(code: code, message: message, kind: kind, step: "open") }
        let size = source.count
        var thumbnail: Range<Int>?
        if facts.thumb_format == 1, facts.thumb_offset >= 0, facts.thumb_length > 0,
           let start = Int(exactly: facts.thumb_offset), start < size,
           facts.thumb_length <= size - start {
            thumbnail = start..<start + facts.thumb_length
        }
        return LibRawFacts(
            width: Int(facts.width), height: Int(facts.height), rawWidth: Int(facts.raw_width), rawHeight: Int(facts.raw_height),
            orientation: Int(facts.orientation), make: Self.text(&facts.make), model: Self.text(&facts.model),
            jpegThumbnail: thumbnail
        )
    }

    private static func text<T>(_ tuple: inout T) -> String {
        withUnsafeBytes(of: &tuple) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }
}

/// LibRaw's error codes (libraw_strerror's words) as item errors.
enum LibRawError {
    /// LIBRAW_FILE_UNSUPPORTED, LIBRAW_TOO_BIG, LIBRAW_UNSUFFICIENT_MEMORY.
    static let unsupported: Int32 = -2
    static let tooBig: Int32 = -100012
    static let noMemory: Int32 = -100007
    /// LIBRAW_IO_ERROR: LibRaw's reads ran on past the end of the file, or
    /// a damaged file kept them going (`BoundedStream`'s budget). The bytes
    /// were read (and hashed) already: it is the file, not the disk.
    static let ioError: Int32 = -100009

    static func item(code: Int32, message: [CChar], kind: String, step: String) -> ItemError {
        let words = String(decoding: message.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let name = kind.uppercased()
        switch code {
        case unsupported:
            return .unsupported("LibRaw cannot \(step) this \(name) file: \(words)")
        case tooBig, noMemory:
            return .tooLarge("LibRaw cannot \(step) this \(name) file: \(words)")
        case ioError:
            return .decode("LibRaw cannot \(step) this \(name) file: it is cut short or damaged (LibRaw: \(words))")
        default:
            return .decode("LibRaw cannot \(step) this \(name) file: \(words)")
        }
    }
}
