import CVips
import CThumbsTestShim
import CVipsShim
import Foundation
import ThumbsKit

/// Makes test images with libvips itself, so tests need no files from elsewhere.
public enum TestImages {
    public static func start() {
        try! VipsRuntime.start()
    }

    /// Writes a gradient image: band 0 rises left to right, band 1 top to
    /// bottom, other bands are mid grey (alpha bands opaque), so orientation
    /// is visible in the result. `options` follow the name: "[Q=90,strip]".
    @discardableResult
    public static func write(
        _ path: String, width: Int, height: Int, bands: Int = 3,
        interpretation: VipsInterpretation = VIPS_INTERPRETATION_sRGB,
        sixteenBit: Bool = false, alpha: Bool = false,
        orientation: Int? = nil, options: String = ""
    ) -> String {
        start()
        let total = bands + (alpha ? 1 : 0)
        let maxValue = sixteenBit ? 65535.0 : 255.0
        // Bands past the first two carry a level derived from the file name,
        // so that differently named test images never share their bytes.
        let name = (path as NSString).lastPathComponent
        var hash = 7
        for scalar in name.unicodeScalars { hash = (hash &* 31 &+ Int(scalar.value)) % 997 }
        let level = Double(hash % 128 + 64) / 255 * maxValue
        let levelValue = Int(level)
        let maxInt = Int(maxValue)
        let wSpan = max(1, width - 1), hSpan = max(1, height - 1)
        // Integer arithmetic on a raw buffer: fast even in debug builds.
        func fill<T: FixedWidthInteger>(_ type: T.Type) -> UnsafeMutablePointer<VipsImage>? {
            var data = [T](repeating: 0, count: width * height * total)
            data.withUnsafeMutableBufferPointer { buffer in
                var i = 0
                for y in 0..<height {
                    let rowValue = T(y * maxInt / hSpan)
                    for x in 0..<width {
                        buffer[i] = T(x * maxInt / wSpan)
                        if total > 1 { buffer[i + 1] = rowValue }
                        if total > 2 { for b in 2..<total { buffer[i + b] = T(levelValue) } }
                        if alpha { buffer[i + total - 1] = x < width / 4 ? 0 : T(maxInt) }
                        i += total
                    }
                }
            }
            return data.withUnsafeBytes {
                vips_image_new_from_memory_copy($0.baseAddress, $0.count, Int32(width), Int32(height), Int32(total),
                                                sixteenBit ? VIPS_FORMAT_USHORT : VIPS_FORMAT_UCHAR)
            }
        }
        let image = sixteenBit ? fill(UInt16.self) : fill(UInt8.self)
        guard let image else { fatalError("cannot make a test image") }
        image.pointee.Type = interpretation
        if let orientation { vips_image_set_int(image, "orientation", Int32(orientation)) }
        try? FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let status = shim_save_file(image, path + options)
        shim_unref(image)
        precondition(status == 0, "cannot write \(path): \(String(cString: vips_error_buffer()))")
        return path
    }

    public struct Header {
        public var width: Int, height: Int, bands: Int
        public var interpretation: VipsInterpretation
        public var format: VipsBandFormat
        public var orientation: Int
        public var hasICC: Bool
        public var hasEXIF: Bool
    }

    /// Decodes an output fully (proving it decodes) and returns its header.
    public static func header(_ path: String) -> Header? {
        start()
        var image: UnsafeMutablePointer<VipsImage>?
        guard shim_open_file(path, &image) == 0, let image else { _ = vips_error_buffer_copy(); return nil }
        defer { shim_unref(image) }
        var avg = 0.0
        guard shim_image_avg(image, &avg) == 0 else { _ = vips_error_buffer_copy(); return nil }
        return Header(
            width: Int(image.pointee.Xsize), height: Int(image.pointee.Ysize), bands: Int(image.pointee.Bands),
            interpretation: image.pointee.Type, format: image.pointee.BandFmt,
            orientation: Int(vips_image_get_orientation(image)),
            hasICC: vips_image_get_typeof(image, VIPS_META_ICC_NAME) != 0,
            hasEXIF: vips_image_get_typeof(image, VIPS_META_EXIF_NAME) != 0
        )
    }

