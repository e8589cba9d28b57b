import CThumbsTestShim
import CVips
import Foundation

/// Writes little-endian classic TIFF files entry by entry: data blobs first,
/// then the directories that point at them. Enough for the DNGs the RAW
/// tests make (`TestDNG`) and for hand-made hostile variants of them.
public struct TIFFWriter {
    public enum Value {
        case byte([Int])
        case ascii(String)
        case short([Int])
        case long([Int])
        case rational([(Int, Int)])
        case srational([(Int, Int)])
    }

    public private(set) var bytes: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 0, 0, 0, 0]

    public init() {}

    /// Appends `data` (at an even offset) and returns where it starts.
    @discardableResult
    public mutating func append(_ data: [UInt8]) -> Int {
        if bytes.count % 2 == 1 { bytes.append(0) }
        let offset = bytes.count
        bytes += data
        return offset
    }

    /// Writes a directory (entries sorted by tag, values over 4 bytes stored
    /// before it) and returns its offset.
    public mutating func directory(_ entries: [(tag: Int, value: Value)], next: Int = 0) -> Int {
        var encoded: [(tag: Int, type: Int, count: Int, data: [UInt8])] = []
        for (tag, value) in entries.sorted(by: { $0.tag < $1.tag }) {
            switch value {
            case .byte(let v): encoded.append((tag, 1, v.count, v.map { UInt8(truncatingIfNeeded: $0) }))
            case .ascii(let s): encoded.append((tag, 2, s.utf8.count + 1, Array(s.utf8) + [0]))
            case .short(let v): encoded.append((tag, 3, v.count, v.flatMap { Self.le($0, 2) }))
            case .long(let v): encoded.append((tag, 4, v.count, v.flatMap { Self.le($0, 4) }))
            case .rational(let v): encoded.append((tag, 5, v.count, v.flatMap { Self.le($0.0, 4) + Self.le($0.1, 4) }))
            case .srational(let v): encoded.append((tag, 10, v.count, v.flatMap { Self.le($0.0, 4) + Self.le($0.1, 4) }))
            }
        }
        var fields: [[UInt8]] = []
        for entry in encoded {
            if entry.data.count <= 4 {
                fields.append(entry.data + [UInt8](repeating: 0, count: 4 - entry.data.count))
            } else {
                fields.append(Self.le(append(entry.data), 4))
            }
        }
        let offset = append([])
        bytes += Self.le(encoded.count, 2)
        for (entry, field) in zip(encoded, fields) {
            bytes += Self.le(entry.tag, 2) + Self.le(entry.type, 2) + Self.le(entry.count, 4) + field
        }
        bytes += Self.le(next, 4)
        return offset
    }

    /// Points the header at IFD0.
    public mutating func setFirstDirectory(_ offset: Int) {
        bytes.replaceSubrange(4..<8, with: Self.le(offset, 4))
    }

    /// Overwrites 4 bytes at `offset` with `value` (for hostile variants).
    public mutating func patch(_ offset: Int, long value: Int) {
        bytes.replaceSubrange(offset..<offset + 4, with: Self.le(value, 4))
    }

    static func le(_ value: Int, _ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}

/// DNGs made for tests, shaped as cameras write them: IFD0 with DNGVersion,
/// Make/Model, Orientation and a small uncompressed RGB thumbnail; a SubIFD
/// with the sensor data (16-bit CFA, RGGB, uncompressed, last in the file:
/// LibRaw develops it);
/// and a SubIFD per JPEG preview (baseline JPEG in one strip).
public enum TestDNG {
    public struct Preview {
        public var jpeg: [UInt8]
        public var width: Int
        public var height: Int
        public init(jpeg: [UInt8], width: Int, height: Int) {
            self.jpeg = jpeg
            self.width = width
            self.height = height
        }
    }

    /// Where the pieces went, for tests that damage them.
    public struct Layout {
        public var bytes: [UInt8]
        /// Per preview: the file offsets of its StripOffsets and StripByteCounts values.
        public var previewOffsetFields: [(offset: Int, length: Int)]
    }

    /// A JPEG of `TestImages.write`'s gradient (with the file name's level),
    /// made by libvips.
    public static func jpegPreview(_ folder: String, name: String, width: Int, height: Int, options: String = "[Q=85,strip]") -> Preview {
        let path = folder + "/" + name + ".jpg"
        TestImages.write(path, width: width, height: height, options: options)
        let data = try! Data(contentsOf: URL(fileURLWithPath: path))
        try? FileManager.default.removeItem(atPath: path)
        return Preview(jpeg: [UInt8](data), width: width, height: height)
    }

