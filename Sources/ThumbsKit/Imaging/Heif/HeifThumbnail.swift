import Foundation
import CHeifShim
import CVipsShim

/// HEIF, HEIC and AVIF files whose embedded thumbnail serves the box.
///
/// A phone's HEIC carries a small copy of the photo (320 px on an iPhone
/// 15). When it is at least as large as the largest thumbnail asked for,
/// decoding it instead of the 12 MP primary image costs a few milliseconds
/// instead of hundreds (vipsthumbnail does the same). It is used only when
/// it is a scaled copy of the primary image as displayed: libheif applies
/// each image's own rotation, mirroring and crop and reports sizes after
/// them, and the thumbnail's aspect ratio must be the primary's to within a
/// pixel of the thumbnail. A thumbnail of another shape (cropped, or turned
/// differently) is never used. A mirrored thumbnail of an unmirrored photo
/// has the same shape and cannot be told apart from the boxes libheif
/// exposes; no camera writes one.
enum HeifThumbnail {
    /// What `plan` found: the primary image's size, and the thumbnail to
    /// decode, if one serves.
    struct Facts: Sendable, Hashable {
        var width: Int
        var height: Int
        var thumbnail: Int?
        var thumbnailWidth = 0
        var thumbnailHeight = 0
        /// The primary image's nclx box names PQ or HLG.
        var hdr = false
        /// The primary image is a grid of coded images (a phone's tiles).
        var grid = false
    }