    /// Mean of one band over a region given in fractions of the image.
    public static func mean(_ path: String, band: Int, x: Double, y: Double, w: Double = 0.1, h: Double = 0.1) -> Double {
        start()
        var image: UnsafeMutablePointer<VipsImage>?
        guard shim_open_file(path, &image) == 0, let image else { return -1 }
        defer { shim_unref(image) }
        let W = Double(image.pointee.Xsize), H = Double(image.pointee.Ysize)
        let left = Int32(x * W), top = Int32(y * H)
        let width = max(1, Int32(w * W)), height = max(1, Int32(h * H))
        var area: UnsafeMutablePointer<VipsImage>?
        guard shim_extract_area(image, &area, left, top, width, height) == 0, let area else { return -1 }
        defer { shim_unref(area) }
        var one: UnsafeMutablePointer<VipsImage>?
        guard shim_extract_band(area, &one, Int32(band), 1) == 0, let one else { return -1 }
        defer { shim_unref(one) }
        var avg = 0.0
        _ = shim_image_avg(one, &avg)
        return avg
    }

    public static func temporaryDirectory(_ name: String = #function) -> String {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        let path = NSTemporaryDirectory() + "thumbs-tests-\(safe)-\(UUID().uuidString.prefix(8))"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}

extension TestImages {
    /// An animated GIF or WebP: `frames` pages, frame 0 black, the others white.
    public static func writeAnimation(_ path: String, width: Int, height: Int, frames: Int) {
        start()
        var pixels = [UInt8](repeating: 0, count: width * height * frames * 3)
        for i in (width * height * 3)..<pixels.count { pixels[i] = 255 }
        let image = pixels.withUnsafeBytes {
            vips_image_new_from_memory_copy($0.baseAddress, $0.count, Int32(width), Int32(height * frames), 3, VIPS_FORMAT_UCHAR)
        }!
        image.pointee.Type = VIPS_INTERPRETATION_sRGB
        vips_image_set_int(image, "page-height", Int32(height))
        try? FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let status = shim_save_file(image, path)
        shim_unref(image)
        precondition(status == 0, "cannot write \(path)")
    }
}

extension TestImages {
    /// `width`×`height` interleaved RGB bytes, row by row: the pixel at
    /// (x, y) is `pixel(x, y)`.
    public static func rgb(width: Int, height: Int, _ pixel: (Int, Int) -> (UInt8, UInt8, UInt8)) -> [UInt8] {
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let at = (y * width + x) * 3
                (rgb[at], rgb[at + 1], rgb[at + 2]) = pixel(x, y)
            }
        }
        return rgb
    }

    /// A 24-bit BMP of `width`×`height`, written by hand: an everyday format
    /// that libvips reads only through a loader it marks untrusted.
    public static func bmp(width: Int, height: Int) -> [UInt8] {
        let rowBytes = (width * 3 + 3) / 4 * 4
        let pixelBytes = rowBytes * height
        var out: [UInt8] = []
        func le32(_ v: Int) { for k in 0..<4 { out.append(UInt8(v >> (8 * k) & 0xFF)) } }
        func le16(_ v: Int) { for k in 0..<2 { out.append(UInt8(v >> (8 * k) & 0xFF)) } }
        out += Array("BM".utf8)
        le32(14 + 40 + pixelBytes); le32(0); le32(14 + 40)
        le32(40); le32(width); le32(height); le16(1); le16(24); le32(0); le32(pixelBytes)
        le32(2835); le32(2835); le32(0); le32(0)
        for y in 0..<height {
            for x in 0..<width { out += [UInt8(x * 255 / max(1, width - 1)), UInt8(y * 255 / max(1, height - 1)), 128] }
            out += [UInt8](repeating: 0, count: rowBytes - width * 3)
        }
        return out
    }
}