    /// A JPEG of a picture with structure a perceptual hash can see (smooth
    /// waves of several low frequencies, as a landscape has), at `path` and
    /// as a preview.
    @discardableResult
    public static func writePattern(_ path: String, width: Int, height: Int, options: String = "[Q=85,strip]") -> Preview {
        TestImages.start()
        var data = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let u = Double(x) / Double(width) * 2 * .pi, v = Double(y) / Double(height) * 2 * .pi
                let wave = 60 * sin(1.3 * u + 0.7) * cos(0.9 * v + 0.3) + 40 * sin(2.1 * u + 1.4 * v) + 25 * cos(3.2 * v - 0.8 * u)
                let level = Int(max(0, min(255, 128 + wave)))
                let at = (y * width + x) * 3
                data[at] = UInt8(level)
                data[at + 1] = UInt8((level * 3 / 4 + 30) % 256)
                data[at + 2] = UInt8(255 - level)
            }
        }
        let image = data.withUnsafeBytes {
            vips_image_new_from_memory_copy($0.baseAddress, $0.count, Int32(width), Int32(height), 3, VIPS_FORMAT_UCHAR)
        }
        guard let image else { fatalError("cannot make a test image") }
        image.pointee.Type = VIPS_INTERPRETATION_sRGB
        try? FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let status = shim_save_file(image, path + options)
        shim_unref(image)
        precondition(status == 0, "cannot write \(path)")
        let bytes = [UInt8](try! Data(contentsOf: URL(fileURLWithPath: path)))
        return Preview(jpeg: bytes, width: width, height: height)
    }

    public static func make(
        width: Int, height: Int, orientation: Int = 1, make: String = "Canon", model: String = "Canon EOS Test",
        previews: [Preview], thumbnail: (width: Int, height: Int) = (96, 64)
    ) -> Layout {
        var tiff = TIFFWriter()
        // The sensor data: a gradient, left to right, in RGGB.
        var raw = [UInt8](repeating: 0, count: width * height * 2)
        for y in 0..<height {
            for x in 0..<width {
                let level = 4096 + x * 40000 / max(1, width - 1)
                let at = (y * width + x) * 2
                raw[at] = UInt8(level & 0xFF)
                raw[at + 1] = UInt8(level >> 8)
            }
        }
        // Written last, as cameras do, so that a file cut short loses sensor
        // data and keeps its directories: StripOffsets is patched at the end.
        let rawIFD = tiff.directory([
            (0xFE, .long([0])), (0x100, .long([width])), (0x101, .long([height])), (0x102, .short([16])),
            (0x103, .short([1])), (0x106, .short([32803])), (0x111, .long([0])), (0x115, .short([1])),
            (0x116, .long([height])), (0x117, .long([raw.count])), (0x828D, .short([2, 2])), (0x828E, .byte([0, 1, 1, 2])),
            (0xC61D, .long([65535])),
        ])
        var previewIFDs: [Int] = []
        var fields: [(Int, Int)] = []
        for preview in previews {
            let at = tiff.append(preview.jpeg)
            let ifd = tiff.directory([
                (0xFE, .long([1])), (0x100, .long([preview.width])), (0x101, .long([preview.height])),
                (0x102, .short([8, 8, 8])), (0x103, .short([7])), (0x106, .short([6])), (0x111, .long([at])),
                (0x115, .short([3])), (0x116, .long([preview.height])), (0x117, .long([preview.jpeg.count])),
            ])
            previewIFDs.append(ifd)
            // Entries sorted by tag: StripOffsets is the 7th, StripByteCounts the 10th; value at +8.
            fields.append((ifd + 2 + 6 * 12 + 8, ifd + 2 + 9 * 12 + 8))
        }
        let thumb = [UInt8](repeating: 128, count: thumbnail.width * thumbnail.height * 3)
        let thumbOffset = tiff.append(thumb)
        let ifd0 = tiff.directory([
            (0xFE, .long([1])), (0x100, .long([thumbnail.width])), (0x101, .long([thumbnail.height])),
            (0x102, .short([8, 8, 8])), (0x103, .short([1])), (0x106, .short([2])), (0x10F, .ascii(make)),
            (0x110, .ascii(model)), (0x111, .long([thumbOffset])), (0x112, .short([orientation])), (0x115, .short([3])),
            (0x116, .long([thumbnail.height])), (0x117, .long([thumb.count])), (0x14A, .long([rawIFD] + previewIFDs)),
            (0xC612, .byte([1, 4, 0, 0])), (0xC613, .byte([1, 1, 0, 0])), (0xC614, .ascii(model)),
            (0xC621, .srational([(1, 1), (0, 1), (0, 1), (0, 1), (1, 1), (0, 1), (0, 1), (0, 1), (1, 1)])),
            (0xC628, .rational([(1, 2), (1, 1), (1, 2)])),
        ])
        tiff.setFirstDirectory(ifd0)
        // Entries sorted by tag: StripOffsets is the raw IFD's 7th.
        tiff.patch(rawIFD + 2 + 6 * 12 + 8, long: tiff.append(raw))
        return Layout(bytes: tiff.bytes, previewOffsetFields: fields)
    }
}