    /// Throws, with the loader's message, when libheif cannot be loaded (a
    /// machine without it): libvips's HEIF loader (`vips-heif.so`) and
    /// ImageMagick's link the same libheif, so no later entry could read a
    /// `format` file either, and the item says why.
    static func requireLibrary(format: String) throws(ItemError) {
        var message = [CChar](repeating: 0, count: 320)
        guard shim_heif_library_load(&message, message.count) != 0 else { return }
        let why = String(decoding: message.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        throw ItemError.unsupported("cannot read this \(format.uppercased()) file: \(why)")
    }

    /// Reads the file's boxes; nil when libheif cannot (libvips then reads
    /// the file and gives the item its verdict, as for any format).
    static func facts(_ source: ImageSource, plans: (SourceImageInfo) -> ThumbnailPlans) throws(ItemError) -> Facts? {
        var info = shim_heif_info()
        let probed = try HeifInput.with(source) { input throws(ItemError) in shim_heif_probe(&input, &info, nil, 0) }
        guard probed == 0, info.width > 0, info.height > 0 else {
            return nil
        }
        var facts = Facts(width: Int(info.width), height: Int(info.height))
        facts.hdr = shim_heif_hdr_transfer(info.nclx_transfer) != 0
        facts.grid = info.primary_grid != 0
        let needed = plans(SourceImageInfo(format: "heif", width: facts.width, height: facts.height, orientation: 1)).neededSize
        let sizes = withUnsafeBytes(of: info.thumbnail_width) { widths in
            withUnsafeBytes(of: info.thumbnail_height) { heights in
                (0..<Int(min(info.thumbnail_count, SHIM_HEIF_MAX_THUMBNAILS))).map {
                    (width: Int(widths.load(fromByteOffset: $0 * 4, as: Int32.self)),
                     height: Int(heights.load(fromByteOffset: $0 * 4, as: Int32.self)))
                }
            }
        }
        let usable = sizes.enumerated().filter { _, size in
            size.width >= needed.width && size.height >= needed.height
                && isScaledCopy(width: size.width, height: size.height, of: facts.width, facts.height)
        }
        if let best = usable.min(by: { $0.element.width * $0.element.height < $1.element.width * $1.element.height }) {
            facts.thumbnail = best.offset
            facts.thumbnailWidth = best.element.width
            facts.thumbnailHeight = best.element.height
        }
        return facts
    }

    /// Whether a `width` × `height` thumbnail has the shape of a
    /// `primaryWidth` × `primaryHeight` image: scaled to the thumbnail's
    /// width, the primary's height is the thumbnail's to within one pixel,
    /// and the same the other way.
    static func isScaledCopy(width: Int, height: Int, of primaryWidth: Int, _ primaryHeight: Int) -> Bool {
        guard width > 0, height > 0, primaryWidth > 0, primaryHeight > 0 else { return false }
        // |w·H − h·W| ≤ W  ⇔  |w·H/W − h| ≤ 1, and ≤ H for the other side.
        let difference = abs(width * primaryHeight - height * primaryWidth)
        return difference <= min(primaryWidth, primaryHeight)
    }

    /// Decodes thumbnail `index` into plain pixels, with the colour profile
    /// that goes with it.
    static func decode(_ source: ImageSource, index: Int) throws(ItemError) -> DecodedPixels {
        var pixels = shim_jpeg_pixels()
        var message = [CChar](repeating: 0, count: 512)
        let status = try HeifInput.with(source) { input throws(ItemError) in
            shim_heif_decode_thumbnail(&input, Int32(index), Int32(VipsRuntime.threadsPerImage), &pixels, &message, message.count)
        }
        guard status == 0 else {
            throw .decode("cannot decode the HEIF thumbnail: \(String(cString: message))")
        }
        return DecodedPixels(pixels, decoder: .heifThumbnail)
    }

    /// Decodes the primary image and resizes it to `target` (as displayed;
    /// nil: its own size) before it becomes interleaved RGB: libheif's
    /// planar RGB is resized plane by plane (`heif_primary.c`), so no
    /// full-size RGB copy is made beside libheif's planes. Nil when the
    /// image is not 8-bit without alpha, or does not decode: libvips then
    /// reads it and gives the item its verdict. Threads:
    /// `threads(forPeakBytes:)`. The HEVC images (a phone's 512² tiles)
    /// are decoded by FFmpeg's libavcodec, about three times as fast as
    /// libheif's libde265 with the same samples, and by libde265 if
    /// libavcodec fails (`heif_hevc_ffmpeg.c`); `hevc` chooses libde265
    /// alone (tests compare the two).
    static func decodePrimary(
        _ source: ImageSource, target: PixelSize?, peakBytes: Int, hevc: Int32 = Int32(SHIM_HEIF_HEVC_FFMPEG)
    ) throws(ItemError) -> DecodedPixels? {
        var pixels = shim_jpeg_pixels()
        let status = try HeifInput.with(source) { input throws(ItemError) in
            shim_heif_decode_primary_reduced(
                &input, Int32(target?.width ?? 0), Int32(target?.height ?? 0), Int32(threads(forPeakBytes: peakBytes)), hevc,
                &pixels, nil, 0
            )
        }
        guard status == 0 else { return nil }
        return DecodedPixels(pixels, decoder: .libheif)
    }

    /// Decodes an HDR still (PQ or HLG): thumbnail `index`, or the primary
    /// image when nil, shrunk to about twice `needed` and tone-mapped to
    /// sRGB with the tone mapping of HDR video (`hdr_tonemap.c`). Threads
    /// as for `decodePrimary`.
    static func decodeHDR(
        _ source: ImageSource, index: Int?, decoder: DecodePath, needed: (width: Int, height: Int), peakBytes: Int
    ) throws(ItemError) -> DecodedPixels {
        var pixels = shim_jpeg_pixels()
        var message = [CChar](repeating: 0, count: 512)
        let status = try HeifInput.with(source) { input throws(ItemError) in
            shim_heif_decode_hdr(
                &input, Int32(index ?? -1), Int32(needed.width), Int32(needed.height), Int32(threads(forPeakBytes: peakBytes)), &pixels, &message, message.count
            )
        }
        guard status == 0 else {
            throw .decode("cannot decode the HDR HEIF image: \(status == -2 ? "its colour is not PQ or HLG" : String(cString: message))")
        }
        return DecodedPixels(pixels, decoder: decoder)
    }

    /// The threads of a decode that reserves `peakBytes`: k jobs' worth of
    /// the run's memory budget (`DirectJPEG.memoryBudget` a job) holds as
    /// many jobs' places, and so gets k times the threads of one image
    /// (`VipsRuntime.threadsPerImage`, cores / jobs), so that jobs × threads
    /// stays about the number of cores. libheif 1.15 decodes a grid's tiles
    /// on that many threads, each tile's HEVC decoder (libde265) on one
    /// worker of its own.
    private static func threads(forPeakBytes peakBytes: Int) -> Int {
        let share = max(1, (peakBytes + DirectJPEG.memoryBudget - 1) / DirectJPEG.memoryBudget)
        return max(1, min(ProcessInfo.processInfo.activeProcessorCount, VipsRuntime.threadsPerImage * share))
    }

    /// The ICC profile of a file that describes its colour by an nclx box
    /// only (Display P3, BT.2020): libvips's loader leaves such an image
    /// untagged, which would show P3 colours as if they were sRGB.
    static func nclxProfile(_ source: ImageSource) throws(ItemError) -> [UInt8]? {
        var icc: UnsafeMutablePointer<UInt8>?
        var length = 0
        let made = try HeifInput.with(source) { input throws(ItemError) in shim_heif_nclx_icc(&input, &icc, &length) }
        guard made == 1, let icc else { return nil }
        defer { HeapMemory.free(icc) }
        return Array(UnsafeBufferPointer(start: icc, count: length))
    }
}
