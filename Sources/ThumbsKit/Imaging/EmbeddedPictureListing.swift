import CVipsShim

/// What `embedded_pictures.c` lists of a camera file: the pictures it
/// carries besides its main one (MPF images, the Exif thumbnail, maker-note
/// previews; a TIFF RAW's IFD images and JPEGs), and the facts that say the
/// main picture changed after the camera wrote it. Swift never parses these
/// untrusted bytes itself: it reads the C listing.
struct EmbeddedPictureListing: Sendable {
    struct Picture: Sendable, Equatable {
        enum Kind: Int32, Sendable {
            case mpf = 1, exifThumbnail, makerNote, tiffImage, jpgFromRaw, previewImage
        }

        /// Where its bytes lie in the file (checked against its size).
        var range: Range<Int>
        /// Its size from its own frame header (0 x 0 until probed).
        var width: Int
        var height: Int
        var kind: Kind?
        /// `SHIM_EP_MAKER_*` of a maker note's preview.
        var maker: Int32
        /// `SHIM_EP_NOT_JPEG`...
        var flags: Int32
        /// The JPEG frame marker (0xC0 baseline, 0xC2 progressive...), 0 when not read.
        var frameMarker: Int
        var components: Int
        /// Its own Exif orientation, 0 when it has none.
        var orientation: Int
        /// An MPF entry's type code (0x010001, 0x010002: large thumbnails).
        var mpfType: UInt32
        var compression: Int

        init(_ raw: shim_embedded_picture) {
            range = Int(raw.offset)..<Int(raw.offset + raw.length)
            width = Int(raw.width)
            height = Int(raw.height)
            kind = Kind(rawValue: raw.kind)
            maker = raw.maker
            flags = raw.flags
            frameMarker = Int(raw.sof)
            components = Int(raw.components)
            orientation = Int(raw.orientation)
            mpfType = raw.mpf_type
            compression = Int(raw.compression)
        }

        func has(_ flag: Int32) -> Bool { flags & flag != 0 }
    }

    var pictures: [Picture]
    /// Candidates left out: outside the file, too short, duplicates, past a cap.
    var refused: Int
    /// A cap (`SHIM_EP_MAX_*`) stopped the reading.
    var capped: Bool
    /// The main picture's frame size (0 until its SOF was read) and Exif orientation.
    var width: Int
    var height: Int
    var orientation: Int
    /// The bytes read reached the JPEG's first scan: every segment was seen.
    var complete: Bool
    /// An APP2 ICC profile precedes the scan (the main picture's colours are its).
    var iccProfile: Bool
    var pixelX: Int
    var pixelY: Int
    var make: String
    var model: String
    var software: String
    var modifyDate: String
    var dateOriginal: String
    var creatorTool: String
    /// `SHIM_EP_EDIT_*` bits: 0 when nothing says the picture changed.
    var edits: Int32
    /// The bytes from the file's start that would reach every directory the
    /// structure names (a RAW's, listed from its first bytes); 0 when the
    /// bytes given held them all.
    var wanted: Int

    init(_ raw: shim_embedded_listing) {
        var raw = raw
        let count = Int(max(0, min(raw.count, SHIM_EP_MAX_PICTURES)))
        pictures = withUnsafeBytes(of: &raw.pictures) { bytes in
            bytes.bindMemory(to: shim_embedded_picture.self).prefix(count).map(Picture.init)
        }
        refused = Int(raw.refused)
        capped = raw.capped != 0
        width = Int(raw.width)
        height = Int(raw.height)
        orientation = Int(raw.orientation)
        complete = raw.complete != 0
        iccProfile = raw.icc_profile != 0
        pixelX = Int(raw.pixel_x)
        pixelY = Int(raw.pixel_y)
        make = Self.text(&raw.make)
        model = Self.text(&raw.model)
        software = Self.text(&raw.software)
        modifyDate = Self.text(&raw.modify_date)
        dateOriginal = Self.text(&raw.date_original)
        creatorTool = Self.text(&raw.creator_tool)
        edits = raw.edits
        wanted = Int(clamping: raw.wanted)
    }

    /// The listing of a JPEG from its first bytes; nil when they are not a JPEG.
    static func jpeg(_ bytes: UnsafeRawBufferPointer, fileSize: Int) -> EmbeddedPictureListing? {
        guard let base = bytes.baseAddress else { return nil }
        var raw = shim_embedded_listing()
        guard shim_embedded_pictures_jpeg(base.assumingMemoryBound(to: UInt8.self), bytes.count, UInt64(fileSize), &raw) == 0
        else { return nil }
        return EmbeddedPictureListing(raw)
    }

    /// The listing of a TIFF-based RAW from its first bytes (all of them, or
    /// as many as hold its directories: see `wanted`); nil when they are
    /// not a TIFF.
    static func tiff(_ bytes: UnsafeRawBufferPointer, fileSize: Int) -> EmbeddedPictureListing? {
        guard let base = bytes.baseAddress else { return nil }
        var raw = shim_embedded_listing()
        guard shim_embedded_pictures_tiff(base.assumingMemoryBound(to: UInt8.self), bytes.count, UInt64(fileSize), &raw) == 0
        else { return nil }
        return EmbeddedPictureListing(raw)
    }

    /// A C string field (a NUL-terminated tuple of CChar), read within its bounds.
    private static func text<T>(_ field: inout T) -> String {
        withUnsafeBytes(of: &field) { bytes in
            let end = bytes.firstIndex(of: 0) ?? bytes.count
            return String(decoding: bytes[..<end], as: UTF8.self)
        }
    }
}
