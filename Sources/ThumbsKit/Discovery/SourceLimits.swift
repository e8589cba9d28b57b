import Foundation

/// What is checked between a source's header and the rest of its reading,
/// so that a file that cannot be an image costs one small read.
///
/// No source is held whole (its decoders read it by ranges: `ImageSource`),
/// so its size alone refuses nothing. Two checks remain:
/// - `--max-pixels`, checked on the header's size (`SourceHeader`) before
///   the hash reads the file: a bomb inside a 20 GB file is refused after
///   64 KiB;
/// - a JPEG can hold only so much for its pixels: at most `bytesPerPixel`
///   per pixel plus `metadataAllowance` (Exif, ICC, XMP, a motion photo's
///   video, the second picture of an MPO). A 1×1 JPEG header followed by
///   20 GB is refused unread.
///
/// A file the sniff does not know (a 4 GB sparse file of zeros) never gets
/// here: it fails on its first 64 KiB (`ItemProcessor`).
struct SourceLimits: Sendable {
    var maxPixels: Int

    static let bytesPerPixel = 16
    static let metadataAllowance = 64 << 20

    init(maxPixels: Int) {
        self.maxPixels = maxPixels
    }

    /// Throws when `header` or the file's size says the file must not be
    /// read: `too-large` for pixels over `--max-pixels` (the same words as
    /// the decoder's check) or a JPEG far larger than its pixels. `name` is the source as
    /// the user knows it (a path, or a URL for a download).
    func check(_ header: SourceHeader, size: Int, name: String) throws(ItemError) {
        if let width = header.width, let height = header.height {
            // The decoder's own check, so both refuse in the same words.
            try DecodeLimits(maxPixels: maxPixels).checkPixels(width: width, height: height)
            if header.format == "jpeg" {
                let most = (width * height).multipliedReportingOverflow(by: Self.bytesPerPixel).partialValue
                    + Self.metadataAllowance
                if size > most {
                    throw ItemError.tooLarge(
                        "\(name) is \(Self.bytes(size)), far more than a \(width)×\(height) JPEG holds (at most \(Self.bytes(most))); the rest is not image data, and the file was not read"
                    )
                }
            }
        }
    }

    /// "20.0 GB", "512.0 MB", "900 bytes" (powers of 1024, as `ls -lh`).
    static func bytes(_ count: Int) -> String {
        let units = ["KB", "MB", "GB", "TB"]
        var value = Double(count), unit = -1
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit < 0 ? "\(count) bytes" : String(format: "%.1f", value) + " " + units[unit]
    }
}
