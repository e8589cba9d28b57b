import Foundation

/// What is checked between a source's header and the read of the rest of
/// it, so that no file costs more memory than the run allows.
///
/// The decoders take the whole file in memory (libjpeg, the direct JPEG
/// paths, and libvips from a buffer), so a file that is read is held whole
/// until its thumbnails are made. Three limits keep that bounded:
/// - `--max-pixels`, checked on the header's size (`SourceHeader`) before
///   the read: a bomb inside a 20 GB file is refused after 64 KiB;
/// - a JPEG can hold only so much for its pixels: at most `bytesPerPixel`
///   per pixel plus `metadataAllowance` (Exif, ICC, XMP, a motion photo's
///   video, the second picture of an MPO). A 1×1 JPEG header followed by
///   20 GB is refused unread;
/// - `largest`: the most one source may hold in memory, whatever it claims.
///   Sources larger than `SourceBytes.largeFile` also reserve their size in
///   a budget of this capacity (`ItemProcessor`), so that three large files
///   at `--jobs 2` are held one after the other, not at once.
///
/// `largest` is an eighth of the machine's memory, between 256 MiB and
/// 1 GiB: a 300 MB uncompressed TIFF is read on an everyday machine, and a
/// NAS with 2 GB refuses it rather than swap. A larger image needs a decoder
/// that reads the file by ranges instead of a buffer (libvips from a file).
struct SourceLimits: Sendable {
    var maxPixels: Int
    var largest: Int

    static let bytesPerPixel = 16
    static let metadataAllowance = 64 << 20

    init(maxPixels: Int, largest: Int = Self.largestForThisMachine) {
        self.maxPixels = maxPixels
        self.largest = largest
    }

    static let largestForThisMachine: Int = {
        let eighth = Int(clamping: ProcessInfo.processInfo.physicalMemory / 8)
        return min(1 << 30, max(256 << 20, eighth))
    }()

    /// Throws when `header` or the file's size says the file must not be
    /// read: `too-large` for pixels over `--max-pixels` (the same words as
    /// the decoder's check) or bytes over a limit. `name` is the source as
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
        // A video is hashed by streaming and decoded by ranges, never held whole.
        if size > largest, !VideoSniffer.formats.contains(header.format) {
            throw ItemError.tooLarge(
                "\(name) is \(Self.bytes(size)): \(header.format.uppercased()) is decoded from memory, and thumbs holds at most \(Self.bytes(largest)) of one source on this machine; the file was not read"
            )
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
